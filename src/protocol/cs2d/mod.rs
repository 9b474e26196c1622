//! CS2D's UDP server info query (the server browser's `serverinfo` with the player list),
//! on the game port. See `docs/protocols/cs2d.md`.
//!
//! # Format
//! ```text
//! request: 01 00 | FB 01 | F5 03 | FB 05
//! reply:   01 00 FB 01 | flags (u8) | name | map (u8 length + bytes each)
//!          | players (u8) | max (u8) | [game mode (u8), when flags bit 5]
//!          | bots (u8) | flags2 (u8) | 2 bytes | count (u8)
//!          | { id (u8) | name | team (u8) | score (i32 LE) | deaths (i32 LE) }
//! ```
//! The request asks for the server info (`FB 01`) and the player list (`FB 05`) in one
//! datagram; the reply carries both, the player list behind two bytes we do not read. This
//! is the layout npm gamedig 5.3.3 reads (the only reader that runs here); GameQ's older
//! reader differs on the game mode and bots bytes (docs/protocols/cs2d.md).

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::json;

use super::{DecodeError, Reader};
use crate::status::{Player, Status};

/// What every request is, byte for byte.
pub const REQUEST: [u8; 8] = [0x01, 0x00, 0xFB, 0x01, 0xF5, 0x03, 0xFB, 0x05];
/// What every reply starts with.
pub const REPLY_HEADER: [u8; 4] = [0x01, 0x00, 0xFB, 0x01];
/// Flags bit 0: joining needs a password.
const PASSWORD: u8 = 1 << 0;
/// Flags bit 5: the game mode byte is present (gamedig 5.3.3; its raw name: bots enabled).
const GAME_MODE: u8 = 1 << 5;
/// The two bytes before the player count (the player list's message id in what we send).
const LIST_MARK: [u8; 2] = [0xFB, 0x05];

/// One player record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub id: u8,
    pub name: String,
    pub team: u8,
    pub score: i32,
    pub deaths: i32,
}

/// A decoded reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    pub flags: u8,
    pub name: String,
    pub map: String,
    pub players: u8,
    pub max: u8,
    /// Present when flags bit 5 is set.
    pub game_mode: Option<u8>,
    pub bots: u8,
    pub flags2: u8,
    /// `None`: the datagram ended before the player list.
    pub list: Option<Vec<Record>>,
}

/// Writes the request.
pub fn encode_request(out: &mut Vec<u8>) {
    out.extend_from_slice(&REQUEST);
}

/// Whether `datagram` is our request (server side): the info request first, whatever follows.
pub fn is_request(datagram: &[u8]) -> bool {
    datagram.starts_with(&REPLY_HEADER)
}

/// Text: Latin-1, every byte the character of the same number (GameQ reads CS2D's strings
/// as ISO-8859-1; names are ASCII in practice).
fn text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn read_str8(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let len = r.u8()?;
    Ok(text(r.bytes(len.into())?))
}

/// Decodes a reply. Another header is a [`DecodeError::Mismatch`] (not our answer); a
/// length or count past the end of the datagram is malformed. The player list may be
/// missing (the datagram ends after the info); a record cut short is malformed.
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let Some(rest) = datagram.strip_prefix(&REPLY_HEADER) else {
        return Err(DecodeError::Mismatch("CS2D reply header"));
    };
    let mut r = Reader::new(rest);
    let flags = r.u8()?;
    let name = read_str8(&mut r)?;
    let map = read_str8(&mut r)?;
    let players = r.u8()?;
    let max = r.u8()?;
    let game_mode = if flags & GAME_MODE != 0 {
        Some(r.u8()?)
    } else {
        None
    };
    let bots = r.u8()?;
    let flags2 = r.u8()?;
    let list = if r.is_empty() {
        None
    } else {
        r.skip(LIST_MARK.len())?;
        let count = usize::from(r.u8()?);
        // id, name length, team, score, deaths: at least 11 bytes a record.
        let fits = r.remaining() / 11;
        if count > fits {
            return Err(DecodeError::Overrun {
                what: "CS2D player count",
                value: count as u64,
                fits: fits as u64,
            });
        }
        let mut list = Vec::with_capacity(count);
        for _ in 0..count {
            let id = r.u8()?;
            let name = read_str8(&mut r)?;
            let team = r.u8()?;
            let score = r.i32_le()?;
            let deaths = r.i32_le()?;
            list.push(Record {
                id,
                name,
                team,
                score,
                deaths,
            });
        }
        Some(list)
    };
    Ok(Reply {
        flags,
        name,
        map,
        players,
        max,
        game_mode,
        bots,
        flags2,
        list,
    })
}

/// Writes a string behind a u8 length, cut at 255 bytes; characters above U+00FF become `?`.
fn write_str8(s: &str, out: &mut Vec<u8>) {
    let bytes: Vec<u8> = s
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .take(255)
        .collect();
    out.push(bytes.len() as u8);
    out.extend_from_slice(&bytes);
}

/// Writes a reply (simulator side). The game mode byte goes out when `game_mode` is set
/// (and sets flags bit 5); the list, when there is one, behind `FB 05`.
pub fn encode_reply(reply: &Reply, out: &mut Vec<u8>) {
    out.extend_from_slice(&REPLY_HEADER);
    let mut flags = reply.flags & !GAME_MODE;
    if reply.game_mode.is_some() {
        flags |= GAME_MODE;
    }
    out.push(flags);
    write_str8(&reply.name, out);
    write_str8(&reply.map, out);
    out.push(reply.players);
    out.push(reply.max);
    if let Some(m) = reply.game_mode {
        out.push(m);
    }
    out.push(reply.bots);
    out.push(reply.flags2);
    if let Some(list) = &reply.list {
        out.extend_from_slice(&LIST_MARK);
        let list = &list[..list.len().min(255)];
        out.push(list.len() as u8);
        for p in list {
            out.push(p.id);
            write_str8(&p.name, out);
            out.push(p.team);
            out.extend_from_slice(&p.score.to_le_bytes());
            out.extend_from_slice(&p.deaths.to_le_bytes());
        }
    }
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    pub players: bool,
    pub detail: bool,
}

/// Maps a reply onto [`Status`]: online is the players byte, bots the bots byte, password
/// flags bit 0; the list with scores (deaths and teams in detail only).
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let mut status = Status {
        online: reply.players.into(),
        max: reply.max.into(),
        bots: Some(reply.bots.into()),
        name: reply.name.clone(),
        map: Some(reply.map.clone()).filter(|m| !m.is_empty()),
        password: Some(reply.flags & PASSWORD != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        status.players = reply.list.as_ref().map(|list| {
            list.iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    id: Some(p.id.to_string()),
                    score: Some(p.score.into()),
                    ..Player::default()
                })
                .collect()
        });
    }
    if want.detail {
        status.extras.insert("flags".into(), json!(reply.flags));
        status.extras.insert("flags2".into(), json!(reply.flags2));
        if let Some(m) = reply.game_mode {
            status.extras.insert("game_mode".into(), json!(m));
        }
    }
    status
}

#[cfg(test)]
mod tests;
