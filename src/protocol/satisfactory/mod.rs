//! Satisfactory's Lightweight Query API (UDP on the game port, 7777 by default). See
//! `docs/protocols/satisfactory.md`.
//!
//! # Format
//! Every field little-endian:
//! ```text
//! request:  magic u16 = 0xF6D5 ("D5 F6")  type u8 = 0 (poll server state)  version u8 = 1
//!           cookie u64  terminator u8 = 1
//! reply:    magic u16  type u8 = 1 (server state)  version u8 = 1  cookie u64 (ours, echoed)
//!           state u8 (0 offline, 1 idle, 2 loading, 3 playing)  net_cl u32 (build)
//!           flags u64 (bit 0: modded)  sub-state count u8  { id u8, version u16 } * count
//!           name length u16  name UTF-8  terminator u8 = 1
//! ```
//! No player counts travel here: those need the HTTPS API and a token ([`api`]).

pub mod api;
pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::reader::Reader;
use super::DecodeError;
use crate::status::Status;

/// The protocol magic, `D5 F6` on the wire.
pub const MAGIC: u16 = 0xF6D5;
/// The only protocol version defined.
pub const VERSION: u8 = 1;
/// Message type of the request.
pub const POLL_SERVER_STATE: u8 = 0;
/// Message type of the reply.
pub const SERVER_STATE_RESPONSE: u8 = 1;
/// Ends every message.
pub const TERMINATOR: u8 = 1;
/// The request's length.
pub const REQUEST_LEN: usize = 13;

/// What the server is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServerState {
    /// Servers never send this (they would not answer), but it is defined.
    Offline,
    /// Running, no save loaded.
    Idle,
    /// Loading a save (the HTTPS API is unavailable meanwhile).
    Loading,
    /// A save is loaded; players can join.
    Playing,
    /// A value this decoder does not know, kept as sent.
    Other(u8),
}

impl ServerState {
    pub fn from_code(code: u8) -> ServerState {
        match code {
            0 => ServerState::Offline,
            1 => ServerState::Idle,
            2 => ServerState::Loading,
            3 => ServerState::Playing,
            n => ServerState::Other(n),
        }
    }

    pub fn code(self) -> u8 {
        match self {
            ServerState::Offline => 0,
            ServerState::Idle => 1,
            ServerState::Loading => 2,
            ServerState::Playing => 3,
            ServerState::Other(n) => n,
        }
    }

    /// The word published as the `server_state` rule.
    pub fn as_str(self) -> &'static str {
        match self {
            ServerState::Offline => "offline",
            ServerState::Idle => "idle",
            ServerState::Loading => "loading",
            ServerState::Playing => "playing",
            ServerState::Other(_) => "unknown",
        }
    }
}

/// One sub-state: an id and the version (a change counter) of that part of the state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubState {
    pub id: u8,
    pub version: u16,
}

/// A decoded reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub cookie: u64,
    pub state: ServerState,
    /// The server's build (changelist) number.
    pub net_cl: u32,
    pub flags: u64,
    /// At most 255 (the count is one byte).
    pub substates: Vec<SubState>,
    pub name: String,
}

/// Writes a poll request with `cookie`.
pub fn encode_request(cookie: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(POLL_SERVER_STATE);
    out.push(VERSION);
    out.extend_from_slice(&cookie.to_le_bytes());
    out.push(TERMINATOR);
}

/// Decodes a request (server side): its cookie.
pub fn decode_request(datagram: &[u8]) -> Result<u64, DecodeError> {
    let mut r = Reader::new(datagram);
    if r.u16_le()? != MAGIC {
        return Err(DecodeError::Invalid("Satisfactory magic"));
    }
    let kind = r.u8()?;
    if kind != POLL_SERVER_STATE {
        return Err(DecodeError::UnexpectedType {
            what: "message type",
            found: kind.into(),
        });
    }
    if r.u8()? != VERSION {
        return Err(DecodeError::Invalid("protocol version"));
    }
    let cookie = r.u64_le()?;
    if r.u8()? != TERMINATOR {
        return Err(DecodeError::Invalid("terminator"));
    }
    Ok(cookie)
}

/// Decodes a reply that must echo `cookie`.
///
/// Another magic, another message type or another cookie is [`DecodeError::Mismatch`] (not
/// an answer to this request: skipped). Another protocol version is [`DecodeError::Invalid`]:
/// the layout after it is unknown. A name length past the datagram is
/// [`DecodeError::Overrun`]; a missing terminator [`DecodeError::Truncated`]. Bytes after the
/// terminator are ignored (a later version may append fields).
pub fn decode_reply(datagram: &[u8], cookie: u64) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(datagram);
    if datagram.len() < 2 || r.u16_le()? != MAGIC {
        return Err(DecodeError::Mismatch("Satisfactory magic"));
    }
    if r.u8()? != SERVER_STATE_RESPONSE {
        return Err(DecodeError::Mismatch("Satisfactory message type"));
    }
    if r.u8()? != VERSION {
        return Err(DecodeError::Invalid("Satisfactory protocol version"));
    }
    if r.u64_le()? != cookie {
        return Err(DecodeError::Mismatch("Satisfactory cookie"));
    }
    let state = ServerState::from_code(r.u8()?);
    let net_cl = r.u32_le()?;
    let flags = r.u64_le()?;
    let count = r.u8()?;
    let mut substates = Vec::with_capacity(usize::from(count));
    for _ in 0..count {
        substates.push(SubState {
            id: r.u8()?,
            version: r.u16_le()?,
        });
    }
    let len = r.u16_le()?;
    if usize::from(len) > r.remaining() {
        return Err(DecodeError::Overrun {
            what: "server name length",
            value: len.into(),
            fits: r.remaining() as u64,
        });
    }
    let name = String::from_utf8_lossy(r.bytes(usize::from(len))?).into_owned();
    if r.u8()? != TERMINATOR {
        return Err(DecodeError::Invalid("Satisfactory terminator"));
    }
    Ok(Reply {
        cookie,
        state,
        net_cl,
        flags,
        substates,
        name,
    })
}

/// Writes a reply (server side).
pub fn encode_reply(reply: &Reply, out: &mut Vec<u8>) {
    out.extend_from_slice(&MAGIC.to_le_bytes());
    out.push(SERVER_STATE_RESPONSE);
    out.push(VERSION);
    out.extend_from_slice(&reply.cookie.to_le_bytes());
    out.push(reply.state.code());
    out.extend_from_slice(&reply.net_cl.to_le_bytes());
    out.extend_from_slice(&reply.flags.to_le_bytes());
    let subs = &reply.substates[..reply.substates.len().min(255)];
    out.push(subs.len() as u8);
    for s in subs {
        out.push(s.id);
        out.extend_from_slice(&s.version.to_le_bytes());
    }
    let name = reply.name.as_bytes();
    let name = &name[..name.len().min(usize::from(u16::MAX))];
    out.extend_from_slice(&(name.len() as u16).to_le_bytes());
    out.extend_from_slice(name);
    out.push(TERMINATOR);
}

/// Maps a reply onto [`Status`]: name, version (the build number), no counts (the query
/// carries none). The server state is always a rule (`server_state`: offline, idle, loading,
/// playing or unknown; `server_state_code`: the number), so `rules = ["server_state"]`
/// publishes it; with `detail` the flags and sub-states are extras too.
pub fn to_status(reply: &Reply, latency: Duration, detail: bool) -> Status {
    let mut out = Status {
        name: reply.name.clone(),
        version: Some(reply.net_cl.to_string()),
        latency,
        rules: Some(vec![
            ("server_state".into(), reply.state.as_str().into()),
            ("server_state_code".into(), reply.state.code().to_string()),
            ("modded".into(), u8::from(reply.flags & 1 != 0).to_string()),
        ]),
        ..Status::default()
    };
    if detail {
        let mut extras = Map::new();
        extras.insert("server_state".into(), json!(reply.state.as_str()));
        extras.insert("server_state_code".into(), json!(reply.state.code()));
        extras.insert("server_flags".into(), json!(reply.flags));
        extras.insert("modded".into(), json!(reply.flags & 1 != 0));
        let subs: Vec<_> = reply
            .substates
            .iter()
            .map(|s| json!({"id": s.id, "version": s.version}))
            .collect();
        extras.insert("substates".into(), json!(subs));
        out.extras = extras;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Reply {
        Reply {
            cookie: 0x0102_0304_0506_0708,
            state: ServerState::Playing,
            net_cl: 385_883,
            flags: 1,
            substates: vec![
                SubState { id: 0, version: 7 },
                SubState { id: 3, version: 2 },
            ],
            name: "Ficsit Factory".into(),
        }
    }

    /// The request byte for byte: what opengsq (`<HBBQb`) and gamedig send.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(0x0102_0304_0506_0708, &mut out);
        assert_eq!(out, [0xD5, 0xF6, 0, 1, 8, 7, 6, 5, 4, 3, 2, 1, 1]);
        assert_eq!(out.len(), REQUEST_LEN);
        assert_eq!(decode_request(&out), Ok(0x0102_0304_0506_0708));
        assert!(decode_request(&out[..12]).is_err());
    }

    /// The reply field by field.
    #[test]
    fn reply_layout() {
        let mut out = Vec::new();
        encode_reply(&sample(), &mut out);
        let mut want = vec![0xD5, 0xF6, 1, 1, 8, 7, 6, 5, 4, 3, 2, 1, 3];
        want.extend_from_slice(&385_883u32.to_le_bytes());
        want.extend_from_slice(&[1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 7, 0, 3, 2, 0, 14, 0]);
        want.extend_from_slice(b"Ficsit Factory");
        want.push(1);
        assert_eq!(out, want);
        assert_eq!(decode_reply(&out, sample().cookie), Ok(sample()));
    }

    /// Another cookie, magic or type is skipped; another version, a lying name length or a
    /// missing terminator fails.
    #[test]
    fn bad_replies() {
        let mut out = Vec::new();
        encode_reply(&sample(), &mut out);
        assert!(matches!(
            decode_reply(&out, 9),
            Err(DecodeError::Mismatch(_))
        ));
        let mut x = out.clone();
        x[0] = 0;
        assert!(matches!(
            decode_reply(&x, sample().cookie),
            Err(DecodeError::Mismatch(_))
        ));
        let mut x = out.clone();
        x[3] = 2;
        assert!(matches!(
            decode_reply(&x, sample().cookie),
            Err(DecodeError::Invalid(_))
        ));
        let name_at = out.len() - 1 - 14 - 2;
        let mut x = out.clone();
        x[name_at] = 200;
        assert!(matches!(
            decode_reply(&x, sample().cookie),
            Err(DecodeError::Overrun { .. })
        ));
        assert!(matches!(
            decode_reply(&out[..out.len() - 1], sample().cookie),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// Name, version and the state as a rule.
    #[test]
    fn status_mapping() {
        let s = to_status(&sample(), Duration::ZERO, true);
        assert_eq!(
            (s.name.as_str(), s.version.as_deref()),
            ("Ficsit Factory", Some("385883"))
        );
        assert_eq!((s.online, s.max, s.players.is_none()), (0, 0, true));
        let rules = s.rules.unwrap();
        assert_eq!(rules[0], ("server_state".into(), "playing".into()));
        assert_eq!(rules[1], ("server_state_code".into(), "3".into()));
        assert_eq!(s.extras["modded"], json!(true));
        assert_eq!(ServerState::from_code(9).as_str(), "unknown");
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes never panic; the cookie is taken from the input.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
            let cookie = bytes.get(4..12).map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
            let _ = decode_reply(&bytes, cookie);
            let _ = decode_request(&bytes);
        }

        /// Round trip.
        #[test]
        fn round_trip(cookie in any::<u64>(), state in 0u8..6, net_cl in any::<u32>(), flags in any::<u64>(),
                      subs in proptest::collection::vec((any::<u8>(), any::<u16>()), 0..20), name in "\\PC{0,60}") {
            let reply = Reply {
                cookie, state: ServerState::from_code(state), net_cl, flags,
                substates: subs.into_iter().map(|(id, version)| SubState { id, version }).collect(),
                name,
            };
            let mut out = Vec::new();
            encode_reply(&reply, &mut out);
            prop_assert_eq!(decode_reply(&out, cookie), Ok(reply));
        }
    }
}
