//! Mafia II Multiplayer's UDP query (the game port + 1): the request is the magic alone, the
//! reply the magic, the server's info and the player names in one datagram. Mafia II Online
//! (`protocol::mafia2online`) speaks the same query in another [`Dialect`]. See
//! `docs/protocols/mafia2mp.md`.
//!
//! # Format
//! ```text
//! request: magic                           ("M2MP"; Mafia II Online: "M2Online")
//! reply:   magic | name | players | max | gamemode   (strings, below; counts as decimal text)
//!          | password (u8, non-zero: set)
//!          | { name [| ping (decimal text), Mafia II Online only] }   to the datagram's end
//! string:  length (u8, counting itself) | length - 1 bytes (Windows-1252)
//! ```
//! The list has no count: it runs to the end of the datagram, or to an empty name. This is
//! the layout npm gamedig 5.3.3 reads (the only reader of it that runs here).

pub mod exchange;
pub mod spec;

use std::time::Duration;

use encoding_rs::WINDOWS_1252;
use serde_json::json;

use super::{DecodeError, Reader};
use crate::status::{Player, Status};

/// The most a reply may hold: a full server of 255 players with 32-character names is under
/// 10 KB; a larger datagram is not a reply we read.
pub const MAX_REPLY: usize = 16 * 1024;

/// What differs between the games that speak this query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The request, and what the reply starts with.
    pub magic: &'static [u8],
    /// Each player's name is followed by its ping.
    pub pings: bool,
}

/// Mafia II Multiplayer's: names alone.
pub const DIALECT: Dialect = Dialect {
    magic: b"M2MP",
    pings: false,
};

/// One player.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    /// Milliseconds, in the dialect that sends it; `None` too where it is not a number.
    pub ping: Option<u32>,
}

/// A decoded reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub name: String,
    pub players: u32,
    pub max: u32,
    pub gamemode: String,
    pub password: bool,
    pub list: Vec<Record>,
}

/// Writes the request.
pub fn encode_request(dialect: &Dialect, out: &mut Vec<u8>) {
    out.extend_from_slice(dialect.magic);
}

/// Whether `datagram` is the dialect's request (server side).
pub fn is_request(dialect: &Dialect, datagram: &[u8]) -> bool {
    datagram == dialect.magic
}

/// A string whose length byte counts itself. A length byte of 0 reads as an empty string,
/// as gamedig reads it; a length past the end of the datagram is malformed.
fn string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let offset = r.position();
    let n = usize::from(r.u8()?).saturating_sub(1);
    if n > r.remaining() {
        return Err(DecodeError::Truncated {
            offset,
            needed: n + 1,
            available: r.remaining() + 1,
        });
    }
    Ok(WINDOWS_1252
        .decode_without_bom_handling(r.bytes(n)?)
        .0
        .into_owned())
}

/// A count sent as decimal text.
fn count(r: &mut Reader<'_>, what: &'static str) -> Result<u32, DecodeError> {
    string(r)?
        .trim()
        .parse()
        .map_err(|_| DecodeError::Invalid(what))
}

/// Decodes a reply. Another magic is a [`DecodeError::Mismatch`] (not our answer); a
/// datagram over [`MAX_REPLY`] is too large; a string cut short, or counts that are not
/// numbers, are malformed. A ping that is not a number is left out.
pub fn decode_reply(dialect: &Dialect, datagram: &[u8]) -> Result<Reply, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Mafia II query reply",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    let Some(rest) = datagram.strip_prefix(dialect.magic) else {
        return Err(DecodeError::Mismatch("Mafia II query magic"));
    };
    let mut r = Reader::new(rest);
    let name = string(&mut r)?;
    let players = count(&mut r, "Mafia II player count")?;
    let max = count(&mut r, "Mafia II slot count")?;
    let gamemode = string(&mut r)?;
    let password = r.u8()? != 0;
    let mut list = Vec::new();
    while !r.is_empty() {
        let name = string(&mut r)?;
        if name.is_empty() {
            break;
        }
        let ping = if dialect.pings {
            string(&mut r)?.trim().parse().ok()
        } else {
            None
        };
        list.push(Record { name, ping });
    }
    Ok(Reply {
        name,
        players,
        max,
        gamemode,
        password,
        list,
    })
}

/// Writes a string behind its length byte (counting itself), cut at 254 bytes; characters
/// Windows-1252 lacks become `?`.
fn write_string(s: &str, out: &mut Vec<u8>) {
    let bytes: Vec<u8> = s
        .chars()
        .map(|c| {
            let mut buf = [0u8; 4];
            let (b, _, unmappable) = WINDOWS_1252.encode(c.encode_utf8(&mut buf));
            match (unmappable, b.first()) {
                (false, Some(&b)) => b,
                _ => b'?',
            }
        })
        .take(254)
        .collect();
    out.push(bytes.len() as u8 + 1);
    out.extend_from_slice(&bytes);
}

/// Writes a reply (simulator side), the pings in the dialect that sends them (0 for a
/// record without one).
pub fn encode_reply(dialect: &Dialect, reply: &Reply, out: &mut Vec<u8>) {
    out.extend_from_slice(dialect.magic);
    write_string(&reply.name, out);
    write_string(&reply.players.to_string(), out);
    write_string(&reply.max.to_string(), out);
    write_string(&reply.gamemode, out);
    out.push(u8::from(reply.password));
    for p in &reply.list {
        write_string(&p.name, out);
        if dialect.pings {
            write_string(&p.ping.unwrap_or(0).to_string(), out);
        }
    }
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    pub players: bool,
    pub detail: bool,
}

/// Maps a reply onto [`Status`]: the counts as sent, the game mode as the game (gamedig
/// also calls it the version), the names (and pings) with `players`.
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let mut status = Status {
        online: reply.players,
        max: reply.max,
        name: reply.name.clone(),
        game: Some(reply.gamemode.clone()).filter(|g| !g.is_empty()),
        password: Some(reply.password),
        latency,
        ..Status::default()
    };
    if want.players {
        status.players = Some(
            reply
                .list
                .iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    ping: p.ping,
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want.detail {
        status
            .extras
            .insert("listed".into(), json!(reply.list.len()));
    }
    status
}

#[cfg(test)]
mod tests;
