//! Mumble's UDP ping: the unauthenticated status query every Mumble server answers
//! (`docs/protocols/mumble.md`).
//!
//! # Format
//! ```text
//! request (12 bytes):  0u32 | ident (8 bytes)
//! reply   (24 bytes):  version u32 | ident (8, echoed) | users u32 | max users u32
//!                      | bandwidth u32 (bits per second)
//! ```
//! Every integer is big-endian. The version is the "legacy" packed form, `major << 16 |
//! minor << 8 | patch`: on the wire `00 01 03 04` for 1.3.4 (major has 16 bits; real versions
//! put 0 in the first byte).
//!
//! Murmur 1.3.4 (Debian's `mumble-server`) answers only a datagram of exactly 12 bytes whose
//! first word is 0, and echoes the 8 ident bytes whatever they are; any other length or a
//! non-zero first word gets no answer at all. The protocol carries no server name.

use std::time::Duration;

pub mod exchange;
pub mod spec;

use serde_json::{json, Map};

use super::{DecodeError, Reader};
use crate::decimal::push_u64;
use crate::status::Status;

/// Length of a ping request; servers ignore any other length.
pub const REQUEST_LEN: usize = 12;
/// Length of a ping reply.
pub const REPLY_LEN: usize = 24;

/// A server version as the ping reply packs it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u16,
    pub minor: u8,
    pub patch: u8,
}

impl Version {
    pub fn from_u32(v: u32) -> Version {
        Version {
            major: (v >> 16) as u16,
            minor: (v >> 8) as u8,
            patch: v as u8,
        }
    }

    pub fn to_u32(self) -> u32 {
        u32::from(self.major) << 16 | u32::from(self.minor) << 8 | u32::from(self.patch)
    }
}

impl Version {
    /// `major.minor.patch`, written digit by digit: the status takes it on every poll, and
    /// `to_string` through the formatter cost Mumble's poll more than its decoder.
    pub fn text(self) -> String {
        let mut out = String::with_capacity(11);
        push_u64(&mut out, u64::from(self.major));
        out.push('.');
        push_u64(&mut out, u64::from(self.minor));
        out.push('.');
        push_u64(&mut out, u64::from(self.patch));
        out
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// A ping reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pong {
    pub version: Version,
    pub ident: [u8; 8],
    /// Users connected, as the server counts them.
    pub users: u32,
    /// The server's `users` setting.
    pub max_users: u32,
    /// The server's `bandwidth` setting: the most a client may send, in bits per second.
    pub bandwidth: u32,
}

/// Writes a ping request carrying `ident`, which the reply must echo.
pub fn encode_ping(ident: [u8; 8], out: &mut Vec<u8>) {
    out.extend_from_slice(&0u32.to_be_bytes());
    out.extend_from_slice(&ident);
}

/// Decodes a ping request (server side): exactly 12 bytes, first word 0, as Murmur demands.
pub fn decode_ping(datagram: &[u8]) -> Result<[u8; 8], DecodeError> {
    if datagram.len() != REQUEST_LEN {
        return Err(DecodeError::Invalid("Mumble ping length"));
    }
    let mut r = Reader::new(datagram);
    if r.u32_be()? != 0 {
        return Err(DecodeError::Invalid("Mumble ping type"));
    }
    r.array()
}

/// Decodes a ping reply and checks that it echoes `ident`.
///
/// A reply shorter than 24 bytes is truncated (malformed); another ident is a mismatch (the
/// caller may keep waiting for ours). Bytes after the 24th are ignored: no server sends them
/// today, and a later extension should not turn a working server into a down one.
pub fn decode_pong(datagram: &[u8], ident: [u8; 8]) -> Result<Pong, DecodeError> {
    let mut r = Reader::new(datagram);
    let version = Version::from_u32(r.u32_be()?);
    let echoed = r.array::<8>()?;
    let users = r.u32_be()?;
    let max_users = r.u32_be()?;
    let bandwidth = r.u32_be()?;
    if echoed != ident {
        return Err(DecodeError::Mismatch("Mumble ping ident"));
    }
    Ok(Pong {
        version,
        ident: echoed,
        users,
        max_users,
        bandwidth,
    })
}

/// Writes a ping reply (server side).
pub fn encode_pong(pong: &Pong, out: &mut Vec<u8>) {
    out.extend_from_slice(&pong.version.to_u32().to_be_bytes());
    out.extend_from_slice(&pong.ident);
    out.extend_from_slice(&pong.users.to_be_bytes());
    out.extend_from_slice(&pong.max_users.to_be_bytes());
    out.extend_from_slice(&pong.bandwidth.to_be_bytes());
}

/// Normalizes a reply. The protocol has no server name, map or game: they stay empty rather
/// than invented. Counts are published as the server reports them, even when users exceed
/// the maximum (an operator can lower `users` below the connected count). `latency` is the
/// ping's round trip. Extras only with `detail`: the daemon never reads them.
pub fn to_status(pong: &Pong, latency: Duration, detail: bool) -> Status {
    let mut extras = Map::new();
    if detail {
        extras.insert("bandwidth".into(), json!(pong.bandwidth));
    }
    Status {
        online: pong.users,
        max: pong.max_users,
        version: Some(pong.version.text()),
        latency,
        extras,
        ..Status::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const IDENT: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

    /// The request is a zero word and the ident: 12 bytes.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_ping(IDENT, &mut out);
        assert_eq!(
            out,
            [
                0, 0, 0, 0, // request type: ping
                1, 2, 3, 4, 5, 6, 7, 8, // ident
            ]
        );
        assert_eq!(out.len(), REQUEST_LEN);
        assert_eq!(decode_ping(&out), Ok(IDENT));
    }

    /// Requests Murmur ignores, the simulator refuses too.
    #[test]
    fn odd_requests_refused() {
        assert!(decode_ping(&[0; 11]).is_err());
        assert!(decode_ping(&[0; 13]).is_err());
        assert!(decode_ping(&[0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]).is_err());
    }

    /// The reply captured from Murmur 1.3.4 (Debian `mumble-server` 1.3.4-4) started with
    /// `users=42` and `bandwidth=72000`, to the 12-byte ping with ident 01..08.
    const MURMUR_1_3_4: [u8; 24] = [
        0x00, 0x01, 0x03, 0x04, // version 1.3.4
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, // ident echoed
        0x00, 0x00, 0x00, 0x00, // users connected: 0
        0x00, 0x00, 0x00, 0x2a, // max users: 42 (the ini's `users`)
        0x00, 0x01, 0x19, 0x40, // bandwidth: 72000 bit/s (the ini's `bandwidth`)
    ];

    #[test]
    fn captured_murmur_reply() {
        let pong = decode_pong(&MURMUR_1_3_4, IDENT).unwrap();
        assert_eq!(
            pong,
            Pong {
                version: Version {
                    major: 1,
                    minor: 3,
                    patch: 4
                },
                ident: IDENT,
                users: 0,
                max_users: 42,
                bandwidth: 72_000,
            }
        );
        let s = to_status(&pong, Duration::from_millis(3), true);
        assert_eq!((s.online, s.max), (0, 42));
        assert_eq!(s.name, "");
        assert_eq!((s.map, s.game), (None, None));
        assert_eq!(s.version.as_deref(), Some("1.3.4"));
        assert_eq!(s.latency, Duration::from_millis(3));
        assert_eq!(s.extras["bandwidth"], json!(72_000));
        // Without detail, no extras.
        assert!(to_status(&pong, Duration::ZERO, false).extras.is_empty());
        // The encoder writes the same bytes back.
        let mut out = Vec::new();
        encode_pong(&pong, &mut out);
        assert_eq!(out, MURMUR_1_3_4);
    }

    /// Cut after every field (and inside each): truncated, never a panic.
    #[test]
    fn every_cut_is_truncated() {
        for n in 0..REPLY_LEN {
            assert!(
                matches!(
                    decode_pong(&MURMUR_1_3_4[..n], IDENT),
                    Err(DecodeError::Truncated { .. })
                ),
                "{n}"
            );
        }
    }

    /// Another ident is a mismatch; trailing bytes are ignored.
    #[test]
    fn ident_and_trailing_bytes() {
        assert_eq!(
            decode_pong(&MURMUR_1_3_4, [9; 8]),
            Err(DecodeError::Mismatch("Mumble ping ident"))
        );
        let mut longer = MURMUR_1_3_4.to_vec();
        longer.extend_from_slice(&[0xff; 8]);
        assert_eq!(decode_pong(&longer, IDENT).unwrap().max_users, 42);
    }

    /// The version's text is the formatter's, digit for digit.
    #[test]
    fn version_text() {
        for v in [
            0,
            0x0001_0304,
            0x0102_0304,
            0x000a_0b0c,
            u32::MAX,
            0x0001_0500,
        ] {
            let v = Version::from_u32(v);
            assert_eq!(v.text(), v.to_string());
        }
        assert_eq!(Version::from_u32(u32::MAX).text(), "65535.255.255");
    }

    /// A 16-bit major and the largest minor and patch survive the packing.
    #[test]
    fn version_packing() {
        let v = Version::from_u32(0x0102_0304);
        assert_eq!(
            v,
            Version {
                major: 0x0102,
                minor: 3,
                patch: 4
            }
        );
        assert_eq!(v.to_string(), "258.3.4");
        assert_eq!(v.to_u32(), 0x0102_0304);
    }

    /// Counts a server lies about are passed on as told, without overflow.
    #[test]
    fn lying_counts_pass_through() {
        let pong = Pong {
            users: u32::MAX,
            max_users: 1,
            ..Pong::default()
        };
        let s = to_status(&pong, Duration::ZERO, false);
        assert_eq!((s.online, s.max), (u32::MAX, 1));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic either decoder; what decodes was at least 24 bytes.
        #[test]
        fn decoders_survive_noise(bytes in proptest::collection::vec(any::<u8>(), 0..64), ident in any::<[u8; 8]>()) {
            if decode_pong(&bytes, ident).is_ok() {
                prop_assert!(bytes.len() >= REPLY_LEN);
            }
            if decode_ping(&bytes).is_ok() {
                prop_assert_eq!(bytes.len(), REQUEST_LEN);
            }
        }

        /// decode_pong(encode_pong(x)) == x, and the encoding is exactly 24 bytes.
        #[test]
        fn pong_round_trip(v in any::<u32>(), ident in any::<[u8; 8]>(), users in any::<u32>(), max_users in any::<u32>(), bandwidth in any::<u32>()) {
            let pong = Pong { version: Version::from_u32(v), ident, users, max_users, bandwidth };
            let mut out = Vec::new();
            encode_pong(&pong, &mut out);
            prop_assert_eq!(out.len(), REPLY_LEN);
            prop_assert_eq!(decode_pong(&out, ident), Ok(pong));
        }

        /// Any ident round-trips through the request.
        #[test]
        fn ping_round_trip(ident in any::<[u8; 8]>()) {
            let mut out = Vec::new();
            encode_ping(ident, &mut out);
            prop_assert_eq!(decode_ping(&out), Ok(ident));
        }
    }
}
