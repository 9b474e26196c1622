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
//! Minecraft's Query ("GameSpy 4", `protocol::minecraft::query`) is this protocol in
//! another [`Flavor`]: session ids masked to `0x0F0F0F0F`, the request payload `00 00 00
//! 00` instead of `FF FF FF 01` (or none: the basic stat), one part whose 11 bytes after the
//! session id are not checked (GeyserMC writes other text there) and whose only section is
//! `01 player_ 00 00` followed by the names, and strings that are not UTF-8 read as
//! ISO-8859-1. Its handshake, token, requests and full stat come from here
//! ([`decode_handshake_in`], [`encode_request`], [`decode_part_in`], [`decode_body_in`]);
//! the basic stat, the `§` codes and the token's dialogue are Minecraft's.

mod body;
pub mod exchange;
mod map;
mod parts;

pub use body::{
    decode_body, decode_body_in, encode_reply, view_body_in, view_body_keeping, Columns, Reply,
    Table, View, MAX_FIELDS, MAX_PAIRS, MAX_ROWS,
};
pub use exchange::GameSpy3;
pub use map::{status_of, to_status, Want};
pub use parts::{
    decode_part, decode_part_in, encode_part, Part, Parts, HEADER_LEN, MAX_PARTS, MAX_REPLY_BYTES,
};

use super::{DecodeError, Reader};

/// The first two bytes of every request.
pub const MAGIC: [u8; 2] = [0xFE, 0xFD];
/// Request and reply type of the handshake (challenge request).
pub const TYPE_HANDSHAKE: u8 = 0x09;
/// Request and reply type of the query proper.
pub const TYPE_QUERY: u8 = 0x00;
/// The request payload asking for everything: keys, players, teams, split replies allowed.
pub const FULL_REQUEST: [u8; 4] = [0xFF, 0xFF, 0xFF, 0x01];

/// What differs between the servers speaking this protocol family: GameSpy 3 proper and
/// Minecraft's Query (GameSpy 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flavor {
    /// Bits of the session id the server echoes (Minecraft keeps only `0x0F0F0F0F`): ids
    /// are masked before sending and the echo is compared masked.
    pub session_mask: i32,
    /// The four bytes after the challenge.
    pub payload: [u8; 4],
    /// The reply is one part, sent whole: the 11 bytes after its session id are not checked,
    /// its body is the key/values and the `player_` column alone, each list ended by its
    /// empty string (Minecraft). Otherwise parts are reassembled and a column may continue
    /// in the next one (GameSpy 3).
    pub single_part: bool,
    /// How strings become text.
    pub text: Text,
    /// Key/value pairs and rows kept; more is [`DecodeError::TooLarge`].
    pub max_pairs: usize,
    pub max_rows: usize,
    /// How this flavor's errors name what failed.
    pub words: Words,
}

/// How a flavor reads strings that are not valid UTF-8.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// Lossily: invalid bytes become U+FFFD (GameSpy 3).
    Lossy,
    /// As ISO-8859-1, every byte the character of the same number; decided per string, so
    /// valid UTF-8 stays UTF-8 and no byte becomes U+FFFD (Minecraft, whose older servers
    /// write `§` as the single byte `A7`).
    Latin1Fallback,
}

impl Text {
    /// The text of `bytes`, borrowed when they are UTF-8 (nothing to convert).
    pub fn decode_cow(self, bytes: &[u8]) -> std::borrow::Cow<'_, str> {
        match std::str::from_utf8(bytes) {
            Ok(s) => std::borrow::Cow::Borrowed(s),
            Err(_) => std::borrow::Cow::Owned(self.decode(bytes)),
        }
    }

    pub fn decode(self, bytes: &[u8]) -> String {
        match (self, std::str::from_utf8(bytes)) {
            (_, Ok(s)) => s.to_owned(),
            (Text::Lossy, Err(_)) => String::from_utf8_lossy(bytes).into_owned(),
            (Text::Latin1Fallback, Err(_)) => bytes.iter().map(|&b| char::from(b)).collect(),
        }
    }
}

/// The text of a flavor's errors ([`DecodeError`] carries static text), so each protocol's
/// failures read as they always did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Words {
    pub request_magic: &'static str,
    pub request_type: &'static str,
    pub reply_short: &'static str,
    pub reply_type: &'static str,
    pub session_id: &'static str,
    pub challenge_not_decimal: &'static str,
    pub challenge_range: &'static str,
    /// The single part's `01 player_ 00 00`.
    pub player_marker: &'static str,
}

impl Flavor {
    /// GameSpy 3 proper: the whole session id echoed, everything asked for, split replies.
    pub const GAMESPY3: Flavor = Flavor {
        session_mask: -1,
        payload: FULL_REQUEST,
        single_part: false,
        text: Text::Lossy,
        max_pairs: MAX_PAIRS,
        max_rows: MAX_ROWS,
        words: Words {
            request_magic: "GameSpy3 request magic",
            request_type: "GameSpy3 request type",
            reply_short: "GameSpy3 reply too short for a header",
            reply_type: "GameSpy3 reply type",
            session_id: "GameSpy3 session id",
            challenge_not_decimal: "GameSpy3 challenge (not a decimal number)",
            challenge_range: "GameSpy3 challenge (out of i32 range)",
            player_marker: "GameSpy3 player marker",
        },
    };

    /// Minecraft's Query (GameSpy 4): see the module documentation.
    pub const MINECRAFT: Flavor = Flavor {
        session_mask: 0x0F0F_0F0F,
        payload: [0; 4],
        single_part: true,
        text: Text::Latin1Fallback,
        // Uncapped in effect, as Minecraft's lists always were: every entry takes at least
        // two bytes of one datagram, which holds fewer than 65,536.
        max_pairs: 1 << 16,
        max_rows: 1 << 16,
        words: Words {
            request_magic: "Query magic",
            request_type: "Query request type",
            reply_short: "Query reply too short for a header",
            reply_type: "Query reply type",
            session_id: "Query session id",
            challenge_not_decimal: "Query token (not a decimal number)",
            challenge_range: "Query token (out of i32 range)",
            player_marker: "Query full stat player marker",
        },
    };

    pub fn mask(self, session: i32) -> i32 {
        session & self.session_mask
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
    encode_query_head(session, challenge, out);
    out.extend_from_slice(&payload);
}

/// `FE FD 00` + session id + the challenge (when there is one), no payload: what
/// [`encode_request`] starts with, and all of Minecraft's basic stat request.
pub fn encode_query_head(session: i32, challenge: Option<i32>, out: &mut Vec<u8>) {
    encode_head(TYPE_QUERY, session, out);
    if let Some(c) = challenge {
        out.extend_from_slice(&c.to_be_bytes());
    }
}

/// Decodes a request's head (server side): the magic, a type this protocol knows
/// ([`TYPE_HANDSHAKE`] or [`TYPE_QUERY`]) and the session id as sent. The reader is left at
/// what follows, which each flavor reads its own way.
pub fn decode_request_head<'a>(
    flavor: &Flavor,
    datagram: &'a [u8],
) -> Result<(u8, i32, Reader<'a>), DecodeError> {
    let mut r = Reader::new(datagram);
    if r.array::<2>()? != MAGIC {
        return Err(DecodeError::Invalid(flavor.words.request_magic));
    }
    let kind = r.u8()?;
    let session = r.i32_be()?;
    match kind {
        TYPE_HANDSHAKE | TYPE_QUERY => Ok((kind, session, r)),
        other => Err(DecodeError::UnexpectedType {
            what: flavor.words.request_type,
            found: other.into(),
        }),
    }
}

/// Decodes a request (server side). A query is 4 bytes of payload after the session id, or
/// 8 with a challenge before them; other lengths (qstat's key-list status request among them)
/// are not this decoder's.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let (kind, session, mut r) = decode_request_head(&Flavor::GAMESPY3, datagram)?;
    if kind == TYPE_HANDSHAKE {
        return Ok(Request::Handshake { session });
    }
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

/// Checks a reply's type byte and echoed session id (`session` as sent, masked by the
/// flavor); anything else is not our answer. The reader is left after the session id.
pub fn check_head_in<'a>(
    flavor: &Flavor,
    datagram: &'a [u8],
    kind: u8,
    session: i32,
) -> Result<Reader<'a>, DecodeError> {
    let mut r = Reader::new(datagram);
    let (Ok(found), Ok(echoed)) = (r.u8(), r.i32_be()) else {
        return Err(DecodeError::Mismatch(flavor.words.reply_short));
    };
    if found != kind {
        return Err(DecodeError::Mismatch(flavor.words.reply_type));
    }
    if echoed != flavor.mask(session) {
        return Err(DecodeError::Mismatch(flavor.words.session_id));
    }
    Ok(r)
}

/// Decodes the handshake reply to its challenge: ASCII decimal, optionally negative, that
/// fits an i32 (it goes back as one). Anything else is [`DecodeError::Invalid`].
pub fn decode_handshake(datagram: &[u8], session: i32) -> Result<i32, DecodeError> {
    decode_handshake_in(&Flavor::GAMESPY3, datagram, session)
}

/// [`decode_handshake`] in `flavor` (Minecraft calls the challenge its token).
pub fn decode_handshake_in(
    flavor: &Flavor,
    datagram: &[u8],
    session: i32,
) -> Result<i32, DecodeError> {
    let mut r = check_head_in(flavor, datagram, TYPE_HANDSHAKE, session)?;
    let digits = r.cstr()?;
    let body = digits.strip_prefix(b"-").unwrap_or(digits);
    if body.is_empty() || !body.iter().all(u8::is_ascii_digit) {
        return Err(DecodeError::Invalid(flavor.words.challenge_not_decimal));
    }
    std::str::from_utf8(digits)
        .ok()
        .and_then(|s| s.parse::<i32>().ok())
        .ok_or(DecodeError::Invalid(flavor.words.challenge_range))
}

/// Writes a handshake reply (server side), echoing `session` as given.
pub fn encode_handshake_reply(session: i32, challenge: i32, out: &mut Vec<u8>) {
    out.push(TYPE_HANDSHAKE);
    out.extend_from_slice(&session.to_be_bytes());
    out.extend_from_slice(challenge.to_string().as_bytes());
    out.push(0);
}

pub mod spec;
#[cfg(test)]
mod tests;
