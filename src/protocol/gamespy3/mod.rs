//! GameSpy 3 query (the "qr2" server side of GameSpy's SDK): Battlefield 2 and 2142,
//! Unreal Tournament 3, Crysis, ArmA, and many other 2004-2012 games. See
//! `docs/protocols/gamespy3.md`.
//!
//! # Format
//! ```text
//! handshake:       FE FD 09 | session (4)
//! handshake reply: 09 | session | challenge as decimal ASCII | 00
//! request:         FE FD 00 | session | [challenge (i32 BE)] | FF FF FF 01
//! reply part:      00 | session | "splitnum" 00 | index (bits 0-6) + last (bit 7) | section
//!                  | body
//! ```
//! The four `FF FF FF 01` bytes ask for every server key, the player columns, the team
//! columns, and a reply split into parts. A server that answers the handshake with challenge
//! 0, or that does not answer it at all (some Battlefield 2 builds), takes the request without
//! the challenge bytes. The bodies, in index order, hold the key/values up to an empty key,
//! then the player and team sections ([`body`]).
//!
//! # Driving it
//! [`GameSpy3`] ([`exchange`]) is the whole dialogue on the shared exchange trait:
//! handshake, the request with or without a challenge, reassembly of the parts in any order,
//! then [`to_status`].
//!
//! # Minecraft Query
//! Minecraft's Query ("GameSpy 4", `protocol::minecraft::query`) is this protocol with a
//! [`Flavor`] of its own: session ids masked to `0x0F0F0F0F`, the request payload `00 00 00
//! 00` instead of `FF FF FF 01`, and always one part (`splitnum 00 80 00`) whose only section
//! is `01 player_ 00 00` followed by the names. [`decode_body`] reads that reply as is.

mod body;
pub mod exchange;
mod map;
mod parts;

pub use body::{decode_body, encode_reply, Reply, Table, MAX_FIELDS, MAX_PAIRS, MAX_ROWS};
pub use exchange::GameSpy3;
pub use map::{to_status, Want};
pub use parts::{decode_part, encode_part, Part, Parts, HEADER_LEN, MAX_PARTS, MAX_REPLY_BYTES};

use super::{DecodeError, Reader};

/// The first two bytes of every request.
pub const MAGIC: [u8; 2] = [0xFE, 0xFD];
/// Request and reply type of the handshake (challenge request).
pub const TYPE_HANDSHAKE: u8 = 0x09;
/// Request and reply type of the query proper.
pub const TYPE_QUERY: u8 = 0x00;
/// The request payload asking for everything: keys, players, teams, split replies allowed.
pub const FULL_REQUEST: [u8; 4] = [0xFF, 0xFF, 0xFF, 0x01];

/// What differs between the servers speaking this protocol family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    /// Bits of the session id the server echoes (Minecraft keeps only `0x0F0F0F0F`).
    pub session_mask: i32,
    /// The four bytes after the challenge.
    pub payload: [u8; 4],
}

impl Flavor {
    /// GameSpy 3 proper: the whole session id echoed, everything asked for.
    pub const GAMESPY3: Flavor = Flavor {
        session_mask: -1,
        payload: FULL_REQUEST,
    };

    pub fn mask(self, session: i32) -> i32 {
        session & self.session_mask
    }
}

impl Default for Flavor {
    fn default() -> Self {
        Flavor::GAMESPY3
    }
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Handshake {
        session: i32,
    },
    Query {
        session: i32,
        /// `None`: the request carried no challenge bytes.
        challenge: Option<i32>,
        payload: [u8; 4],
    },
}

fn encode_head(kind: u8, session: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(&MAGIC);
    out.push(kind);
    out.extend_from_slice(&session.to_be_bytes());
}

/// `FE FD 09` + session id: asks for a challenge.
pub fn encode_handshake(session: i32, out: &mut Vec<u8>) {
    encode_head(TYPE_HANDSHAKE, session, out);
}

/// `FE FD 00` + session id + the challenge (when there is one) + the payload.
pub fn encode_request(session: i32, challenge: Option<i32>, payload: [u8; 4], out: &mut Vec<u8>) {
    encode_head(TYPE_QUERY, session, out);
    if let Some(c) = challenge {
        out.extend_from_slice(&c.to_be_bytes());
    }
    out.extend_from_slice(&payload);
}

/// Decodes a request (server side). A query is 4 bytes of payload after the session id, or
/// 8 with a challenge before them; other lengths (qstat's key-list status request among them)
/// are not this decoder's.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let mut r = Reader::new(datagram);
    if r.array::<2>()? != MAGIC {
        return Err(DecodeError::Invalid("GameSpy3 request magic"));
    }
    let kind = r.u8()?;
    let session = r.i32_be()?;
    match kind {
        TYPE_HANDSHAKE => Ok(Request::Handshake { session }),
        TYPE_QUERY => {
            let challenge = match r.remaining() {
                4 => None,
                8 => Some(r.i32_be()?),
                _ => return Err(DecodeError::Invalid("GameSpy3 request length")),
            };
            Ok(Request::Query {
                session,
                challenge,
                payload: r.array()?,
            })
        }
        other => Err(DecodeError::UnexpectedType {
            what: "GameSpy3 request type",
            found: other.into(),
        }),
    }
}

/// Checks a reply's type byte and echoed session id; anything else is not our answer.
fn check_head(datagram: &[u8], kind: u8, session: i32) -> Result<Reader<'_>, DecodeError> {
    let mut r = Reader::new(datagram);
    let (Ok(found), Ok(echoed)) = (r.u8(), r.i32_be()) else {
        return Err(DecodeError::Mismatch(
            "GameSpy3 reply too short for a header",
        ));
    };
    if found != kind {
        return Err(DecodeError::Mismatch("GameSpy3 reply type"));
    }
    if echoed != session {
        return Err(DecodeError::Mismatch("GameSpy3 session id"));
    }
    Ok(r)
}

/// Decodes the handshake reply to its challenge: ASCII decimal, optionally negative, that
/// fits an i32 (it goes back as one). Anything else is [`DecodeError::Invalid`].
pub fn decode_handshake(datagram: &[u8], session: i32) -> Result<i32, DecodeError> {
    let mut r = check_head(datagram, TYPE_HANDSHAKE, session)?;
    let digits = r.cstr()?;
    let body = digits.strip_prefix(b"-").unwrap_or(digits);
    if body.is_empty() || !body.iter().all(u8::is_ascii_digit) {
        return Err(DecodeError::Invalid(
            "GameSpy3 challenge (not a decimal number)",
        ));
    }
    std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
        .ok_or(DecodeError::Invalid(
            "GameSpy3 challenge (out of i32 range)",
        ))
}

/// Writes a handshake reply (server side).
pub fn encode_handshake_reply(session: i32, challenge: i32, out: &mut Vec<u8>) {
    out.push(TYPE_HANDSHAKE);
    out.extend_from_slice(&session.to_be_bytes());
    out.extend_from_slice(challenge.to_string().as_bytes());
    out.push(0);
}

#[cfg(test)]
mod tests;
