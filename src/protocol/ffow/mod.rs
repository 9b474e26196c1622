//! Frontlines: Fuel of War's server query (UDP, the game port + 2: 5478 by default): Valve's
//! A2S framing with an info request and reply of its own. See `docs/protocols/ffow.md`.
//!
//! # Format
//! ```text
//! request:  FF FF FF FF 'F' "LSQ"
//! reply:    FF FF FF FF 'I' protocol:u8 name\0 map\0 mod\0 mode\0 description\0 version\0
//!           game_port:u16be players:u8 max:u8 dedicated:u8 ('d') os:u8 ('l', 'w')
//!           password:u8 anticheat:u8 frame_time:u8 round:u8 rounds:u8 seconds_left:u16be
//! ```
//! Where A2S is little-endian, Frontlines' 16-bit fields are big-endian. It is its own
//! protocol rather than a dialect of `a2s`: the request, the reply's layout and its byte
//! order all differ, and only the 4-byte header is shared.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::reader::Reader;
use super::DecodeError;
use crate::status::Status;

/// The info request.
pub const REQUEST: &[u8] = b"\xFF\xFF\xFF\xFFFLSQ";
/// The query port's default (the game port 5476 + 2).
pub const DEFAULT_PORT: u16 = 5478;
/// The reply's type byte after the `FF FF FF FF` header.
pub const INFO_REPLY: u8 = b'I';
/// A reply is one datagram; one larger than this is not one we read (real ones are about
/// 150 bytes: six short strings and 13 bytes of numbers).
pub const MAX_REPLY: usize = 4096;

/// The info reply's fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Info {
    pub protocol: u8,
    pub name: String,
    pub map: String,
    pub game_mod: String,
    pub mode: String,
    pub description: String,
    pub version: String,
    pub game_port: u16,
    pub players: u8,
    pub max: u8,
    pub dedicated: u8,
    pub os: u8,
    pub password: bool,
    pub anticheat: bool,
    pub frame_time: u8,
    pub round: u8,
    pub rounds: u8,
    pub seconds_left: u16,
}

/// Reads an info reply. Not `FF FF FF FF 'I'`: a `Mismatch` (another reply, skipped); cut
/// short: `Truncated` or `Unterminated` where it ended; over [`MAX_REPLY`]: `TooLarge`.
pub fn decode(datagram: &[u8]) -> Result<Info, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Frontlines info reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    if datagram.len() < 5 || datagram[..4] != [0xFF; 4] || datagram[4] != INFO_REPLY {
        return Err(DecodeError::Mismatch("not a Frontlines info reply"));
    }
    let mut r = Reader::new(datagram);
    r.skip(5)?;
    Ok(Info {
        protocol: r.u8()?,
        name: r.cstring()?,
        map: r.cstring()?,
        game_mod: r.cstring()?,
        mode: r.cstring()?,
        description: r.cstring()?,
        version: r.cstring()?,
        game_port: r.u16_be()?,
        players: r.u8()?,
        max: r.u8()?,
        dedicated: r.u8()?,
        os: r.u8()?,
        password: r.u8()? != 0,
        anticheat: r.u8()? != 0,
        frame_time: r.u8()?,
        round: r.u8()?,
        rounds: r.u8()?,
        seconds_left: r.u16_be()?,
    })
}

/// Writes an info reply (server side): the inverse of [`decode`].
pub fn encode(i: &Info, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xFF, 0xFF, 0xFF, 0xFF, INFO_REPLY, i.protocol]);
    for s in [
        &i.name,
        &i.map,
        &i.game_mod,
        &i.mode,
        &i.description,
        &i.version,
    ] {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    out.extend_from_slice(&i.game_port.to_be_bytes());
    out.extend_from_slice(&[
        i.players,
        i.max,
        i.dedicated,
        i.os,
        u8::from(i.password),
        u8::from(i.anticheat),
        i.frame_time,
        i.round,
        i.rounds,
    ]);
    out.extend_from_slice(&i.seconds_left.to_be_bytes());
}

/// Maps a reply onto [`Status`]: name, map, counts, the mod (else the description) as the
/// game, version, password. With `detail`: game mode, rounds, time left, dedicated, OS,
/// anti-cheat, frame time and the game port as extras.
pub fn to_status(i: &Info, latency: Duration, detail: bool) -> Status {
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let mut out = Status {
        online: u32::from(i.players),
        max: u32::from(i.max),
        name: i.name.clone(),
        map: non_empty(&i.map),
        game: non_empty(&i.game_mod).or_else(|| non_empty(&i.description)),
        version: non_empty(&i.version),
        password: Some(i.password),
        latency,
        ..Status::default()
    };
    if detail {
        let mut e = Map::new();
        e.insert("game_mode".into(), json!(i.mode));
        e.insert("description".into(), json!(i.description));
        e.insert("round".into(), json!(i.round));
        e.insert("rounds".into(), json!(i.rounds));
        e.insert("seconds_left".into(), json!(i.seconds_left));
        e.insert("dedicated".into(), json!(i.dedicated == b'd'));
        e.insert("os".into(), json!(char::from(i.os).to_string()));
        e.insert("anticheat".into(), json!(i.anticheat));
        e.insert("frame_time".into(), json!(i.frame_time));
        e.insert("game_port".into(), json!(i.game_port));
        e.insert("protocol".into(), json!(i.protocol));
        out.extras = e;
    }
    out
}

#[cfg(test)]
mod tests;
