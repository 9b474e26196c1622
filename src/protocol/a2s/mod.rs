//! Valve A2S (Source and GoldSrc server queries). What real servers do beyond the layouts
//! below (challenges since 2020, split and compressed replies, GoldSrc quirks) is written up
//! in `docs/protocols/a2s.md`.
//!
//! Every message here is a whole A2S message as it appears after any split reassembly: it
//! starts with the `FF FF FF FF` "simple response" header, then a type byte. `decode_*` take
//! such a message, `encode_*` append one to a buffer, for requests (what we send) and replies
//! (what the simulator sends) alike, so that `decode(encode(x)) == x` is testable.
//!
//! # Driving a poll
//! 1. Send [`encode_info_request`] (with the remembered challenge, if any).
//! 2. Feed every datagram to a [`split::Reassembler`]; each complete message goes to
//!    [`decode_reply`].
//! 3. [`Reply::Challenge`]: resend with those 4 bytes appended (bounded by the caller).
//!    [`Reply::Info`]: done.
//! 4. Optionally the same for [`encode_player_request`] / [`encode_rules_request`], whose
//!    challenge sits right after the type byte (`-1` asks for one).

mod crc32;
pub mod exchange;
pub mod health;
mod info;
mod players;
mod request;
mod rules;
pub mod spec;
pub mod split;

pub use info::{
    decode_info, encode_info, Engine, Environment, GoldSrcMod, Info, ServerType, SourceTv, TheShip,
    THE_SHIP_APP_ID,
};
pub use players::{decode_players, encode_players, Player};
pub use request::{
    decode_challenge, decode_ping, decode_request, encode_challenge, encode_info_request,
    encode_ping, encode_ping_request, encode_player_request, encode_rules_request, Query,
    INFO_PAYLOAD, NO_CHALLENGE,
};
pub use rules::{decode_rules, encode_rules};

use super::{DecodeError, Reader};

/// The 4-byte header of an unsplit datagram (`-1`).
pub const SINGLE_HEADER: [u8; 4] = [0xFF; 4];
/// The 4-byte header of a split fragment (`-2`).
pub const SPLIT_HEADER: [u8; 4] = [0xFE, 0xFF, 0xFF, 0xFF];

/// Type bytes, after the header.
pub mod kind {
    pub const INFO_REQUEST: u8 = b'T';
    pub const PLAYER_REQUEST: u8 = b'U';
    pub const RULES_REQUEST: u8 = b'V';
    pub const GET_CHALLENGE: u8 = b'W';
    pub const PING_REQUEST: u8 = b'i';
    pub const INFO_SOURCE: u8 = b'I';
    pub const INFO_GOLDSRC: u8 = b'm';
    pub const CHALLENGE: u8 = b'A';
    pub const PLAYERS: u8 = b'D';
    pub const RULES: u8 = b'E';
    pub const PING_REPLY: u8 = b'j';
}

/// Any reply a server may send, after reassembly.
///
/// The info variant is not boxed although it is the largest: a reply is decoded, matched and
/// taken apart at once, never stored, and the box cost one allocation on every poll.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Info(Info),
    /// `A`: resend the request with these 4 bytes.
    Challenge([u8; 4]),
    Players(Vec<Player>),
    Rules(Vec<(String, String)>),
    /// `j`: the payload string (`""` from GoldSrc, `"00000000000000"` from Source).
    Ping(String),
}

/// Decodes any reply by its type byte.
pub fn decode_reply(msg: &[u8]) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(msg);
    let kind = open(&mut r)?;
    Ok(match kind {
        kind::INFO_SOURCE | kind::INFO_GOLDSRC => Reply::Info(decode_info(msg)?),
        kind::CHALLENGE => Reply::Challenge(decode_challenge(msg)?),
        kind::PLAYERS => Reply::Players(decode_players(msg)?),
        kind::RULES => Reply::Rules(decode_rules(msg)?),
        kind::PING_REPLY => Reply::Ping(decode_ping(msg)?),
        other => {
            return Err(DecodeError::UnexpectedType {
                what: "reply type",
                found: other.into(),
            })
        }
    })
}

/// Reads the `-1` header and returns the type byte.
fn open(r: &mut Reader<'_>) -> Result<u8, DecodeError> {
    let header = r.array::<4>()?;
    if header != SINGLE_HEADER {
        return Err(DecodeError::UnexpectedType {
            what: "message header",
            found: u32::from_le_bytes(header),
        });
    }
    r.u8()
}

/// Reads the header and insists on one type byte.
fn expect(r: &mut Reader<'_>, want: u8, what: &'static str) -> Result<(), DecodeError> {
    let found = open(r)?;
    if found != want {
        return Err(DecodeError::UnexpectedType {
            what,
            found: found.into(),
        });
    }
    Ok(())
}

/// Writes a string NUL-terminated. A NUL inside would end it early on the wire, so it is cut
/// there: what we write is exactly what a decoder reads back.
fn put_cstr(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    out.extend_from_slice(&bytes[..end]);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Replies dispatch on their type byte; an unknown type is an error naming it.
    #[test]
    fn dispatch() {
        assert_eq!(
            decode_reply(&[0xFF, 0xFF, 0xFF, 0xFF, 0x41, 0x32, 0x42, 0x59, 0x45]),
            Ok(Reply::Challenge([0x32, 0x42, 0x59, 0x45]))
        );
        assert_eq!(
            decode_reply(&[0xFF, 0xFF, 0xFF, 0xFF, 0x6A, 0x00]),
            Ok(Reply::Ping(String::new()))
        );
        assert_eq!(
            decode_reply(&[0xFF, 0xFF, 0xFF, 0xFF, b'Z']),
            Err(DecodeError::UnexpectedType {
                what: "reply type",
                found: u32::from(b'Z')
            })
        );
        assert!(matches!(
            decode_reply(&[0xFE, 0xFF, 0xFF, 0xFF, b'I']),
            Err(DecodeError::UnexpectedType {
                what: "message header",
                ..
            })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Arbitrary bytes after a valid header never panic any decoder.
        #[test]
        fn arbitrary_replies_never_panic(kind in any::<u8>(), body in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut msg = SINGLE_HEADER.to_vec();
            msg.push(kind);
            msg.extend_from_slice(&body);
            let _ = decode_reply(&msg);
            let _ = decode_info(&msg);
            let _ = decode_players(&msg);
            let _ = decode_rules(&msg);
            let _ = decode_request(&msg);
        }

        /// Completely arbitrary bytes never panic the dispatcher.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_reply(&bytes);
            let _ = decode_request(&bytes);
        }
    }
}
