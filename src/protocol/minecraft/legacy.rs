//! Legacy server list ping (1.6 `FE 01 FA`, 1.4-1.5 `FE 01`, beta 1.8-1.3 `FE`).
//!
//! # Format
//! ```text
//! 1.6 ping:  FE 01 FA | u16 11 | "MC|PingHost" UTF-16BE | u16 7+2*len(host)
//!            | u8 protocol | u16 len(host) | host UTF-16BE | i32 port      (all big-endian)
//! 1.4 ping:  FE 01
//! beta ping: FE
//! reply:     FF | u16 length in UTF-16 code units | UTF-16BE text
//!            text = "§1\0" proto "\0" version "\0" motd "\0" online "\0" max    (1.4+)
//!                 | motd "§" online "§" max                                     (before 1.4)
//! ```

use crate::protocol::{DecodeError, Reader};

/// The protocol byte in the 1.6 ping. The document's words say 74, its dump says `0x49` (73,
/// 1.6.1); the dump wins. Servers answer whatever the number.
pub const PING_16_PROTOCOL: u8 = 0x49;

/// Which legacy ping was sent (and answered).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// `FE 01 FA ...` with MC|PingHost (1.6).
    V16,
    /// `FE 01` (1.4-1.5).
    V14,
    /// `FE` (beta 1.8-1.3).
    Beta,
}

impl Variant {
    /// Most to least capable: the order to try them in.
    pub const FALLBACK_ORDER: [Variant; 3] = [Variant::V16, Variant::V14, Variant::Beta];

    pub fn as_str(self) -> &'static str {
        match self {
            Variant::V16 => "1.6",
            Variant::V14 => "1.4",
            Variant::Beta => "beta",
        }
    }
}

/// Appends the ping for `variant`. `host` and `port` only go into the 1.6 form.
pub fn encode_ping(variant: Variant, host: &str, port: u16, out: &mut Vec<u8>) {
    match variant {
        Variant::Beta => out.push(0xfe),
        Variant::V14 => out.extend_from_slice(&[0xfe, 0x01]),
        Variant::V16 => {
            out.extend_from_slice(&[0xfe, 0x01, 0xfa]);
            put_utf16_string("MC|PingHost", out);
            // Longer names cannot be announced in the u16 length; vanilla caps names far lower.
            let host_units: Vec<u16> = host.encode_utf16().take(8000).collect();
            let rest = 7 + 2 * host_units.len();
            out.extend_from_slice(&(rest as u16).to_be_bytes());
            out.push(PING_16_PROTOCOL);
            out.extend_from_slice(&(host_units.len() as u16).to_be_bytes());
            for u in host_units {
                out.extend_from_slice(&u.to_be_bytes());
            }
            out.extend_from_slice(&i32::from(port).to_be_bytes());
        }
    }
}

fn put_utf16_string(s: &str, out: &mut Vec<u8>) {
    let units: Vec<u16> = s.encode_utf16().collect();
    out.extend_from_slice(&(units.len() as u16).to_be_bytes());
    for u in units {
        out.extend_from_slice(&u.to_be_bytes());
    }
}

/// What a legacy server says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LegacyStatus {
    /// Protocol and version name: only in the 1.4+ (`§1`) format.
    pub protocol: Option<i32>,
    pub version: Option<String>,
    /// The MOTD as sent, `§` codes included.
    pub motd: String,
    pub online: u32,
    pub max: u32,
}

/// Decodes an `FF` kick reply at the start of `buf`.
///
/// # Returns
/// `Ok(None)` until the announced number of characters has arrived (a server closing early
/// then shows up as an incomplete read), `Ok(Some((status, bytes used)))` once it has; bytes
/// after it are left alone (the server closes after the reply anyway).
pub fn decode_kick(buf: &[u8]) -> Result<Option<(LegacyStatus, usize)>, DecodeError> {
    let Some(&first) = buf.first() else {
        return Ok(None);
    };
    if first != 0xff {
        return Err(DecodeError::UnexpectedType {
            what: "legacy kick packet id",
            found: u32::from(first),
        });
    }
    let Some(len) = buf.get(1..3) else {
        return Ok(None);
    };
    let units = usize::from(u16::from_be_bytes([len[0], len[1]]));
    let used = 3 + 2 * units;
    let Some(text) = buf.get(3..used) else {
        return Ok(None);
    };
    let text = decode_utf16be(text);
    Ok(Some((parse_kick_text(&text)?, used)))
}

fn decode_utf16be(bytes: &[u8]) -> String {
    let units = bytes
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]));
    char::decode_utf16(units)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// Parses the kick text in either format.
pub fn parse_kick_text(text: &str) -> Result<LegacyStatus, DecodeError> {
    if let Some(rest) = text.strip_prefix("§1\0") {
        let fields: Vec<&str> = rest.split('\0').collect();
        let [protocol, version, motd, online, max] = fields[..] else {
            return Err(DecodeError::Invalid(
                "legacy reply: expected 5 NUL-separated fields",
            ));
        };
        return Ok(LegacyStatus {
            protocol: Some(
                protocol
                    .trim()
                    .parse()
                    .map_err(|_| DecodeError::Invalid("legacy reply: protocol not a number"))?,
            ),
            version: Some(version.to_string()),
            motd: motd.to_string(),
            online: parse_count(online)?,
            max: parse_count(max)?,
        });
    }
    // Before 1.4: split from the right, because the MOTD itself may contain `§`.
    let mut parts = text.rsplitn(3, '§');
    let (Some(max), Some(online), Some(motd)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(DecodeError::Invalid(
            "legacy reply: expected motd§online§max",
        ));
    };
    Ok(LegacyStatus {
        protocol: None,
        version: None,
        motd: motd.to_string(),
        online: parse_count(online)?,
        max: parse_count(max)?,
    })
}

fn parse_count(s: &str) -> Result<u32, DecodeError> {
    s.trim()
        .parse()
        .map_err(|_| DecodeError::Invalid("legacy reply: player count not a number"))
}

/// Server side: appends an `FF` kick carrying `text`.
pub fn encode_kick(text: &str, out: &mut Vec<u8>) {
    out.push(0xff);
    put_utf16_string(text, out);
}

/// Server side: the reply text for `status` (the `§1` format when it has a protocol).
pub fn encode_kick_text(status: &LegacyStatus) -> String {
    match (status.protocol, &status.version) {
        (Some(p), Some(v)) => format!(
            "§1\0{p}\0{v}\0{}\0{}\0{}",
            status.motd, status.online, status.max
        ),
        _ => format!("{}§{}§{}", status.motd, status.online, status.max),
    }
}

/// The host and port a 1.6 ping names.
pub type PingHost = Option<(String, u16)>;

/// Server side: which legacy ping `buf` holds, once it is complete.
pub fn decode_ping(buf: &[u8]) -> Result<Option<(Variant, PingHost)>, DecodeError> {
    match buf {
        [] => Ok(None),
        [0xfe] => Ok(Some((Variant::Beta, None))),
        [0xfe, 0x01] => Ok(Some((Variant::V14, None))),
        [0xfe, 0x01, 0xfa, ..] => {
            let mut r = Reader::new(&buf[3..]);
            let partial = |e: DecodeError| match e {
                DecodeError::Truncated { .. } => Ok(None),
                e => Err(e),
            };
            let inner = (|| -> Result<(String, u16), DecodeError> {
                let n = usize::from(r.u16_be()?);
                let channel = decode_utf16be(r.bytes(2 * n)?);
                if channel != "MC|PingHost" {
                    return Err(DecodeError::Invalid(
                        "legacy ping: channel is not MC|PingHost",
                    ));
                }
                let _rest = r.u16_be()?;
                let _protocol = r.u8()?;
                let n = usize::from(r.u16_be()?);
                let host = decode_utf16be(r.bytes(2 * n)?);
                let port = r.i32_be()?;
                Ok((host, u16::try_from(port).unwrap_or(0)))
            })();
            match inner {
                Ok(hp) => Ok(Some((Variant::V16, Some(hp)))),
                Err(e) => partial(e),
            }
        }
        [0xfe, 0x01, ..] | [0xfe, ..] => Err(DecodeError::Invalid("legacy ping: unknown form")),
        [b, ..] => Err(DecodeError::UnexpectedType {
            what: "legacy ping packet id",
            found: u32::from(*b),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The document's 1.6 ping dump for localhost:25565, byte for byte.
    const PING_16_DUMP: [u8; 0x36] = [
        0xfe, 0x01, 0xfa, 0x00, 0x0b, 0x00, 0x4d, 0x00, 0x43, 0x00, 0x7c, 0x00, 0x50, 0x00, 0x69,
        0x00, // 0x00
        0x6e, 0x00, 0x67, 0x00, 0x48, 0x00, 0x6f, 0x00, 0x73, 0x00, 0x74, 0x00, 0x19, 0x49, 0x00,
        0x09, // 0x10
        0x00, 0x6c, 0x00, 0x6f, 0x00, 0x63, 0x00, 0x61, 0x00, 0x6c, 0x00, 0x68, 0x00, 0x6f, 0x00,
        0x73, // 0x20
        0x00, 0x74, 0x00, 0x00, 0x63, 0xdd, // 0x30
    ];

    /// The document's 1.6 (`§1`) reply dump.
    const REPLY_16_DUMP: [u8; 0x49] = [
        0xff, 0x00, 0x23, 0x00, 0xa7, 0x00, 0x31, 0x00, 0x00, 0x00, 0x34, 0x00, 0x37, 0x00, 0x00,
        0x00, // 0x00
        0x31, 0x00, 0x2e, 0x00, 0x34, 0x00, 0x2e, 0x00, 0x32, 0x00, 0x00, 0x00, 0x41, 0x00, 0x20,
        0x00, // 0x10
        0x4d, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x65, 0x00, 0x63, 0x00, 0x72, 0x00, 0x61, 0x00, 0x66,
        0x00, // 0x20
        0x74, 0x00, 0x20, 0x00, 0x53, 0x00, 0x65, 0x00, 0x72, 0x00, 0x76, 0x00, 0x65, 0x00, 0x72,
        0x00, // 0x30
        0x00, 0x00, 0x30, 0x00, 0x00, 0x00, 0x32, 0x00, 0x30, // 0x40
    ];

    /// The document's beta (pre-1.4) reply dump.
    const REPLY_BETA_DUMP: [u8; 0x31] = [
        0xff, 0x00, 0x17, 0x00, 0x41, 0x00, 0x20, 0x00, 0x4d, 0x00, 0x69, 0x00, 0x6e, 0x00, 0x65,
        0x00, // 0x00
        0x63, 0x00, 0x72, 0x00, 0x61, 0x00, 0x66, 0x00, 0x74, 0x00, 0x20, 0x00, 0x53, 0x00, 0x65,
        0x00, // 0x10
        0x72, 0x00, 0x76, 0x00, 0x65, 0x00, 0x72, 0x00, 0xa7, 0x00, 0x30, 0x00, 0xa7, 0x00, 0x31,
        0x00, // 0x20
        0x30, // 0x30
    ];

    /// Our 1.6 ping for localhost:25565 is exactly the document's dump.
    #[test]
    fn ping_16_matches_dump() {
        let mut out = Vec::new();
        encode_ping(Variant::V16, "localhost", 25565, &mut out);
        assert_eq!(out, PING_16_DUMP);
        assert_eq!(
            decode_ping(&PING_16_DUMP),
            Ok(Some((Variant::V16, Some(("localhost".to_string(), 25565)))))
        );
    }

    /// The older pings are one and two bytes.
    #[test]
    fn older_pings() {
        let mut out = Vec::new();
        encode_ping(Variant::V14, "x", 1, &mut out);
        assert_eq!(out, [0xfe, 0x01]);
        out.clear();
        encode_ping(Variant::Beta, "x", 1, &mut out);
        assert_eq!(out, [0xfe]);
    }

    /// The document's 1.6 reply decodes to protocol 47, 1.4.2, "A Minecraft Server", 0 of 20.
    #[test]
    fn reply_16_dump() {
        let (s, used) = decode_kick(&REPLY_16_DUMP).unwrap().unwrap();
        assert_eq!(used, REPLY_16_DUMP.len());
        assert_eq!(
            s,
            LegacyStatus {
                protocol: Some(47),
                version: Some("1.4.2".into()),
                motd: "A Minecraft Server".into(),
                online: 0,
                max: 20,
            }
        );
    }

    /// The document's beta reply decodes to "A Minecraft Server", 0 of 10.
    #[test]
    fn reply_beta_dump() {
        let (s, used) = decode_kick(&REPLY_BETA_DUMP).unwrap().unwrap();
        assert_eq!(used, REPLY_BETA_DUMP.len());
        assert_eq!(
            s,
            LegacyStatus {
                protocol: None,
                version: None,
                motd: "A Minecraft Server".into(),
                online: 0,
                max: 10,
            }
        );
    }

    /// Every prefix of a reply is partial; bytes after it are left alone.
    #[test]
    fn reply_prefixes_and_trailing() {
        for cut in 0..REPLY_BETA_DUMP.len() {
            assert_eq!(decode_kick(&REPLY_BETA_DUMP[..cut]), Ok(None), "cut {cut}");
        }
        let mut more = REPLY_BETA_DUMP.to_vec();
        more.extend_from_slice(&[1, 2, 3]);
        assert_eq!(
            decode_kick(&more).unwrap().unwrap().1,
            REPLY_BETA_DUMP.len()
        );
    }

    /// An old-format MOTD containing `§` splits from the right.
    #[test]
    fn beta_motd_with_sections() {
        let s = parse_kick_text("§aGreen §lServer§3§12").unwrap();
        assert_eq!(
            (s.motd.as_str(), s.online, s.max),
            ("§aGreen §lServer", 3, 12)
        );
    }

    /// Too few `§`, non-numeric counts and short `§1` replies are typed errors.
    #[test]
    fn bad_replies() {
        assert_eq!(
            parse_kick_text("just a motd"),
            Err(DecodeError::Invalid(
                "legacy reply: expected motd§online§max"
            ))
        );
        assert_eq!(
            parse_kick_text("motd§5"),
            Err(DecodeError::Invalid(
                "legacy reply: expected motd§online§max"
            ))
        );
        assert_eq!(
            parse_kick_text("motd§five§10"),
            Err(DecodeError::Invalid(
                "legacy reply: player count not a number"
            ))
        );
        assert!(parse_kick_text(&["§1", "x", "1.6", "m", "0", "20"].join("\0")).is_err());
        assert!(parse_kick_text(&["§1", "78", "1.6", "m", "0"].join("\0")).is_err());
        assert!(matches!(
            decode_kick(&[0x00, 0x01]),
            Err(DecodeError::UnexpectedType { .. })
        ));
    }

    fn status_strategy() -> impl Strategy<Value = LegacyStatus> {
        (
            proptest::option::of((any::<i32>(), "[0-9.a-z ]{0,12}")),
            "[^\u{0}§]{0,40}",
            any::<u32>(),
            any::<u32>(),
        )
            .prop_map(|(pv, motd, online, max)| LegacyStatus {
                protocol: pv.as_ref().map(|p| p.0),
                version: pv.map(|p| p.1),
                motd,
                online,
                max,
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Replies in both formats survive a round trip.
        #[test]
        fn reply_round_trip(s in status_strategy()) {
            let mut wire = Vec::new();
            encode_kick(&encode_kick_text(&s), &mut wire);
            prop_assert_eq!(decode_kick(&wire), Ok(Some((s, wire.len()))));
        }

        /// 1.6 pings survive a round trip.
        #[test]
        fn ping_round_trip(host in "[a-z0-9.-]{0,60}", port in any::<u16>()) {
            let mut wire = Vec::new();
            encode_ping(Variant::V16, &host, port, &mut wire);
            prop_assert_eq!(decode_ping(&wire), Ok(Some((Variant::V16, Some((host, port))))));
        }

        /// Arbitrary bytes never panic either decoder.
        #[test]
        fn arbitrary_bytes(mut bytes in proptest::collection::vec(any::<u8>(), 0..96), ff in any::<bool>()) {
            if ff && !bytes.is_empty() {
                bytes[0] = 0xff;
            }
            let _ = decode_kick(&bytes);
            let _ = decode_ping(&bytes);
        }
    }
}
