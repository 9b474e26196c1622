//! HexenWorld `status` (Hexen II's QuakeWorld-derived multiplayer server, `hwsv`): the
//! QuakeWorld reply (`protocol::quake1`) behind a fifth `FF` byte. See
//! `docs/protocols/hexen2.md`.
//!
//! # Format
//! ```text
//! request:  FF FF FF FF FF "status\n"
//! reply:    FF FF FF FF FF "n" infostring "\n" { userid frags time ping "name" "skin" top bottom "\n" } NUL
//! ```
//! Everything after the fifth `FF` is QuakeWorld's: the same infostring, player lines and
//! character set, read by [`quake1::decode_reply`] once the extra byte is taken out.

pub mod exchange;
pub mod spec;

use crate::protocol::quake1::{self, Reply};
use crate::protocol::quake2::OOB;
use crate::protocol::DecodeError;

/// HexenWorld's marker: QuakeWorld's four `FF` and one more.
pub const MARKER: [u8; 5] = [0xFF; 5];
/// What the reply starts with after the four-byte out-of-band marker (for the frame writer).
pub const HEADER: &[u8] = b"\xffn";

/// Writes the `status` request (what qstat `-hws` sends; gamedig adds a NUL, ignored).
pub fn encode_request(out: &mut Vec<u8>) {
    out.extend_from_slice(&MARKER);
    out.extend_from_slice(b"status\n");
}

/// Whether `datagram` is a HexenWorld `status` request (server side): the five `FF`, then
/// `status` ended by the datagram, a newline, a blank or a NUL.
pub fn is_request(datagram: &[u8]) -> bool {
    let Some(text) = datagram.strip_prefix(&MARKER) else {
        return false;
    };
    let word_len = text
        .iter()
        .position(|&b| b == b' ' || b == b'\n' || b == 0)
        .unwrap_or(text.len());
    text[..word_len].eq_ignore_ascii_case(b"status")
}

/// Decodes a HexenWorld reply: without the fifth `FF` (a QuakeWorld server's reply, someone
/// else's datagram) it is a [`DecodeError::Mismatch`]; the rest is
/// [`quake1::decode_reply`]'s, errors included.
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let Some(rest) = datagram.strip_prefix(&MARKER) else {
        return Err(DecodeError::Mismatch("HexenWorld out-of-band marker"));
    };
    let mut qw = Vec::with_capacity(OOB.len() + rest.len());
    qw.extend_from_slice(&OOB);
    qw.extend_from_slice(rest);
    quake1::decode_reply(&qw)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use proptest::prelude::*;

    use super::*;
    use crate::protocol::quake2::encode_frame;
    use crate::protocol::quake3::Want;

    /// The request, byte for byte.
    #[test]
    fn request_bytes() {
        let mut out = Vec::new();
        encode_request(&mut out);
        assert_eq!(out, b"\xff\xff\xff\xff\xffstatus\n");
        assert!(is_request(&out));
        assert!(is_request(b"\xff\xff\xff\xff\xffstatus\n\0")); // gamedig's
        assert!(!is_request(b"\xff\xff\xff\xffstatus\n")); // QuakeWorld's
        assert!(!is_request(b"\xff\xff\xff\xff\xffstatusx"));
    }

    /// A HexenWorld reply, field by field.
    #[test]
    fn reply_by_hand() {
        let mut d = b"\xff\xff\xff\xff\xffn".to_vec();
        d.extend_from_slice(b"\\hostname\\Hexen Arena\\map\\demo1\\maxclients\\8\\*version\\HW 0.15\\*gamedir\\hw\n");
        d.extend_from_slice(b"3 12 5 40 \"Paladin\" \"\" 2 3\n");
        d.extend_from_slice(b"4 -1 1 999 \"Necro\" \"\" 0 0\n");
        d.push(0);
        let r = decode_reply(&d).unwrap();
        assert_eq!(r.vars.get("hostname"), Some("Hexen Arena"));
        assert_eq!(r.total, 2);
        let p = &r.players[0];
        assert_eq!(
            (
                p.userid,
                p.frags,
                p.minutes,
                p.ping,
                p.name.as_str(),
                p.top,
                p.bottom
            ),
            (
                Some(3),
                Some(12),
                Some(5),
                Some(40),
                "Paladin",
                Some(2),
                Some(3)
            )
        );
        let want = Want {
            detail: true,
            players: true,
            rules: false,
        };
        let s = quake1::to_status(&r, want, Duration::ZERO);
        assert_eq!((s.online, s.max), (2, 8));
        assert_eq!(s.name, "Hexen Arena");
        assert_eq!(s.map.as_deref(), Some("demo1"));
    }

    /// A QuakeWorld reply (four `FF`) is someone else's; a cut reply is malformed.
    #[test]
    fn mismatch_and_cut() {
        let qw = b"\xff\xff\xff\xffn\\hostname\\x\n\0";
        assert_eq!(
            decode_reply(qw),
            Err(DecodeError::Mismatch("HexenWorld out-of-band marker"))
        );
        let cut = b"\xff\xff\xff\xff\xffn\\hostname\\x";
        assert!(matches!(
            decode_reply(cut),
            Err(DecodeError::Truncated { .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes behind the marker or not never panic the decoder.
        #[test]
        fn survives_noise(body in proptest::collection::vec(any::<u8>(), 0..200), marked in any::<bool>()) {
            let mut d = Vec::new();
            if marked {
                d.extend_from_slice(b"\xff\xff\xff\xff\xffn\\");
            }
            d.extend_from_slice(&body);
            let _ = decode_reply(&d);
        }

        /// What the frame writer writes with [`HEADER`] decodes to its variables.
        #[test]
        fn round_trip(name in "[a-zA-Z0-9 ]{1,16}", map in "[a-z0-9]{1,8}", max in 1u32..64) {
            let vars = vec![
                ("hostname".to_string(), name.clone()),
                ("map".to_string(), map.clone()),
                ("maxclients".to_string(), max.to_string()),
            ];
            let mut out = Vec::new();
            encode_frame(HEADER, &vars, b"", &mut out);
            out.push(0);
            let r = decode_reply(&out).unwrap();
            prop_assert_eq!(r.vars.get("hostname"), Some(name.as_str()));
            prop_assert_eq!(r.vars.get("map"), Some(map.as_str()));
            prop_assert_eq!(r.total, 0);
        }
    }
}
