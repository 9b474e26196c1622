//! Requests (`T`, `U`, `V`, `W`, `i`) and the two tiny replies that go with them: the
//! challenge `A` and the ping reply `j`.
//!
//! # Format
//! ```text
//! A2S_INFO    FF FF FF FF 54 "Source Engine Query\0" [challenge: 4 bytes, since Dec 2020]
//! A2S_PLAYER  FF FF FF FF 55 challenge: 4 bytes (FF FF FF FF asks for one)
//! A2S_RULES   FF FF FF FF 56 challenge: 4 bytes
//! GETCHALLENGE FF FF FF FF 57
//! A2A_PING    FF FF FF FF 69
//! challenge   FF FF FF FF 41 challenge: 4 bytes
//! ping reply  FF FF FF FF 6A string ("" GoldSrc, "00000000000000" Source)
//! ```

use super::{expect, kind, open, put_cstr, DecodeError, Reader, SINGLE_HEADER};

/// The payload string of A2S_INFO.
pub const INFO_PAYLOAD: &str = "Source Engine Query";
/// The challenge that asks the server to issue one (`-1`).
pub const NO_CHALLENGE: [u8; 4] = [0xFF; 4];

/// A request as the server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Query {
    Info { challenge: Option<[u8; 4]> },
    Players { challenge: [u8; 4] },
    Rules { challenge: [u8; 4] },
    GetChallenge,
    Ping,
}

pub fn encode_info_request(challenge: Option<[u8; 4]>, out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::INFO_REQUEST);
    put_cstr(out, INFO_PAYLOAD);
    if let Some(c) = challenge {
        out.extend_from_slice(&c);
    }
}

pub fn encode_player_request(challenge: [u8; 4], out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::PLAYER_REQUEST);
    out.extend_from_slice(&challenge);
}

pub fn encode_rules_request(challenge: [u8; 4], out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::RULES_REQUEST);
    out.extend_from_slice(&challenge);
}

pub fn encode_ping_request(out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::PING_REQUEST);
}

/// Decodes a request (server side). Unknown types are errors; trailing bytes after a
/// complete request are ignored, as real servers do.
pub fn decode_request(msg: &[u8]) -> Result<Query, DecodeError> {
    let mut r = Reader::new(msg);
    match open(&mut r)? {
        kind::INFO_REQUEST => {
            if r.cstr()? != INFO_PAYLOAD.as_bytes() {
                return Err(DecodeError::Invalid("A2S_INFO payload"));
            }
            let challenge = if r.remaining() >= 4 {
                Some(r.array()?)
            } else {
                None
            };
            Ok(Query::Info { challenge })
        }
        kind::PLAYER_REQUEST => Ok(Query::Players {
            challenge: r.array()?,
        }),
        kind::RULES_REQUEST => Ok(Query::Rules {
            challenge: r.array()?,
        }),
        kind::GET_CHALLENGE => Ok(Query::GetChallenge),
        kind::PING_REQUEST => Ok(Query::Ping),
        other => Err(DecodeError::UnexpectedType {
            what: "request type",
            found: other.into(),
        }),
    }
}

pub fn encode_challenge(challenge: [u8; 4], out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::CHALLENGE);
    out.extend_from_slice(&challenge);
}

pub fn decode_challenge(msg: &[u8]) -> Result<[u8; 4], DecodeError> {
    let mut r = Reader::new(msg);
    expect(&mut r, kind::CHALLENGE, "challenge type")?;
    r.array()
}

/// The ping reply: `j` and a string.
pub fn encode_ping(payload: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&SINGLE_HEADER);
    out.push(kind::PING_REPLY);
    put_cstr(out, payload);
}

pub fn decode_ping(msg: &[u8]) -> Result<String, DecodeError> {
    let mut r = Reader::new(msg);
    expect(&mut r, kind::PING_REPLY, "ping reply type")?;
    r.cstring()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
        let mut v = Vec::new();
        f(&mut v);
        v
    }

    /// The A2S_INFO request is byte for byte the document's dump.
    #[test]
    fn info_request_dump() {
        let dump = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x54, 0x53, 0x6F, 0x75, 0x72, 0x63, 0x65, 0x20, 0x45, 0x6E,
            0x67, 0x69, 0x6E, 0x65, 0x20, 0x51, 0x75, 0x65, 0x72, 0x79, 0x00,
        ];
        assert_eq!(bytes(|o| encode_info_request(None, o)), dump);
        assert_eq!(decode_request(&dump), Ok(Query::Info { challenge: None }));
    }

    /// With a challenge, its 4 bytes follow the payload's NUL.
    #[test]
    fn info_request_with_challenge() {
        let b = bytes(|o| encode_info_request(Some([1, 2, 3, 4]), o));
        assert_eq!(b.len(), 25 + 4);
        assert_eq!(&b[25..], &[1, 2, 3, 4]);
        assert_eq!(
            decode_request(&b),
            Ok(Query::Info {
                challenge: Some([1, 2, 3, 4])
            })
        );
    }

    /// A2S_PLAYER / A2S_RULES put the challenge right after the type; -1 asks for one.
    #[test]
    fn player_rules_requests() {
        assert_eq!(
            bytes(|o| encode_player_request(NO_CHALLENGE, o)),
            [0xFF, 0xFF, 0xFF, 0xFF, 0x55, 0xFF, 0xFF, 0xFF, 0xFF]
        );
        assert_eq!(
            bytes(|o| encode_rules_request([0x32, 0x42, 0x59, 0x45], o)),
            [0xFF, 0xFF, 0xFF, 0xFF, 0x56, 0x32, 0x42, 0x59, 0x45]
        );
        assert_eq!(
            decode_request(&[0xFF, 0xFF, 0xFF, 0xFF, 0x55, 9, 8, 7, 6]),
            Ok(Query::Players {
                challenge: [9, 8, 7, 6]
            })
        );
    }

    /// The GETCHALLENGE and A2A_PING requests are the dumps `FF FF FF FF 57` / `.. 69`.
    #[test]
    fn getchallenge_and_ping_requests() {
        assert_eq!(
            decode_request(&[0xFF, 0xFF, 0xFF, 0xFF, 0x57]),
            Ok(Query::GetChallenge)
        );
        assert_eq!(bytes(encode_ping_request), [0xFF, 0xFF, 0xFF, 0xFF, 0x69]);
        assert_eq!(
            decode_request(&[0xFF, 0xFF, 0xFF, 0xFF, 0x69]),
            Ok(Query::Ping)
        );
    }

    /// The document's challenge reply `FF FF FF FF 41 32 42 59 45`.
    #[test]
    fn challenge_reply_dump() {
        let dump = [0xFF, 0xFF, 0xFF, 0xFF, 0x41, 0x32, 0x42, 0x59, 0x45];
        assert_eq!(decode_challenge(&dump), Ok([0x32, 0x42, 0x59, 0x45]));
        assert_eq!(
            bytes(|o| encode_challenge([0x32, 0x42, 0x59, 0x45], o)),
            dump
        );
        assert!(matches!(
            decode_challenge(&dump[..8]),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// Both ping reply dumps: GoldSrc's empty string and Source's fourteen zeros.
    #[test]
    fn ping_reply_dumps() {
        assert_eq!(
            decode_ping(&[0xFF, 0xFF, 0xFF, 0xFF, 0x6A, 0x00]).as_deref(),
            Ok("")
        );
        let source = [
            0xFF, 0xFF, 0xFF, 0xFF, 0x6A, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30,
            0x30, 0x30, 0x30, 0x30, 0x30, 0x00,
        ];
        assert_eq!(decode_ping(&source).as_deref(), Ok("00000000000000"));
        assert_eq!(bytes(|o| encode_ping("00000000000000", o)), source);
    }

    /// A wrong payload string is not an A2S_INFO request.
    #[test]
    fn bad_info_payload() {
        let mut b = SINGLE_HEADER.to_vec();
        b.push(b'T');
        b.extend_from_slice(b"Source Engine Querx\0");
        assert_eq!(
            decode_request(&b),
            Err(DecodeError::Invalid("A2S_INFO payload"))
        );
    }

    proptest! {
        /// Every request decodes back to itself.
        #[test]
        fn request_round_trip(c in any::<[u8; 4]>(), which in 0u8..5, with in any::<bool>()) {
            let (q, b) = match which {
                0 => (Query::Info { challenge: with.then_some(c) }, bytes(|o| encode_info_request(with.then_some(c), o))),
                1 => (Query::Players { challenge: c }, bytes(|o| encode_player_request(c, o))),
                2 => (Query::Rules { challenge: c }, bytes(|o| encode_rules_request(c, o))),
                3 => (Query::Ping, bytes(encode_ping_request)),
                _ => (Query::GetChallenge, vec![0xFF, 0xFF, 0xFF, 0xFF, 0x57]),
            };
            prop_assert_eq!(decode_request(&b), Ok(q));
        }

        /// Challenge and ping replies round-trip.
        #[test]
        fn reply_round_trip(c in any::<[u8; 4]>(), s in "[^\0]{0,40}") {
            prop_assert_eq!(decode_challenge(&bytes(|o| encode_challenge(c, o))), Ok(c));
            prop_assert_eq!(decode_ping(&bytes(|o| encode_ping(&s, o))), Ok(s));
        }
    }
}
