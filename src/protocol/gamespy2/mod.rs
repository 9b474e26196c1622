//! GameSpy 2 query (`FE FD 00`): Battlefield Vietnam, Battlefield 1942 (late patches), America's
//! Army 2, Unreal Tournament 2003, Halo, Painkiller, Serious Sam 2 and other games of 2003-2005.
//! See `docs/protocols/gamespy2.md`.
//!
//! # Format
//! ```text
//! request:  FE FD 00 | id (4 bytes) | info flag | players flag | teams flag   (FF = wanted)
//! reply:    00 | id (4 bytes, echoed)
//!           { key 00 value 00 } 00 00                       server info, empty key and value
//!           [count] { column 00 } 00 { value 00 ... } 00    players: player_, score_, ping_...
//!           [count] { column 00 } 00 { value 00 ... }       teams: team_t, score_t...
//! ```
//! One datagram, no challenge. The count byte before each table is the number of rows;
//! America's Army sometimes leaves it out, so a byte that reads as the start of a column name
//! is one ([`reply`]'s detection). A table's rows end at a row whose first value is empty, or
//! at the end of the datagram.
//!
//! # Driving a poll
//! [`exchange::Query`] is the one-request/one-reply codec the shared `OneShot` exchange runs
//! (replies to another request id are skipped); [`to_status`] maps the reply.

pub mod exchange;
mod map;
pub mod reply;
pub mod spec;

pub use map::{strip_colors, to_status, Want};
pub use reply::{decode_reply, encode_reply, Reply, Table, MAX_COLUMNS, MAX_ROWS, MAX_VARS};

use super::DecodeError;

/// The first three bytes of every request.
pub const REQUEST_MAGIC: [u8; 3] = [0xFE, 0xFD, 0x00];
/// Length of a request.
pub const REQUEST_LEN: usize = 10;

/// Which sections a request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sections {
    pub info: bool,
    pub players: bool,
    pub teams: bool,
}

impl Sections {
    /// Everything: `FF FF FF`, what qstat sends.
    pub const ALL: Sections = Sections {
        info: true,
        players: true,
        teams: true,
    };
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub id: [u8; 4],
    pub sections: Sections,
}

/// Writes a request: magic, id, and `FF` or `00` for info, players, teams.
pub fn encode_request(request: &Request, out: &mut Vec<u8>) {
    let flag = |b: bool| if b { 0xFF } else { 0x00 };
    out.extend_from_slice(&REQUEST_MAGIC);
    out.extend_from_slice(&request.id);
    let s = request.sections;
    out.extend_from_slice(&[flag(s.info), flag(s.players), flag(s.teams)]);
}

/// Decodes a request (server side): exactly [`REQUEST_LEN`] bytes starting with the magic; any
/// non-zero flag byte asks for its section.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    if datagram.len() != REQUEST_LEN {
        return Err(DecodeError::Invalid("GameSpy 2 request length"));
    }
    if datagram[..3] != REQUEST_MAGIC {
        return Err(DecodeError::Invalid("GameSpy 2 request magic"));
    }
    let mut id = [0u8; 4];
    id.copy_from_slice(&datagram[3..7]);
    Ok(Request {
        id,
        sections: Sections {
            info: datagram[7] != 0,
            players: datagram[8] != 0,
            teams: datagram[9] != 0,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The request, byte by byte, as qstat sends it for `-gs2 -P`.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        let r = Request {
            id: *b"\x04\x05\x06\x07",
            sections: Sections::ALL,
        };
        encode_request(&r, &mut out);
        assert_eq!(
            out,
            [
                0xFE, 0xFD, 0x00, // magic
                0x04, 0x05, 0x06, 0x07, // request id
                0xFF, 0xFF, 0xFF, // info, players, teams
            ]
        );
        assert_eq!(decode_request(&out), Ok(r));
        assert!(decode_request(&out[..9]).is_err());
        assert!(decode_request(b"\xfe\xfd\x01\x00\x00\x00\x00\xff\xff\xff").is_err());
    }

    proptest! {
        /// Every request round-trips; arbitrary bytes never panic the decoder.
        #[test]
        fn request_round_trip(id in any::<[u8; 4]>(), i in any::<bool>(), p in any::<bool>(), t in any::<bool>(),
                              noise in proptest::collection::vec(any::<u8>(), 0..16)) {
            let r = Request { id, sections: Sections { info: i, players: p, teams: t } };
            let mut out = Vec::new();
            encode_request(&r, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(r));
            let _ = decode_request(&noise);
        }
    }
}
