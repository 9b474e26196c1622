//! The `i` reply (server info) and open.mp's `o` reply (extra info).

use encoding_rs::Encoding;

use super::{
    check_header, check_header_in, encode_header, encode_header_as, read_str32, write_str32,
    Dialect, Header, Opcode,
};
use crate::protocol::DecodeError;

/// The `i` reply.
///
/// # Format
/// ```text
/// header (11) | password (u8) | players (u16) | max players (u16)
/// | hostname (u32 len + bytes) | gamemode (u32 len + bytes) | language (u32 len + bytes)
/// ```
/// "Language" since 0.3.7; before that the third string was the map.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub password: bool,
    pub players: u16,
    pub max: u16,
    pub hostname: String,
    pub gamemode: String,
    pub language: String,
}

pub fn decode_info(
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<Info, DecodeError> {
    decode_info_in(&Dialect::SAMP, datagram, expect, encoding).map(|(info, _)| info)
}

/// [`decode_info`] in `dialect`, with the version string that dialect puts in front (NULs
/// trimmed; `None` where the dialect has none).
pub fn decode_info_in(
    dialect: &Dialect,
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<(Info, Option<String>), DecodeError> {
    let mut r = check_header_in(dialect, datagram, expect, Opcode::Info)?;
    let version = match dialect.info_version {
        0 => None,
        n => {
            let raw = r.bytes(n)?;
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            Some(super::text(&raw[..end], encoding))
        }
    };
    let password = r.u8()? != 0;
    let players = r.u16_le()?;
    let max = r.u16_le()?;
    let hostname = read_str32(&mut r, encoding)?;
    let gamemode = read_str32(&mut r, encoding)?;
    let language = read_str32(&mut r, encoding)?;
    let info = Info {
        password,
        players,
        max,
        hostname,
        gamemode,
        language,
    };
    Ok((info, version))
}

pub fn encode_info(header: &Header, info: &Info, encoding: &'static Encoding, out: &mut Vec<u8>) {
    encode_info_in(&Dialect::SAMP, header, info, "", encoding, out);
}

/// [`encode_info`] in `dialect` (server side): its reply magic and `version` in its
/// fixed-width field (cut, or padded with NULs).
pub fn encode_info_in(
    dialect: &Dialect,
    header: &Header,
    info: &Info,
    version: &str,
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    encode_header_as(&dialect.reply_magic, header, Opcode::Info, out);
    let v = super::encoded(version, encoding);
    let n = dialect.info_version;
    out.extend(v.iter().copied().chain(std::iter::repeat(0)).take(n));
    out.push(u8::from(info.password));
    out.extend_from_slice(&info.players.to_le_bytes());
    out.extend_from_slice(&info.max.to_le_bytes());
    write_str32(&info.hostname, encoding, out);
    write_str32(&info.gamemode, encoding, out);
    write_str32(&info.language, encoding, out);
}

/// open.mp's `o` reply: answering it at all identifies open.mp.
///
/// # Format
/// ```text
/// header (11) | discord invite | light banner URL | dark banner URL | logo URL
/// ```
/// each a u32 length + bytes (empty when the operator set none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OpenMp {
    pub discord: String,
    pub light_banner: String,
    pub dark_banner: String,
    pub logo: String,
}

pub fn decode_open_mp(
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<OpenMp, DecodeError> {
    let mut r = check_header(datagram, expect, Opcode::OpenMp)?;
    Ok(OpenMp {
        discord: read_str32(&mut r, encoding)?,
        light_banner: read_str32(&mut r, encoding)?,
        dark_banner: read_str32(&mut r, encoding)?,
        logo: read_str32(&mut r, encoding)?,
    })
}

pub fn encode_open_mp(header: &Header, o: &OpenMp, encoding: &'static Encoding, out: &mut Vec<u8>) {
    encode_header(header, Opcode::OpenMp, out);
    for s in [&o.discord, &o.light_banner, &o.dark_banner, &o.logo] {
        write_str32(s, encoding, out);
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use encoding_rs::{WINDOWS_1251, WINDOWS_1252};
    use proptest::prelude::*;

    use super::*;

    const H: Header = Header {
        ip: Ipv4Addr::new(10, 0, 0, 7),
        port: 7777,
    };

    /// A hand-built `i` reply decodes field by field, the third string as the language.
    #[test]
    fn info_by_hand() {
        let mut d = Vec::new();
        d.extend_from_slice(b"SAMP\x0a\x00\x00\x07\x61\x1ei"); // echoed header
        d.push(1); // password
        d.extend_from_slice(&12u16.to_le_bytes()); // players
        d.extend_from_slice(&50u16.to_le_bytes()); // max players
        d.extend_from_slice(&5u32.to_le_bytes());
        d.extend_from_slice(b"Hello"); // hostname
        d.extend_from_slice(&8u32.to_le_bytes());
        d.extend_from_slice(b"Freeroam"); // gamemode
        d.extend_from_slice(&7u32.to_le_bytes());
        d.extend_from_slice(b"English"); // language
        assert_eq!(
            decode_info(&d, &H, WINDOWS_1252),
            Ok(Info {
                password: true,
                players: 12,
                max: 50,
                hostname: "Hello".into(),
                gamemode: "Freeroam".into(),
                language: "English".into(),
            })
        );
        // Every shorter prefix past the header is an error, never a panic.
        for n in 11..d.len() {
            assert!(decode_info(&d[..n], &H, WINDOWS_1252).is_err(), "{n}");
        }
    }

    /// Cyrillic names arrive as Windows-1251 bytes and decode only with that code page;
    /// with the default page they still decode (to other letters), never fail.
    #[test]
    fn info_code_pages() {
        let mut d = b"SAMP\x0a\x00\x00\x07\x61\x1ei\x00\x01\x00\x02\x00".to_vec();
        d.extend_from_slice(&6u32.to_le_bytes());
        d.extend_from_slice(b"\xd1\xe5\xf0\xe2\xe5\xf0"); // "Сервер" in Windows-1251
        d.extend_from_slice(&0u32.to_le_bytes());
        d.extend_from_slice(&2u32.to_le_bytes());
        d.extend_from_slice(b"\xd0\xf3"); // "Ру"
        let info = decode_info(&d, &H, WINDOWS_1251).unwrap();
        assert_eq!(
            (info.hostname.as_str(), info.language.as_str()),
            ("Сервер", "Ру")
        );
        let latin = decode_info(&d, &H, WINDOWS_1252).unwrap();
        assert_eq!(latin.hostname, "Ñåðâåð");
        // Bytes UTF-8 cannot map become U+FFFD instead of an error.
        let utf8 = decode_info(&d, &H, encoding_rs::UTF_8).unwrap();
        assert!(utf8.hostname.contains('\u{fffd}'));
    }

    /// A string length beyond the datagram is truncation, not an allocation.
    #[test]
    fn info_length_beyond_datagram() {
        let mut d = b"SAMP\x0a\x00\x00\x07\x61\x1ei\x00\x01\x00\x02\x00".to_vec();
        d.extend_from_slice(&u32::MAX.to_le_bytes());
        d.extend_from_slice(b"abc");
        assert!(matches!(
            decode_info(&d, &H, WINDOWS_1252),
            Err(DecodeError::Truncated { needed, .. }) if needed == u32::MAX as usize
        ));
    }

    /// A hand-built `o` reply decodes its four URLs; empty ones stay empty.
    #[test]
    fn open_mp_by_hand() {
        let mut d = b"SAMP\x0a\x00\x00\x07\x61\x1eo".to_vec();
        for s in [
            "discord.gg/omp",
            "",
            "https://x/dark.png",
            "https://x/logo.png",
        ] {
            d.extend_from_slice(&(s.len() as u32).to_le_bytes());
            d.extend_from_slice(s.as_bytes());
        }
        assert_eq!(
            decode_open_mp(&d, &H, WINDOWS_1252),
            Ok(OpenMp {
                discord: "discord.gg/omp".into(),
                light_banner: String::new(),
                dark_banner: "https://x/dark.png".into(),
                logo: "https://x/logo.png".into(),
            })
        );
        assert!(decode_open_mp(&d[..d.len() - 1], &H, WINDOWS_1252).is_err());
    }

    fn text() -> impl Strategy<Value = String> {
        // Characters Windows-1252 can carry, so the round trip is exact.
        "[a-zA-Z0-9 ~éüß€-]{0,40}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes, with or without a valid header, never panic the decoders.
        #[test]
        fn decoders_survive_noise(body in proptest::collection::vec(any::<u8>(), 0..96), hdr in any::<bool>()) {
            for op in [b'i', b'o'] {
                let mut d = Vec::new();
                if hdr {
                    d.extend_from_slice(b"SAMP\x0a\x00\x00\x07\x61\x1e");
                    d.push(op);
                }
                d.extend_from_slice(&body);
                let _ = decode_info(&d, &H, WINDOWS_1252);
                let _ = decode_open_mp(&d, &H, WINDOWS_1251);
            }
        }

        /// decode_info(encode_info(x)) == x.
        #[test]
        fn info_round_trip(password in any::<bool>(), players in any::<u16>(), max in any::<u16>(),
                           hostname in text(), gamemode in text(), language in text()) {
            let info = Info { password, players, max, hostname, gamemode, language };
            let mut out = Vec::new();
            encode_info(&H, &info, WINDOWS_1252, &mut out);
            prop_assert_eq!(decode_info(&out, &H, WINDOWS_1252), Ok(info));
        }

        /// decode_open_mp(encode_open_mp(x)) == x.
        #[test]
        fn open_mp_round_trip(discord in text(), light_banner in text(), dark_banner in text(), logo in text()) {
            let o = OpenMp { discord, light_banner, dark_banner, logo };
            let mut out = Vec::new();
            encode_open_mp(&H, &o, WINDOWS_1252, &mut out);
            prop_assert_eq!(decode_open_mp(&out, &H, WINDOWS_1252), Ok(o));
        }
    }
}
