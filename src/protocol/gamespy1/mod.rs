//! GameSpy 1 query (`\status\`): Unreal Tournament (99, 2003/4 on its GameSpy port), Battlefield
//! 1942 and Vietnam, Halo, Medal of Honor, netPanzer and many other games of that era. See
//! `docs/protocols/gamespy1.md`.
//!
//! # Format
//! ```text
//! request:  "\status\"   (or "\basic\", "\info\", "\rules\", "\players\")
//! reply:    one or more datagrams of "\" key "\" value pairs, for example
//!           \hostname\My Server\mapname\DM-Deck16\numplayers\1\maxplayers\8
//!           \player_0\alice\frags_0\3\ping_0\50\final\\queryid\44.1
//! ```
//! `\queryid\<id>.<n>` numbers the datagrams of one reply from 1, `\final\` (with an empty
//! value) marks the last one; either may come before the other. Datagrams may arrive out of
//! order or twice. netPanzer sends one datagram with no `\queryid\` and without the leading
//! backslash. Text is UTF-8 when it is valid UTF-8, Latin-1 otherwise.
//!
//! # Driving a poll
//! [`exchange::Gamespy1`] is the dialogue on the shared exchange trait: one `\status\`, the
//! parts collected into a [`Reply`], which [`to_status`] maps to the shared status.

pub mod exchange;
mod map;
mod packet;
mod reply;
pub mod spec;

pub use map::{to_status, Want};
pub use packet::{decode_packet, encode_packet, encode_reply, text, Packet, QueryId, Style};
pub use reply::{decode_reply, PlayerEntry, Reply, MAX_PLAYERS};

use super::DecodeError;

/// The most datagrams one reply may have; UT2004 with many rules and 32 players sends about 10.
pub const MAX_PARTS: usize = 64;
/// The most bytes one reply may have, all datagrams together.
pub const MAX_REPLY_BYTES: usize = 64 * 1024;
/// The most key/value pairs one reply may have.
pub const MAX_PAIRS: usize = 4096;

/// The queries a GameSpy 1 server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Query {
    /// Everything: basic, info, rules and players together.
    Status,
    /// Game name, version and location.
    Basic,
    /// Name, map, game type, player counts.
    Info,
    /// Server settings.
    Rules,
    /// The indexed player fields.
    Players,
}

impl Query {
    pub const ALL: [Query; 5] = [
        Query::Status,
        Query::Basic,
        Query::Info,
        Query::Rules,
        Query::Players,
    ];

    pub fn word(self) -> &'static str {
        match self {
            Query::Status => "status",
            Query::Basic => "basic",
            Query::Info => "info",
            Query::Rules => "rules",
            Query::Players => "players",
        }
    }
}

/// Writes a request: the word between backslashes, `\status\`.
pub fn encode_request(query: Query, out: &mut Vec<u8>) {
    out.push(b'\\');
    out.extend_from_slice(query.word().as_bytes());
    out.push(b'\\');
}

/// Decodes a request (server side): every known word between backslashes, in order, as
/// Unreal answers `\info\\rules\` with both. Unknown words are skipped; none known is an error.
pub fn decode_request(datagram: &[u8]) -> Result<Vec<Query>, DecodeError> {
    let words: Vec<Query> = datagram
        .split(|&b| b == b'\\' || b == 0 || b == b'\n')
        .filter_map(|w| Query::ALL.into_iter().find(|q| q.word().as_bytes() == w))
        .take(Query::ALL.len())
        .collect();
    if words.is_empty() {
        return Err(DecodeError::Invalid("GameSpy 1 query word"));
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The request is the word between two backslashes, as every client sends it.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(Query::Status, &mut out);
        assert_eq!(out, b"\\status\\");
        out.clear();
        encode_request(Query::Players, &mut out);
        assert_eq!(out, b"\\players\\");
    }

    /// The simulator reads back every word, and combined requests in order.
    #[test]
    fn request_decoding() {
        for q in Query::ALL {
            let mut out = Vec::new();
            encode_request(q, &mut out);
            assert_eq!(decode_request(&out), Ok(vec![q]));
        }
        assert_eq!(
            decode_request(b"\\info\\\\rules\\"),
            Ok(vec![Query::Info, Query::Rules])
        );
        assert_eq!(decode_request(b"\\echo\\status"), Ok(vec![Query::Status]));
        assert!(decode_request(b"\\secure\\abc").is_err());
        assert!(decode_request(b"").is_err());
    }

    proptest! {
        /// Arbitrary bytes never panic the request decoder, and never yield more words than
        /// there are queries.
        #[test]
        fn request_decoder_survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(words) = decode_request(&bytes) {
                prop_assert!(!words.is_empty() && words.len() <= Query::ALL.len());
            }
        }
    }
}
