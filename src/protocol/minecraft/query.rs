//! Minecraft Query (GameSpy4): handshake, basic and full stat. Server behaviour beyond the
//! layout (token lifetime, the little-endian port, GeyserMC's padding) is in
//! `docs/protocols/minecraft-query.md`.
//!
//! # Format
//! ```text
//! request: FE FD | type (09 handshake, 00 stat) | session id (i32 BE) | payload
//! reply:   type | session id (i32 BE) | payload
//! ```
//! This is GameSpy 3 in its Minecraft flavor ([`gs3::Flavor::MINECRAFT`]): the handshake and
//! its token, the requests, the session-id check and the full stat's key/values and player
//! names are read and written by `protocol::gamespy3`. What is Minecraft's alone stays here:
//! the basic stat, the padding a server chooses, and what becomes of the strings.
//!
//! The server keeps only the low 4 bits of each session-id byte, so ids are masked with
//! [`SESSION_MASK`] before sending and the echo is compared with the masked id. The token
//! arrives as NUL-terminated ASCII decimal and goes back as a big-endian i32.
//!
//! # Driving it
//! [`encode_handshake`] → [`decode_handshake`] gives the token; then [`encode_basic_stat`] →
//! [`decode_basic_stat`] or [`encode_full_stat`] → [`decode_full_stat`]. A datagram that is
//! not the answer to our request (other type, other session id, too short) decodes to
//! [`DecodeError::Mismatch`], so the caller can keep waiting.
//!
//! # Text
//! The protocol names no character set. Vanilla writes UTF-8, but older servers and plugins
//! write ISO-8859-1, where `§` is the single byte `A7`. Each string is therefore decoded on
//! its own ([`decode_text`]): valid UTF-8 as UTF-8, anything else as Latin-1 (every byte is
//! U+00XX), so no byte becomes U+FFFD. Every value and player name then loses its `§`
//! formatting codes and control characters ([`strip_codes`], as the SLP and Bedrock decoders
//! do); keys and the host ip are only decoded.

use std::borrow::Cow;

use super::super::gamespy3::{self as gs3, TYPE_HANDSHAKE, TYPE_QUERY as TYPE_STAT};
use super::super::{DecodeError, Reader};
use super::motd::{strip_codes, MAX_CHARS};

/// The GameSpy 3 flavor Minecraft speaks.
const FLAVOR: gs3::Flavor = gs3::Flavor::MINECRAFT;
/// Servers keep only the low 4 bits of each session-id byte, so ids are masked before sending
/// and the echo is compared masked.
pub const SESSION_MASK: i32 = FLAVOR.session_mask;
/// What vanilla puts in the 11 bytes between the session id and the full-stat key/values.
pub const VANILLA_PADDING: [u8; 11] = *b"splitnum\x00\x80\x00";
/// The marker between the key/values and the player names, after the empty key.
const PLAYER_MARKER: &[u8] = b"\x01player_\x00\x00";

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Handshake { session: i32 },
    BasicStat { session: i32, token: i32 },
    FullStat { session: i32, token: i32 },
}

/// The basic stat reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BasicStat {
    pub motd: String,
    pub gametype: String,
    pub map: String,
    pub online: u32,
    pub max: u32,
    pub host_port: u16,
    pub host_ip: String,
}

/// The full stat reply: key/values in the server's order, and player names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FullStat {
    pub values: Vec<(String, String)>,
    pub players: Vec<String>,
}

/// How a server writes its strings (the simulator plays both).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Charset {
    /// Vanilla.
    #[default]
    Utf8,
    /// ISO-8859-1, as older servers and plugins send it; a character beyond U+00FF is
    /// written as `?`.
    Latin1,
}

/// A Query string as text: UTF-8 if the bytes are valid UTF-8, otherwise ISO-8859-1, which
/// maps every byte to the character of the same number. The choice is per string: a server
/// may write its MOTD in Latin-1 and relay player names in UTF-8. Never yields U+FFFD.
pub fn decode_text(bytes: &[u8]) -> String {
    FLAVOR.text.decode(bytes)
}

/// The next NUL-terminated string as text ([`decode_text`]).
fn text(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    r.cstr().map(decode_text)
}

/// The next NUL-terminated string as text fit for a label: decoded, then without `§` codes
/// and control characters.
fn shown(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    r.cstr().map(|b| strip_codes(&decode_text(b)))
}

impl FullStat {
    /// The first value under `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

pub fn mask_session(session: i32) -> i32 {
    FLAVOR.mask(session)
}

/// `FE FD 09` + session id: asks for a token.
pub fn encode_handshake(session: i32, out: &mut Vec<u8>) {
    gs3::encode_handshake(mask_session(session), out);
}

/// `FE FD 00` + session id + token.
pub fn encode_basic_stat(session: i32, token: i32, out: &mut Vec<u8>) {
    gs3::encode_query_head(mask_session(session), Some(token), out);
}

/// The basic stat request padded with 4 bytes (the flavor's payload), which asks for the
/// full stat.
pub fn encode_full_stat(session: i32, token: i32, out: &mut Vec<u8>) {
    gs3::encode_request(mask_session(session), Some(token), FLAVOR.payload, out);
}

/// Decodes a request (server side): the token always, then 4 bytes or more ask for the full
/// stat.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let (kind, session, mut r) = gs3::decode_request_head(&FLAVOR, datagram)?;
    if kind == TYPE_HANDSHAKE {
        return Ok(Request::Handshake { session });
    }
    let token = r.i32_be()?;
    if r.remaining() >= FLAVOR.payload.len() {
        Ok(Request::FullStat { session, token })
    } else {
        Ok(Request::BasicStat { session, token })
    }
}

/// Decodes the handshake reply to the token.
///
/// The token is ASCII decimal; one that is not a number or does not fit an i32 is
/// [`DecodeError::Invalid`] (it could not be sent back).
pub fn decode_handshake(datagram: &[u8], session: i32) -> Result<i32, DecodeError> {
    gs3::decode_handshake_in(&FLAVOR, datagram, session)
}

pub fn encode_handshake_reply(session: i32, token: i32, out: &mut Vec<u8>) {
    gs3::encode_handshake_reply(mask_session(session), token, out);
}

fn count(text: &str, what: &'static str) -> Result<u32, DecodeError> {
    text.trim().parse().map_err(|_| DecodeError::Invalid(what))
}

/// Decodes the basic stat reply (Minecraft's own): five strings, the host port
/// (little-endian, as the dump shows, though the words say big-endian), the host ip.
pub fn decode_basic_stat(datagram: &[u8], session: i32) -> Result<BasicStat, DecodeError> {
    let mut r = gs3::check_head_in(&FLAVOR, datagram, TYPE_STAT, session)?;
    let motd = shown(&mut r)?;
    let gametype = shown(&mut r)?;
    let map = shown(&mut r)?;
    let online = count(&text(&mut r)?, "Query numplayers")?;
    let max = count(&text(&mut r)?, "Query maxplayers")?;
    let host_port = r.u16_le()?;
    let host_ip = text(&mut r)?;
    Ok(BasicStat {
        motd,
        gametype,
        map,
        online,
        max,
        host_port,
        host_ip,
    })
}

/// Writes a NUL-terminated string in `charset`; an inner NUL would end it early, so it is
/// dropped.
fn write_cstr(s: &str, charset: Charset, out: &mut Vec<u8>) {
    match charset {
        Charset::Utf8 => out.extend(s.bytes().filter(|&b| b != 0)),
        Charset::Latin1 => out.extend(
            s.chars()
                .filter(|&c| c != '\0')
                .map(|c| u8::try_from(c).unwrap_or(b'?')),
        ),
    }
    out.push(0);
}

/// A reply's type byte and the masked session id.
fn write_head(session: i32, out: &mut Vec<u8>) {
    out.push(TYPE_STAT);
    out.extend_from_slice(&mask_session(session).to_be_bytes());
}

pub fn encode_basic_stat_reply(session: i32, stat: &BasicStat, out: &mut Vec<u8>) {
    encode_basic_stat_reply_in(session, stat, Charset::Utf8, out);
}

/// [`encode_basic_stat_reply`] with the strings in `charset`.
pub fn encode_basic_stat_reply_in(
    session: i32,
    stat: &BasicStat,
    charset: Charset,
    out: &mut Vec<u8>,
) {
    write_head(session, out);
    write_cstr(&stat.motd, charset, out);
    write_cstr(&stat.gametype, charset, out);
    write_cstr(&stat.map, charset, out);
    write_cstr(&stat.online.to_string(), charset, out);
    write_cstr(&stat.max.to_string(), charset, out);
    out.extend_from_slice(&stat.host_port.to_le_bytes());
    write_cstr(&stat.host_ip, charset, out);
}

/// Decodes the full stat reply: a one-part GameSpy 3 reply in Minecraft's flavor.
///
/// The 11 bytes after the session id are skipped by length, whatever they say (vanilla:
/// `splitnum\0\x80\0`; GeyserMC puts other text there). Then key/value strings in any order
/// up to an empty key, the `\x01player_\0\0` marker, and player names up to an empty one.
/// Keys are decoded as they are; values and names also lose `§` codes and control characters
/// (a string that then holds nothing stays, empty: only the wire's empty string ends a list).
pub fn decode_full_stat(datagram: &[u8], session: i32) -> Result<FullStat, DecodeError> {
    let view = view_full_stat(datagram, session)?;
    let values = view
        .info
        .iter()
        .map(|(k, v)| (decode_text(k), shown_bytes(v).into_owned()))
        .collect();
    let players = (0..view.players.rows())
        .map(|i| shown_bytes(view.players.get(i, "player_").unwrap_or_default()).into_owned())
        .collect();
    Ok(FullStat { values, players })
}

/// [`decode_full_stat`] in place: the key/values and player names as slices of the
/// datagram, nothing decoded yet (the poll decodes only what its status keeps, through
/// [`shown_bytes`]). Same checks, same errors.
pub fn view_full_stat(datagram: &[u8], session: i32) -> Result<gs3::View<'_>, DecodeError> {
    view_full_stat_keeping(datagram, session, true)
}

/// [`view_full_stat`], keeping the player names only when `names` (else their count).
pub fn view_full_stat_keeping(
    datagram: &[u8],
    session: i32,
    names: bool,
) -> Result<gs3::View<'_>, DecodeError> {
    let part = gs3::decode_part_in(&FLAVOR, datagram, session)?;
    gs3::view_body_keeping(&FLAVOR, [(part.section, part.body)], names)
}

/// A value or player name as shown: decoded ([`decode_text`]), without `§` codes and
/// control characters ([`strip_codes`]). Printable ASCII within the length cap, what
/// nearly every server sends, is already that: borrowed, nothing allocated.
pub fn shown_bytes(bytes: &[u8]) -> Cow<'_, str> {
    let plain = bytes.len() <= MAX_CHARS && bytes.iter().all(|b| (0x20..0x7F).contains(b));
    match std::str::from_utf8(bytes) {
        Ok(s) if plain => Cow::Borrowed(s),
        _ => Cow::Owned(strip_codes(&decode_text(bytes))),
    }
}

/// Writes a full stat reply; `padding` fills the 11 bytes clients skip.
pub fn encode_full_stat_reply(
    session: i32,
    stat: &FullStat,
    padding: &[u8; 11],
    out: &mut Vec<u8>,
) {
    encode_full_stat_reply_in(session, stat, padding, Charset::Utf8, out);
}

/// [`encode_full_stat_reply`] with the strings in `charset`.
pub fn encode_full_stat_reply_in(
    session: i32,
    stat: &FullStat,
    padding: &[u8; 11],
    charset: Charset,
    out: &mut Vec<u8>,
) {
    write_head(session, out);
    out.extend_from_slice(padding);
    // An empty key would end the section early: skip it.
    for (k, v) in stat.values.iter().filter(|(k, _)| !k.is_empty()) {
        write_cstr(k, charset, out);
        write_cstr(v, charset, out);
    }
    out.push(0);
    out.extend_from_slice(PLAYER_MARKER);
    for name in stat.players.iter().filter(|n| !n.is_empty()) {
        write_cstr(name, charset, out);
    }
    out.push(0);
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The document's handshake request: FE FD 09 00 00 00 01.
    #[test]
    fn dump_handshake_request() {
        let mut out = Vec::new();
        encode_handshake(1, &mut out);
        assert_eq!(out, [0xFE, 0xFD, 0x09, 0x00, 0x00, 0x00, 0x01]);
        assert_eq!(decode_request(&out), Ok(Request::Handshake { session: 1 }));
    }

    /// The document's handshake response carries token 9513307.
    #[test]
    fn dump_handshake_response() {
        let dump = [
            0x09, 0x00, 0x00, 0x00, 0x01, 0x39, 0x35, 0x31, 0x33, 0x33, 0x30, 0x37, 0x00,
        ];
        assert_eq!(decode_handshake(&dump, 1), Ok(9_513_307));
        let mut out = Vec::new();
        encode_handshake_reply(1, 9_513_307, &mut out);
        assert_eq!(out, dump);
    }

    /// The document's basic stat request: the token 9513307 as a big-endian int32.
    #[test]
    fn dump_basic_stat_request() {
        let mut out = Vec::new();
        encode_basic_stat(1, 9_513_307, &mut out);
        assert_eq!(
            out,
            [0xFE, 0xFD, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x91, 0x29, 0x5B]
        );
        // The document's own request bytes (00 3A 0D 5F) name another token; both decode.
        let doc = [
            0xFE, 0xFD, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x3A, 0x0D, 0x5F,
        ];
        assert_eq!(
            decode_request(&doc),
            Ok(Request::BasicStat {
                session: 1,
                token: 0x003A_0D5F
            })
        );
    }

    /// The document's basic stat response, host port little-endian (DD 63 = 25565).
    #[test]
    fn dump_basic_stat_response() {
        let dump = [
            0x00, 0x00, 0x00, 0x00, 0x01, 0x41, 0x20, 0x4D, 0x69, 0x6E, 0x65, 0x63, 0x72, 0x61,
            0x66, 0x74, 0x20, 0x53, 0x65, 0x72, 0x76, 0x65, 0x72, 0x00, 0x53, 0x4D, 0x50, 0x00,
            0x77, 0x6F, 0x72, 0x6C, 0x64, 0x00, 0x32, 0x00, 0x32, 0x30, 0x00, 0xDD, 0x63, 0x31,
            0x32, 0x37, 0x2E, 0x30, 0x2E, 0x30, 0x2E, 0x31, 0x00,
        ];
        let want = BasicStat {
            motd: "A Minecraft Server".into(),
            gametype: "SMP".into(),
            map: "world".into(),
            online: 2,
            max: 20,
            host_port: 25565,
            host_ip: "127.0.0.1".into(),
        };
        assert_eq!(decode_basic_stat(&dump, 1), Ok(want.clone()));
        let mut out = Vec::new();
        encode_basic_stat_reply(1, &want, &mut out);
        assert_eq!(out, dump);
        for n in 0..dump.len() {
            assert!(decode_basic_stat(&dump[..n], 1).is_err(), "{n}");
        }
    }

    /// The document's full stat request: the basic one plus 4 zero bytes.
    #[test]
    fn dump_full_stat_request() {
        let doc = [
            0xFE, 0xFD, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x3A, 0x0D, 0x5F, 0x00, 0x00, 0x00,
            0x00,
        ];
        let mut out = Vec::new();
        encode_full_stat(1, 0x003A_0D5F, &mut out);
        assert_eq!(out, doc);
        assert_eq!(
            decode_request(&doc),
            Ok(Request::FullStat {
                session: 1,
                token: 0x003A_0D5F
            })
        );
    }

    const FULL_DUMP: &[u8] = b"\x00\x00\x00\x00\x01splitnum\x00\x80\x00\
hostname\x00A Minecraft Server\x00gametype\x00SMP\x00game_id\x00MINECRAFT\x00\
version\x00Beta 1.9 Prerelease 4\x00plugins\x00\x00map\x00world\x00numplayers\x002\x00\
maxplayers\x0020\x00hostport\x0025565\x00hostname\x00127.0.0.1\x00\x00\
\x01player_\x00\x00barneygale\x00Vivalahelvig\x00\x00";

    /// The document's full stat response, every key and both players.
    #[test]
    fn dump_full_stat_response() {
        let stat = decode_full_stat(FULL_DUMP, 1).unwrap();
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        assert_eq!(
            stat.values,
            vec![
                kv("hostname", "A Minecraft Server"),
                kv("gametype", "SMP"),
                kv("game_id", "MINECRAFT"),
                kv("version", "Beta 1.9 Prerelease 4"),
                kv("plugins", ""),
                kv("map", "world"),
                kv("numplayers", "2"),
                kv("maxplayers", "20"),
                kv("hostport", "25565"),
                kv("hostname", "127.0.0.1"),
            ]
        );
        assert_eq!(stat.players, vec!["barneygale", "Vivalahelvig"]);
        assert_eq!(stat.get("hostname"), Some("A Minecraft Server"));
        let mut out = Vec::new();
        encode_full_stat_reply(1, &stat, &VANILLA_PADDING, &mut out);
        assert_eq!(out, FULL_DUMP);
        for n in 0..FULL_DUMP.len() {
            assert!(decode_full_stat(&FULL_DUMP[..n], 1).is_err(), "{n}");
        }
    }

    /// The 11 bytes after the session id are skipped whatever they hold (GeyserMC), and a
    /// hostname that is not UTF-8 decodes as Latin-1.
    #[test]
    fn full_stat_padding_and_latin1_hostname() {
        let mut d = b"\x00\x00\x00\x00\x01GeyserMC!!\x00".to_vec();
        d.extend_from_slice(b"map\x00w\x00hostname\x00Caf\xe9\x00\x00\x01player_\x00\x00\x00");
        let stat = decode_full_stat(&d, 1).unwrap();
        assert_eq!(stat.get("hostname"), Some("Caf\u{e9}"));
        assert_eq!(stat.get("map"), Some("w"));
        assert!(stat.players.is_empty());
    }

    /// A real server's basic stat: the MOTD `§3<<<§2TRIBES` in Latin-1, each `§` the single
    /// byte A7. Decoded as Latin-1 (not U+FFFD) and stripped of its colour codes.
    #[test]
    fn dump_basic_stat_latin1_motd() {
        let dump = [
            0x00, // type: stat
            0x00, 0x00, 0x00, 0x01, // session id 1
            0xA7, 0x33, 0x3C, 0x3C, 0x3C, 0xA7, 0x32, 0x54, 0x52, 0x49, 0x42, 0x45, 0x53,
            0x00, // motd: §3<<<§2TRIBES (Latin-1)
            0x53, 0x4D, 0x50, 0x00, // gametype: SMP
            0xA7, 0x61, 0x77, 0x6F, 0x72, 0x6C, 0x64, 0x00, // map: §aworld
            0x31, 0x00, // numplayers: 1
            0x32, 0x30, 0x00, // maxplayers: 20
            0xDD, 0x63, // host port 25565, little-endian
            0x31, 0x2E, 0x32, 0x2E, 0x33, 0x2E, 0x34, 0x00, // host ip: 1.2.3.4
        ];
        let want = BasicStat {
            motd: "<<<TRIBES".into(),
            gametype: "SMP".into(),
            map: "world".into(),
            online: 1,
            max: 20,
            host_port: 25565,
            host_ip: "1.2.3.4".into(),
        };
        assert_eq!(decode_basic_stat(&dump, 1), Ok(want));
        // The simulator's Latin-1 encoder writes these very bytes.
        let sent = BasicStat {
            motd: "§3<<<§2TRIBES".into(),
            map: "§aworld".into(),
            ..decode_basic_stat(&dump, 1).unwrap()
        };
        let mut out = Vec::new();
        encode_basic_stat_reply_in(1, &sent, Charset::Latin1, &mut out);
        assert_eq!(out, dump);
    }

    /// The same MOTD in a full stat, once as Latin-1 (A7) and once as UTF-8 (C2 A7), each
    /// string decided on its own; player names lose their codes and controls too.
    #[test]
    fn dump_full_stat_latin1_and_utf8_section_sign() {
        let dump = b"\x00\x00\x00\x00\x01splitnum\x00\x80\x00\
hostname\x00\xA73<<<\xA72TRIBES\x00\
map\x00\xC2\xA73<<<\xC2\xA72TRIBES\x00\
numplayers\x002\x00\x00\
\x01player_\x00\x00\
\xA7cJ\xF6rg\x00\
\xC2\xA7cJ\xC3\xB6rg\x1b\x00\x00";
        let stat = decode_full_stat(dump, 1).unwrap();
        assert_eq!(stat.get("hostname"), Some("<<<TRIBES"));
        assert_eq!(stat.get("map"), Some("<<<TRIBES"));
        assert_eq!(stat.get("numplayers"), Some("2"));
        // Latin-1 F6 and UTF-8 C3 B6 are the same ö; the ESC is dropped.
        assert_eq!(stat.players, ["J\u{f6}rg", "J\u{f6}rg"]);
    }

    /// Per string: valid UTF-8 stays UTF-8 (even when it could be Latin-1), anything else is
    /// Latin-1, byte for character.
    #[test]
    fn text_decision() {
        assert_eq!(decode_text(b""), "");
        assert_eq!(decode_text(b"plain"), "plain");
        assert_eq!(decode_text(b"\xC2\xA7"), "§");
        assert_eq!(decode_text(b"\xA7"), "§");
        assert_eq!(decode_text(b"\xC3\xA9"), "é");
        assert_eq!(decode_text(b"\xC3"), "\u{c3}");
        assert_eq!(decode_text(b"\x80\xFF"), "\u{80}\u{ff}");
    }

    /// A token that is not decimal, or beyond i32, is invalid; a negative one is fine.
    #[test]
    fn token_rules() {
        let reply = |t: &[u8]| {
            let mut d = b"\x09\x00\x00\x00\x01".to_vec();
            d.extend_from_slice(t);
            d
        };
        for bad in [
            &b"abc\0"[..],
            b"\0",
            b"12a\0",
            b"-\0",
            b"2147483648\0",
            b"1 2\0",
        ] {
            assert!(
                matches!(
                    decode_handshake(&reply(bad), 1),
                    Err(DecodeError::Invalid(_))
                ),
                "{bad:?}"
            );
        }
        assert_eq!(decode_handshake(&reply(b"-5\0"), 1), Ok(-5));
        assert_eq!(decode_handshake(&reply(b"2147483647\0"), 1), Ok(i32::MAX));
        assert!(matches!(
            decode_handshake(&reply(b"123"), 1),
            Err(DecodeError::Unterminated { .. })
        ));
    }

    /// The session id is masked on the way out, and the echo must match the masked id.
    #[test]
    fn session_masked_and_checked() {
        let mut out = Vec::new();
        encode_handshake(0x7FFF_FFFF, &mut out);
        assert_eq!(&out[3..], &[0x0F, 0x0F, 0x0F, 0x0F]);
        let reply = b"\x09\x0f\x0f\x0f\x0f42\x00";
        assert_eq!(decode_handshake(reply, 0x7FFF_FFFF), Ok(42));
        assert_eq!(
            decode_handshake(reply, 0x0F0F_0F0E),
            Err(DecodeError::Mismatch("Query session id"))
        );
        assert_eq!(
            decode_basic_stat(reply, 0x7FFF_FFFF),
            Err(DecodeError::Mismatch("Query reply type"))
        );
        assert!(matches!(
            decode_handshake(b"\x09\x0f", 1),
            Err(DecodeError::Mismatch(_))
        ));
    }

    /// Strings that survive decoding unchanged: no `§` codes or controls (those are
    /// stripped), and in Latin-1 no byte run that is also valid UTF-8.
    fn text() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9_ .é-]{0,24}"
    }
    fn key() -> impl Strategy<Value = String> {
        "[a-z_]{1,12}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic any decoder.
        #[test]
        fn decoders_survive_noise(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
            let _ = decode_request(&bytes);
            let _ = decode_handshake(&bytes, 1);
            let _ = decode_basic_stat(&bytes, 1);
            let _ = decode_full_stat(&bytes, 1);
        }

        /// No byte string decodes to U+FFFD, and no character is made up: at most one per
        /// byte. What reaches a label holds no `§` and no control character.
        #[test]
        fn text_never_replacement(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let t = decode_text(&bytes);
            prop_assert!(!t.contains('\u{fffd}'), "{:?}", bytes);
            prop_assert!(t.chars().count() <= bytes.len());
            let mut d = b"\x00\x00\x00\x00\x01splitnum\x00\x80\x00hostname\x00".to_vec();
            d.extend(bytes.iter().filter(|&&b| b != 0));
            d.extend_from_slice(b"\x00\x00\x01player_\x00\x00");
            d.extend(bytes.iter().filter(|&&b| b != 0));
            d.extend_from_slice(b"\x00\x00");
            let stat = decode_full_stat(&d, 1).unwrap();
            let shown = [stat.get("hostname").unwrap_or_default()]
                .into_iter()
                .chain(stat.players.iter().map(String::as_str));
            for s in shown {
                prop_assert!(!s.contains(char::REPLACEMENT_CHARACTER), "{:?}", s);
                prop_assert!(!s.contains('§'));
                prop_assert!(!s.chars().any(|c| c.is_control() && c != '\n'));
            }
        }

        /// A Latin-1 server's replies decode back to what it meant.
        #[test]
        fn latin1_round_trip(motd in text(), map in text(), name in "[a-zA-Z0-9_é]{1,16}") {
            let basic = BasicStat { motd: motd.clone(), map: map.clone(), ..BasicStat::default() };
            let mut out = Vec::new();
            encode_basic_stat_reply_in(7, &basic, Charset::Latin1, &mut out);
            prop_assert_eq!(decode_basic_stat(&out, 7), Ok(basic));
            let full = FullStat {
                values: vec![("hostname".into(), motd), ("map".into(), map)],
                players: vec![name],
            };
            out.clear();
            encode_full_stat_reply_in(7, &full, &VANILLA_PADDING, Charset::Latin1, &mut out);
            prop_assert_eq!(decode_full_stat(&out, 7), Ok(full));
        }

        /// Mutating one byte of the full stat dump never panics.
        #[test]
        fn full_stat_mutations(at in 0..FULL_DUMP.len(), byte in any::<u8>()) {
            let mut d = FULL_DUMP.to_vec();
            d[at] = byte;
            let _ = decode_full_stat(&d, 1);
        }

        /// Every request round-trips with its masked session id.
        #[test]
        fn request_round_trip(session in any::<i32>(), token in any::<i32>()) {
            let s = mask_session(session);
            let mut out = Vec::new();
            encode_handshake(session, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request::Handshake { session: s }));
            out.clear();
            encode_basic_stat(session, token, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request::BasicStat { session: s, token }));
            out.clear();
            encode_full_stat(session, token, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request::FullStat { session: s, token }));
        }

        /// decode_handshake(encode_handshake_reply(token)) == token.
        #[test]
        fn handshake_round_trip(session in any::<i32>(), token in any::<i32>()) {
            let mut out = Vec::new();
            encode_handshake_reply(session, token, &mut out);
            prop_assert_eq!(decode_handshake(&out, session), Ok(token));
        }

        /// decode_basic_stat(encode_basic_stat_reply(x)) == x.
        #[test]
        fn basic_stat_round_trip(motd in text(), gametype in text(), map in text(), online in any::<u32>(),
                                 max in any::<u32>(), host_port in any::<u16>(), host_ip in text()) {
            let stat = BasicStat { motd, gametype, map, online, max, host_port, host_ip };
            let mut out = Vec::new();
            encode_basic_stat_reply(7, &stat, &mut out);
            prop_assert_eq!(decode_basic_stat(&out, 7), Ok(stat));
        }

        /// decode_full_stat(encode_full_stat_reply(x)) == x, whatever the padding.
        #[test]
        fn full_stat_round_trip(values in proptest::collection::vec((key(), text()), 0..12),
                                players in proptest::collection::vec("[a-zA-Z0-9_]{1,16}", 0..12),
                                padding in any::<[u8; 11]>()) {
            let stat = FullStat { values, players };
            let mut out = Vec::new();
            encode_full_stat_reply(7, &stat, &padding, &mut out);
            prop_assert_eq!(decode_full_stat(&out, 7), Ok(stat));
        }
    }
}
