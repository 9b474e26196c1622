//! StarMade's server info query over TCP on the game port (`docs/protocols/starmade.md`).
//!
//! # Format (all big-endian)
//! ```text
//! request  00 00 00 09 | 2a | ff ff | 01 | 6f | 00 00 00 00
//!          length 9      packet  id     status  parameterised  no parameters
//! reply    u32 length (what follows the 12-byte header) | u64 timestamp
//!          2a | u16 packet id | u8 command | u8 command type | i32 parameter count
//!          parameters, each a type byte and its value:
//!            1 int (i32), 2 long (i64), 3 float (f32), 4 string (u16 length, UTF-8),
//!            5 boolean (u8), 6 byte (u8), 7 short (i16)
//! info     [byte info version, float|string version, string name, string description,
//!           long start time (ms), int players, int max players]
//! ```

pub mod exchange;
pub mod spec;

use std::time::Duration;

use crate::protocol::DecodeError;
use crate::status::Status;

/// The status request (StarMade's admin protocol: packet 0x2a, command 1 "status").
pub const REQUEST: [u8; 13] = [
    0x00, 0x00, 0x00, 0x09, 0x2a, 0xff, 0xff, 0x01, 0x6f, 0x00, 0x00, 0x00, 0x00,
];

/// The reply's header before its length-counted part: length and timestamp.
pub const HEADER: usize = 12;
/// A regular packet's first byte.
pub const PACKET: u8 = 0x2a;
/// A reply larger than this is not a status (seven short parameters fit in well under 1 KiB
/// plus two strings the server caps).
pub const MAX_REPLY: usize = 64 * 1024;
/// Parameters read at most.
pub const MAX_PARAMS: usize = 64;

/// One parameter's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Param {
    Int(i32),
    Long(i64),
    Float(f32),
    Str(String),
    Bool(bool),
    Byte(u8),
    Short(i16),
}

/// The info reply, read by position.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Info {
    pub version: Option<String>,
    pub name: String,
    pub description: Option<String>,
    pub start_time: Option<i64>,
    pub players: u32,
    pub max_players: u32,
}

/// One framed reply from the front of `buf`: `Ok(None)` until it is all there; its
/// parameters and the bytes used. A length field past `cap` is refused at once.
pub fn decode_reply(buf: &[u8], cap: usize) -> Result<Option<(Vec<Param>, usize)>, DecodeError> {
    let Some(len) = buf.get(..4) else {
        return Ok(None);
    };
    let len = u32::from_be_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let total = HEADER.saturating_add(len);
    let limit = cap.min(MAX_REPLY);
    if total > limit {
        return Err(DecodeError::TooLarge {
            what: "StarMade reply length",
            value: total as u64,
            limit: limit as u64,
        });
    }
    let Some(body) = buf.get(HEADER..total) else {
        return Ok(None);
    };
    Ok(Some((decode_body(body)?, total)))
}

/// The length-counted part: the packet header, then the parameters.
pub fn decode_body(body: &[u8]) -> Result<Vec<Param>, DecodeError> {
    let mut r = Reader(body);
    if r.u8()? != PACKET {
        return Err(DecodeError::Invalid(
            "StarMade reply is not a packet (0x2a)",
        ));
    }
    r.take(4)?; // packet id, command, command type
    let count = r.i32()?;
    if !(0..=MAX_PARAMS as i32).contains(&count) {
        return Err(DecodeError::Invalid("StarMade parameter count"));
    }
    let mut params = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let p = match r.u8()? {
            1 => Param::Int(r.i32()?),
            2 => Param::Long(i64::from_be_bytes(r.array()?)),
            3 => Param::Float(f32::from_be_bytes(r.array()?)),
            4 => {
                let n = u16::from_be_bytes(r.array()?) as usize;
                Param::Str(String::from_utf8_lossy(r.take(n)?).into_owned())
            }
            5 => Param::Bool(r.u8()? != 0),
            6 => Param::Byte(r.u8()?),
            7 => Param::Short(i16::from_be_bytes(r.array()?)),
            _ => return Err(DecodeError::Invalid("StarMade parameter type")),
        };
        params.push(p);
    }
    Ok(params)
}

/// The info by position (qstat's and gamedig's reading): a missing or mistyped name or
/// count is malformed; negative counts too.
pub fn to_info(params: &[Param]) -> Result<Info, DecodeError> {
    let count = |i: usize, what: &'static str| match params.get(i) {
        Some(Param::Int(n)) => u32::try_from(*n).map_err(|_| DecodeError::Invalid(what)),
        _ => Err(DecodeError::Invalid(what)),
    };
    let text = |i: usize| match params.get(i) {
        Some(Param::Str(s)) => Some(s.clone()),
        _ => None,
    };
    let version = match params.get(1) {
        Some(Param::Str(s)) => Some(s.clone()),
        // Older servers send their version as a float (0.199): shown as written.
        Some(Param::Float(f)) if f.is_finite() => Some(format!("{f}")),
        _ => None,
    };
    Ok(Info {
        version,
        name: text(2).ok_or(DecodeError::Invalid("StarMade server name"))?,
        description: text(3),
        start_time: match params.get(4) {
            Some(Param::Long(t)) => Some(*t),
            _ => None,
        },
        players: count(5, "StarMade player count")?,
        max_players: count(6, "StarMade max players")?,
    })
}

/// Writes a reply carrying `params` (the simulator's side; tests use it too).
pub fn encode_reply(params: &[Param], timestamp: i64, out: &mut Vec<u8>) {
    let mut body = vec![PACKET, 0xff, 0xff, 0x01, 0x6f];
    body.extend_from_slice(&(params.len() as i32).to_be_bytes());
    for p in params {
        match p {
            Param::Int(n) => (body.push(1), body.extend_from_slice(&n.to_be_bytes())).1,
            Param::Long(n) => (body.push(2), body.extend_from_slice(&n.to_be_bytes())).1,
            Param::Float(f) => (body.push(3), body.extend_from_slice(&f.to_be_bytes())).1,
            Param::Str(s) => {
                let bytes = &s.as_bytes()[..s.len().min(u16::MAX as usize)];
                body.push(4);
                body.extend_from_slice(&(bytes.len() as u16).to_be_bytes());
                body.extend_from_slice(bytes);
            }
            Param::Bool(b) => body.extend_from_slice(&[5, *b as u8]),
            Param::Byte(b) => body.extend_from_slice(&[6, *b]),
            Param::Short(n) => (body.push(7), body.extend_from_slice(&n.to_be_bytes())).1,
        }
    }
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(&timestamp.to_be_bytes());
    out.extend_from_slice(&body);
}

/// The normalized status (StarMade sends no player list).
pub fn to_status(info: Info, latency: Duration, detail: bool) -> Status {
    let mut s = Status {
        online: info.players,
        max: info.max_players,
        name: info.name,
        game: Some("StarMade".into()),
        version: info.version,
        latency,
        ..Status::default()
    };
    if detail {
        if let Some(d) = info.description.filter(|d| !d.is_empty()) {
            s.extras.insert("description".into(), d.into());
        }
        if let Some(t) = info.start_time {
            s.extras.insert("start_time_ms".into(), t.into());
        }
    }
    s
}

/// Bounds-checked big-endian reads.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.0.len() {
            return Err(DecodeError::Invalid("StarMade reply ends early"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }
    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }
    fn i32(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }
}

#[cfg(test)]
mod tests;
