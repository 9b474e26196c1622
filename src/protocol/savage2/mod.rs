//! Savage 2: A Tortured Soul's server query (UDP, 11235 by default): one byte out, one
//! datagram back. See `docs/protocols/savage2.md`.
//!
//! # Format
//! ```text
//! request:  01
//! reply:    12 bytes (not read) name\0 players:u8 max:u8 time\0 map\0 next-map\0
//!           location\0 min-players:u8 game-type\0 version\0 min-level:u8
//! ```
//! This is the layout npm gamedig 5.3.3 reads (`protocols/savage2.js`), the only third-party
//! reader there is (qstat's `-sas` is Savage 1's protocol; opengsq has none). Nothing in the
//! reply echoes the request, so every datagram from the server is taken for the reply.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::reader::Reader;
use super::DecodeError;
use crate::status::Status;

/// The request.
pub const REQUEST: &[u8] = &[0x01];
/// The query port's default (gamedig's `s2ats`).
pub const DEFAULT_PORT: u16 = 11235;
/// The bytes before the name, which no reader interprets.
pub const HEADER_LEN: usize = 12;
/// A reply is one datagram of nine short fields; one larger than this is not one we read.
pub const MAX_REPLY: usize = 4096;

/// The reply's fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Info {
    pub header: [u8; HEADER_LEN],
    pub name: String,
    pub players: u8,
    pub max: u8,
    pub time: String,
    pub map: String,
    pub next_map: String,
    pub location: String,
    pub min_players: u8,
    pub game_type: String,
    pub version: String,
    pub min_level: u8,
}

/// Reads a reply. Cut short: `Truncated` or `Unterminated` where it ended; over
/// [`MAX_REPLY`]: `TooLarge`.
pub fn decode(datagram: &[u8]) -> Result<Info, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Savage 2 reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    let mut r = Reader::new(datagram);
    Ok(Info {
        header: r.array()?,
        name: r.cstring()?,
        players: r.u8()?,
        max: r.u8()?,
        time: r.cstring()?,
        map: r.cstring()?,
        next_map: r.cstring()?,
        location: r.cstring()?,
        min_players: r.u8()?,
        game_type: r.cstring()?,
        version: r.cstring()?,
        min_level: r.u8()?,
    })
}

/// Writes a reply (server side): the inverse of [`decode`] for strings without NULs.
pub fn encode(i: &Info, out: &mut Vec<u8>) {
    out.extend_from_slice(&i.header);
    let s = |s: &str, out: &mut Vec<u8>| {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    };
    s(&i.name, out);
    out.extend_from_slice(&[i.players, i.max]);
    for t in [&i.time, &i.map, &i.next_map, &i.location] {
        s(t, out);
    }
    out.push(i.min_players);
    s(&i.game_type, out);
    s(&i.version, out);
    out.push(i.min_level);
}

/// The name without its colour codes: `^` and the character after it, as gamedig strips
/// them by default.
pub fn strip_colours(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '^' {
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

/// Maps a reply onto [`Status`]: name (colour codes stripped), map, counts, game type as the
/// game, version. With `detail`: the time, next map, location, minimum players and level, and
/// the name as sent.
pub fn to_status(i: &Info, latency: Duration, detail: bool) -> Status {
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let mut out = Status {
        online: u32::from(i.players),
        max: u32::from(i.max),
        name: strip_colours(&i.name),
        map: non_empty(&i.map),
        game: non_empty(&i.game_type),
        version: non_empty(&i.version),
        latency,
        ..Status::default()
    };
    if detail {
        let mut e = Map::new();
        e.insert("time".into(), json!(i.time));
        e.insert("next_map".into(), json!(i.next_map));
        e.insert("location".into(), json!(i.location));
        e.insert("min_players".into(), json!(i.min_players));
        e.insert("min_level".into(), json!(i.min_level));
        e.insert("raw_name".into(), json!(i.name));
        out.extras = e;
    }
    out
}

#[cfg(test)]
mod tests;
