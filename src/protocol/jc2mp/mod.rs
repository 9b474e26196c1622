//! Just Cause 2 Multiplayer's query: GameSpy 3 (`protocol::gamespy3`) with its own request
//! payload and reply body. See `docs/protocols/jc2mp.md`.
//!
//! # Format
//! ```text
//! handshake, challenge: GameSpy 3's (FE FD 09 | session, 09 | session | challenge 00)
//! request:   FE FD 00 | session | [challenge (i32 BE)] | FF FF FF 02
//! reply:     00 | session | 11 bytes not read | { key 00 value 00 } 00
//!            | count (u16 BE) | { name 00 steamid 00 ping (u16 BE) }
//! ```
//! The reply is one datagram: the 11 bytes GameSpy 3 fills with `splitnum`, an index and a
//! section are skipped by length (gamedig does the same, the only reader of this dialect
//! we know of). The count is the server's own player count; the records run to the end of
//! the datagram and may be fewer than the count.
//!
//! # Driving it
//! The dialogue (handshake, challenge or none, resends, memory between polls) is
//! [`gamespy3::GameSpy3`] in the [`DIALECT`] below; this module only reads the body
//! ([`decode_body`], [`read_body`]) and writes it for the simulator ([`encode_reply`]).

pub mod spec;

use std::time::Duration;

use serde_json::json;

use crate::protocol::gamespy3::exchange::Dialect;
use crate::protocol::gamespy3::{self, Flavor, Text, Want, Words, MAX_PAIRS, MAX_ROWS};
use crate::protocol::{DecodeError, Reader};
use crate::status::{Player, Status};

/// The request's last four bytes: GameSpy 3's `FF FF FF 01` with a 2.
pub const PAYLOAD: [u8; 4] = [0xFF, 0xFF, 0xFF, 0x02];

/// The body's strings: valid UTF-8 stays, anything else lossily (gamedig reads UTF-8).
const TEXT: Text = Text::Lossy;

/// GameSpy 3's session ids and handshake, this dialect's payload, one part.
pub const FLAVOR: Flavor = Flavor {
    session_mask: -1,
    payload: PAYLOAD,
    single_part: true,
    text: TEXT,
    max_pairs: MAX_PAIRS,
    max_rows: MAX_ROWS,
    words: Words {
        request_magic: "JC2-MP request magic",
        request_type: "JC2-MP request type",
        reply_short: "JC2-MP reply too short for a header",
        reply_type: "JC2-MP reply type",
        session_id: "JC2-MP session id",
        challenge_not_decimal: "JC2-MP challenge (not a decimal number)",
        challenge_range: "JC2-MP challenge (out of i32 range)",
        player_marker: "JC2-MP player marker",
    },
};

/// What the exchange needs to speak this dialect.
pub const DIALECT: Dialect = Dialect {
    flavor: FLAVOR,
    read_body: Some(read_body),
};

/// One player record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    pub steamid: String,
    /// Milliseconds.
    pub ping: u16,
}

/// A decoded reply body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// Key/values in the server's order.
    pub info: Vec<(String, String)>,
    /// The server's player count (the u16 after the key/values).
    pub count: u16,
    pub players: Vec<Record>,
}

impl Reply {
    /// The value of `key`, as sent.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.info
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Decodes a reply body (what follows the 16-byte header). A string without its NUL, a
/// count or record cut short, or a ping missing a byte is malformed; more than
/// [`MAX_PAIRS`] key/values or [`MAX_ROWS`] records is [`DecodeError::TooLarge`].
pub fn decode_body(body: &[u8]) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(body);
    let mut reply = Reply::default();
    loop {
        let key = r.cstr()?;
        if key.is_empty() {
            break;
        }
        let value = r.cstr()?;
        if reply.info.len() == MAX_PAIRS {
            return Err(DecodeError::TooLarge {
                what: "JC2-MP key/value pairs",
                value: MAX_PAIRS as u64 + 1,
                limit: MAX_PAIRS as u64,
            });
        }
        reply.info.push((TEXT.decode(key), TEXT.decode(value)));
    }
    reply.count = r.u16_be()?;
    while !r.is_empty() {
        if reply.players.len() == MAX_ROWS {
            return Err(DecodeError::TooLarge {
                what: "JC2-MP player records",
                value: MAX_ROWS as u64 + 1,
                limit: MAX_ROWS as u64,
            });
        }
        let name = TEXT.decode(r.cstr()?);
        let steamid = TEXT.decode(r.cstr()?);
        let ping = r.u16_be()?;
        reply.players.push(Record {
            name,
            steamid,
            ping,
        });
    }
    Ok(reply)
}

/// Writes a reply body (simulator side).
pub fn encode_body(reply: &Reply, out: &mut Vec<u8>) {
    for (k, v) in &reply.info {
        out.extend_from_slice(k.as_bytes());
        out.push(0);
        out.extend_from_slice(v.as_bytes());
        out.push(0);
    }
    out.push(0);
    out.extend_from_slice(&reply.count.to_be_bytes());
    for p in &reply.players {
        out.extend_from_slice(p.name.as_bytes());
        out.push(0);
        out.extend_from_slice(p.steamid.as_bytes());
        out.push(0);
        out.extend_from_slice(&p.ping.to_be_bytes());
    }
}

/// Writes the whole reply datagram to `session` (simulator side): GameSpy 3's part header,
/// first and last, then the body.
pub fn encode_reply(session: i32, reply: &Reply, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    encode_body(reply, &mut body);
    let part = gamespy3::Part {
        index: 0,
        last: true,
        section: 0,
        body: &body,
    };
    gamespy3::encode_part(session, &part, out);
}

/// The dialect's [`gamespy3::exchange::ReadBody`]: the body decoded, then [`to_status`].
pub fn read_body(body: &[u8], want: Want, latency: Duration) -> Result<Status, DecodeError> {
    Ok(to_status(&decode_body(body)?, want, latency))
}

fn number(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// Maps a reply onto [`Status`]:
///
/// - name `hostname`; map `mapname`, else `map` (JC2-MP has one world, Panau, and may not
///   say it); game `gamename`; version `version`, else `gamever` (gamedig reads `version`);
/// - online: `numplayers`, else the count after the key/values (gamedig's order); max:
///   `maxplayers`; password: `password`;
/// - players: the records, with the Steam id as the player's id and the ping.
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| reply.get(k))
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let count = |key: &str| {
        reply
            .get(key)
            .and_then(number)
            .map(|n| u32::try_from(n.max(0)).unwrap_or(u32::MAX))
    };
    let mut status = Status {
        online: count("numplayers").unwrap_or(u32::from(reply.count)),
        max: count("maxplayers").unwrap_or(0),
        name: text(&["hostname"]).unwrap_or_default(),
        map: text(&["mapname", "map"]),
        game: text(&["gamename"]),
        version: text(&["version", "gamever"]),
        password: reply.get("password").and_then(number).map(|n| n != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        status.players = Some(
            reply
                .players
                .iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    id: (!p.steamid.is_empty()).then(|| p.steamid.clone()),
                    ping: Some(u32::from(p.ping)),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want.rules {
        status.rules = Some(reply.info.clone());
    }
    if want.detail {
        status
            .extras
            .insert("player_count".into(), json!(reply.count));
        status
            .extras
            .insert("player_records".into(), json!(reply.players.len()));
    }
    status
}

#[cfg(test)]
mod tests;
