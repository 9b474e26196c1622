//! NetQuake control protocol (UDP, default 26000): the server query of the original Quake 1
//! network code, as QuakeSpasm, Ironwail and DarkPlaces' NetQuake side answer it. See
//! `docs/protocols/netquake.md`.
//!
//! # Format
//! ```text
//! every packet:  0x80 0x00 length:u16be kind:u8 body    (NETFLAG_CTL; length = whole datagram)
//! requests:      0x02 "QUAKE\0" version:u8 (3)          CCREQ_SERVER_INFO
//!                0x03 index:u8                          CCREQ_PLAYER_INFO (the index-th active client)
//!                0x04 previous-rule:cstr                CCREQ_RULE_INFO ("" or absent: the first)
//! replies:       0x83 address:cstr name:cstr map:cstr players:u8 max:u8 version:u8
//!                0x84 index:u8 name:cstr colours:u32le frags:i32le seconds:i32le address:cstr
//!                0x85 [name:cstr value:cstr]            (nothing after the kind: no more rules)
//! ```
//! A player index past the active clients gets no reply at all (QuakeSpasm 0.95): the exchange
//! asks only up to the count the server info gave.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::{DecodeError, Reader};
use crate::status::{Player, Status};

pub const DEFAULT_PORT: u16 = 26000;
/// The control flag in the first 16 bits of the 32-bit header (`NETFLAG_CTL` >> 16).
pub const CONTROL: u16 = 0x8000;
pub const CCREQ_SERVER_INFO: u8 = 0x02;
pub const CCREQ_PLAYER_INFO: u8 = 0x03;
pub const CCREQ_RULE_INFO: u8 = 0x04;
pub const CCREP_SERVER_INFO: u8 = 0x83;
pub const CCREP_PLAYER_INFO: u8 = 0x84;
pub const CCREP_RULE_INFO: u8 = 0x85;
/// The game name the server info request carries; servers ignore requests without it.
pub const GAME: &[u8] = b"QUAKE";
/// `NET_PROTOCOL_VERSION`: the control protocol's version (not the game protocol's 15/666).
pub const NET_VERSION: u8 = 3;
/// A reply is one datagram; real ones are under a hundred bytes. Engines cap control
/// messages at their message buffer (8 KB in QuakeSpasm).
pub const MAX_REPLY: usize = 8192;
/// A previous-rule name we send is cut at this many bytes (cvar names are short).
pub const MAX_RULE_NAME: usize = 255;

/// A request, as the simulator reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    ServerInfo,
    PlayerInfo(u8),
    /// The previous rule's name (empty for the first).
    RuleInfo(Vec<u8>),
}

/// The server info reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerInfo {
    /// The address the server says it listens on (`-ip`'s, with the port).
    pub address: String,
    pub name: String,
    pub map: String,
    pub players: u8,
    pub max: u8,
    pub version: u8,
}

/// One player info reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerInfo {
    pub index: u8,
    pub name: String,
    /// Shirt colour in bits 4-7, pants in bits 0-3 (the rest is zero from real servers).
    pub colours: u32,
    pub frags: i32,
    /// Seconds since the client connected.
    pub seconds: i32,
    pub address: String,
}

/// One rule info reply: a rule, or the end of the list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    /// The name as sent: the next request must carry these exact bytes.
    pub raw_name: Vec<u8>,
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Server(ServerInfo),
    Player(PlayerInfo),
    /// `None`: no rule after the one asked about.
    Rule(Option<Rule>),
}

fn frame(kind: u8, body: &[u8], out: &mut Vec<u8>) {
    out.clear();
    // The length covers the whole datagram; bodies we write are far below 64 KB.
    let len = u16::try_from(4 + 1 + body.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&CONTROL.to_be_bytes());
    out.extend_from_slice(&len.to_be_bytes());
    out.push(kind);
    out.extend_from_slice(body);
}

/// Writes a request (replacing `out`'s contents).
pub fn encode_request(request: &Request, out: &mut Vec<u8>) {
    match request {
        Request::ServerInfo => {
            let mut body = GAME.to_vec();
            body.extend_from_slice(&[0, NET_VERSION]);
            frame(CCREQ_SERVER_INFO, &body, out);
        }
        Request::PlayerInfo(i) => frame(CCREQ_PLAYER_INFO, &[*i], out),
        Request::RuleInfo(previous) => {
            let mut body: Vec<u8> = previous
                .iter()
                .copied()
                .take_while(|&b| b != 0)
                .take(MAX_RULE_NAME)
                .collect();
            body.push(0);
            frame(CCREQ_RULE_INFO, &body, out);
        }
    }
}

/// Checks the control header against the datagram and returns the kind byte's reader.
fn control(datagram: &[u8]) -> Result<Reader<'_>, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "NetQuake reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    let mut r = Reader::new(datagram);
    let flags = r.u16_be()?;
    if flags != CONTROL {
        return Err(DecodeError::Mismatch("not a NetQuake control packet"));
    }
    let len = r.u16_be()?;
    if usize::from(len) > datagram.len() {
        return Err(DecodeError::Overrun {
            what: "NetQuake control length",
            value: len.into(),
            fits: datagram.len() as u64,
        });
    }
    if usize::from(len) < datagram.len() {
        return Err(DecodeError::Invalid(
            "NetQuake control length (shorter than the datagram)",
        ));
    }
    Ok(r)
}

/// What a request datagram asks (server side); `None` for anything a real server ignores:
/// another header, a length that is not the datagram's, another game name.
pub fn parse_request(datagram: &[u8]) -> Option<Request> {
    let mut r = control(datagram).ok()?;
    match r.u8().ok()? {
        CCREQ_SERVER_INFO => (r.cstr().ok()? == GAME).then_some(Request::ServerInfo),
        CCREQ_PLAYER_INFO => Some(Request::PlayerInfo(r.u8().ok()?)),
        // QuakeSpasm reads a missing name as "": the first rule.
        CCREQ_RULE_INFO => Some(Request::RuleInfo(
            r.cstr().map(<[u8]>::to_vec).unwrap_or_default(),
        )),
        _ => None,
    }
}

/// Quake text: UTF-8 where it is (DarkPlaces sends UTF-8 names); otherwise the Quake
/// character set, whose upper half is the lower half in another colour: bit 7 is dropped,
/// and what is then not printable ASCII becomes `?`.
pub fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes
            .iter()
            .map(|&b| match b & 0x7f {
                c @ 0x20..=0x7e => char::from(c),
                _ => '?',
            })
            .collect(),
    }
}

fn string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    Ok(text(r.cstr()?))
}

/// Decodes one reply. Not a control packet is a [`DecodeError::Mismatch`] (game traffic,
/// not an answer); a length field that is not the datagram's, a string without its NUL or a
/// field past the end is malformed; over [`MAX_REPLY`] is too large. Bytes after the last
/// field are ignored (engines may append).
pub fn decode(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let mut r = control(datagram)?;
    let kind = r.u8()?;
    match kind {
        CCREP_SERVER_INFO => Ok(Reply::Server(ServerInfo {
            address: string(&mut r)?,
            name: string(&mut r)?,
            map: string(&mut r)?,
            players: r.u8()?,
            max: r.u8()?,
            version: r.u8()?,
        })),
        CCREP_PLAYER_INFO => Ok(Reply::Player(PlayerInfo {
            index: r.u8()?,
            name: string(&mut r)?,
            colours: r.u32_le()?,
            frags: r.i32_le()?,
            seconds: r.i32_le()?,
            address: string(&mut r)?,
        })),
        CCREP_RULE_INFO if r.is_empty() => Ok(Reply::Rule(None)),
        CCREP_RULE_INFO => {
            let raw_name = r.cstr()?.to_vec();
            let value = string(&mut r)?;
            Ok(Reply::Rule(Some(Rule {
                name: text(&raw_name),
                raw_name,
                value,
            })))
        }
        other => Err(DecodeError::UnexpectedType {
            what: "NetQuake control reply",
            found: other.into(),
        }),
    }
}

fn put_str(s: &str, out: &mut Vec<u8>) {
    out.extend(s.bytes().filter(|&b| b != 0));
    out.push(0);
}

/// Writes a reply (simulator side): the inverse of [`decode`].
pub fn encode(reply: &Reply, out: &mut Vec<u8>) {
    let mut body = Vec::new();
    let kind = match reply {
        Reply::Server(s) => {
            for t in [&s.address, &s.name, &s.map] {
                put_str(t, &mut body);
            }
            body.extend_from_slice(&[s.players, s.max, s.version]);
            CCREP_SERVER_INFO
        }
        Reply::Player(p) => {
            body.push(p.index);
            put_str(&p.name, &mut body);
            body.extend_from_slice(&p.colours.to_le_bytes());
            body.extend_from_slice(&p.frags.to_le_bytes());
            body.extend_from_slice(&p.seconds.to_le_bytes());
            put_str(&p.address, &mut body);
            CCREP_PLAYER_INFO
        }
        Reply::Rule(rule) => {
            if let Some(rule) = rule {
                body.extend(rule.raw_name.iter().copied().filter(|&b| b != 0));
                body.push(0);
                put_str(&rule.value, &mut body);
            }
            CCREP_RULE_INFO
        }
    };
    frame(kind, &body, out);
}

/// Maps the server info onto [`Status`]: name, map, counts; with `detail`, the address the
/// server names and the control protocol version in extras.
pub fn to_status(info: &ServerInfo, latency: Duration, detail: bool) -> Status {
    let mut out = Status {
        name: info.name.clone(),
        map: (!info.map.is_empty()).then(|| info.map.clone()),
        online: info.players.into(),
        max: info.max.into(),
        latency,
        ..Status::default()
    };
    if detail {
        let mut e = Map::new();
        e.insert("address".into(), json!(info.address));
        e.insert("net_protocol".into(), json!(info.version));
        out.extras = e;
    }
    out
}

/// A player info reply as a [`Player`]: name, frags as the score, seconds connected.
pub fn to_player(p: &PlayerInfo) -> Player {
    Player {
        name: p.name.clone(),
        score: Some(p.frags.into()),
        duration: Some(p.seconds.max(0) as f32),
        ..Player::default()
    }
}

#[cfg(test)]
mod tests;
