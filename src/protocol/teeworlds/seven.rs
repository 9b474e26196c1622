//! Teeworlds 0.7 server info: a token handshake, then `gie3` / `inf3` with packed integers.
//!
//! # Format
//! ```text
//! token request   04 00 00 | FF FF FF FF | 05 | our token (4, BE) | 508 zero bytes
//!                 control packet (flag CONTROL = 1, shifted left 2), ack 0, 0 chunks, no token
//!                 yet, NET_CTRLMSG_TOKEN (5), our token, padding to 512 data bytes: a server
//!                 ignores shorter token requests so it cannot be used as an amplifier.
//! token reply     04 00 00 | our token (4) | 05 | server token (4, BE)
//! info request    21 | server token (4) | our token (4) | FF FF FF FF "gie3" | browse token (packed)
//!                 21 = flag CONNLESS (8) shifted left 2 | packet version 1
//! info reply      21 | our token (4) | server token (4) | FF FF FF FF "inf3"
//!                 | browse token (packed) | version | name | hostname | map | game type (strings)
//!                 | flags | skill level | players | max players | clients | max clients (packed)
//!                 then per client to the end: name | clan (strings) | country | score
//!                 | player flags (packed: 1 = spectator, 2 = bot)
//! ```

use super::packed::{decode_count, decode_int, encode_int};
use super::{check_counts, Client, ClientKind, Flavour, Info, MAX_CLIENTS};
use crate::protocol::{DecodeError, Reader};

pub const GETINFO: &[u8; 8] = b"\xff\xff\xff\xffgie3";
pub const INFO: &[u8; 8] = b"\xff\xff\xff\xffinf3";
/// The first byte of a connectionless 0.7 packet.
pub const CONNLESS: u8 = 0x21;
/// The first byte of a control packet with no ack.
pub const CONTROL: u8 = 0x04;
pub const CTRL_TOKEN: u8 = 5;
/// "No token yet", in the header of the token request.
pub const TOKEN_NONE: u32 = 0xffff_ffff;
/// Data bytes a token request must carry (control byte excluded).
pub const TOKEN_REQUEST_DATA: usize = 512;
/// Length of the whole token request.
pub const TOKEN_REQUEST_LEN: usize = 7 + 1 + TOKEN_REQUEST_DATA;
const HEADER_LEN: usize = 9;
/// Player flags.
pub const PLAYER_FLAG_SPECTATOR: i32 = 1;
pub const PLAYER_FLAG_BOT: i32 = 2;

/// Writes the padded token request carrying `mine`.
pub fn encode_token_request(mine: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[CONTROL, 0, 0]);
    out.extend_from_slice(&TOKEN_NONE.to_be_bytes());
    out.push(CTRL_TOKEN);
    out.extend_from_slice(&mine.to_be_bytes());
    out.resize(out.len() + TOKEN_REQUEST_DATA - 4, 0);
}

/// Decodes the token reply to our request: the server's token. Anything not addressed to
/// `mine` is [`DecodeError::Mismatch`].
pub fn decode_token_reply(datagram: &[u8], mine: u32) -> Result<u32, DecodeError> {
    let mut r = Reader::new(datagram);
    let head = r
        .array::<8>()
        .map_err(|_| DecodeError::Mismatch("not a 0.7 token reply"))?;
    if head[0] != CONTROL || head[3..7] != mine.to_be_bytes() || head[7] != CTRL_TOKEN {
        return Err(DecodeError::Mismatch("not a 0.7 token reply"));
    }
    r.u32_be()
}

/// Writes the info request, once the server's token is known.
pub fn encode_info_request(server: u32, mine: u32, browse: i32, out: &mut Vec<u8>) {
    out.push(CONNLESS);
    out.extend_from_slice(&server.to_be_bytes());
    out.extend_from_slice(&mine.to_be_bytes());
    out.extend_from_slice(GETINFO);
    encode_int(browse, out);
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// A token request of the required size.
    Token { mine: u32 },
    /// An info request carrying `server` (ours to check) and the client's tokens.
    Info { server: u32, mine: u32, browse: i32 },
}

/// Decodes a 0.7 request. Token requests shorter than the padding rule are invalid, as a real
/// server ignores them.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let mut r = Reader::new(datagram);
    match r.u8()? {
        CONTROL => {
            r.skip(2)?;
            r.u32_be()?; // TOKEN_NONE
            if r.u8()? != CTRL_TOKEN {
                return Err(DecodeError::Invalid("0.7 control message"));
            }
            let mine = r.u32_be()?;
            if datagram.len() < TOKEN_REQUEST_LEN {
                return Err(DecodeError::Invalid("0.7 token request padding"));
            }
            Ok(Request::Token { mine })
        }
        CONNLESS => {
            let server = r.u32_be()?;
            let mine = r.u32_be()?;
            if &r.array::<8>()? != GETINFO {
                return Err(DecodeError::Invalid("0.7 connless request"));
            }
            let browse = decode_int(&mut r)?;
            Ok(Request::Info {
                server,
                mine,
                browse,
            })
        }
        other => Err(DecodeError::UnexpectedType {
            what: "0.7 packet",
            found: other.into(),
        }),
    }
}

/// Writes the token reply (server side).
pub fn encode_token_reply(mine: u32, server: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[CONTROL, 0, 0]);
    out.extend_from_slice(&mine.to_be_bytes());
    out.push(CTRL_TOKEN);
    out.extend_from_slice(&server.to_be_bytes());
}

/// Decodes the info reply to our request (`mine`, `browse`): header, echo, then fields.
pub fn decode_info_reply(datagram: &[u8], mine: u32, browse: i32) -> Result<Info, DecodeError> {
    if datagram.len() < HEADER_LEN + INFO.len()
        || datagram[0] != CONNLESS
        || datagram[1..5] != mine.to_be_bytes()
        || datagram[HEADER_LEN..HEADER_LEN + INFO.len()] != INFO[..]
    {
        return Err(DecodeError::Mismatch("not a 0.7 info reply to us"));
    }
    let mut r = Reader::new(&datagram[HEADER_LEN + INFO.len()..]);
    if decode_int(&mut r)? != browse {
        return Err(DecodeError::Mismatch("0.7 browse token"));
    }
    let version = r.cstring()?;
    let name = r.cstring()?;
    let hostname = r.cstring()?;
    let map = r.cstring()?;
    let game_type = r.cstring()?;
    let flags = decode_count(&mut r, "flags")?;
    let skill_level = decode_int(&mut r)?;
    let num_players = decode_count(&mut r, "player count")?;
    let max_players = decode_count(&mut r, "max players")?;
    let num_clients = decode_count(&mut r, "client count")?;
    let max_clients = decode_count(&mut r, "max clients")?;
    check_counts(num_players, num_clients, max_clients)?;
    let mut clients = Vec::new();
    while !r.is_empty() {
        // Each client takes at least 5 bytes: the datagram bounds the list, the cap refuses
        // the impossible before it grows.
        if clients.len() >= MAX_CLIENTS as usize {
            return Err(DecodeError::TooLarge {
                what: "listed clients",
                value: clients.len() as u64 + 1,
                limit: MAX_CLIENTS.into(),
            });
        }
        let name = r.cstring()?;
        let clan = r.cstring()?;
        let country = decode_int(&mut r)?;
        let score = decode_int(&mut r)?;
        let flags = decode_int(&mut r)?;
        let kind = if flags & PLAYER_FLAG_BOT != 0 {
            ClientKind::Bot
        } else if flags & PLAYER_FLAG_SPECTATOR != 0 {
            ClientKind::Spectator
        } else {
            ClientKind::Player
        };
        clients.push(Client {
            name,
            clan,
            country,
            score,
            kind,
        });
    }
    Ok(Info {
        flavour: Flavour::Seven,
        version,
        name,
        hostname: Some(hostname),
        map,
        game_type,
        flags,
        skill_level: Some(skill_level),
        map_crc: None,
        map_size: None,
        num_players,
        max_players,
        num_clients,
        max_clients,
        clients,
    })
}

/// Writes the info reply (server side).
pub fn encode_info_reply(info: &Info, mine: u32, server: u32, browse: i32, out: &mut Vec<u8>) {
    out.push(CONNLESS);
    out.extend_from_slice(&mine.to_be_bytes());
    out.extend_from_slice(&server.to_be_bytes());
    out.extend_from_slice(INFO);
    encode_int(browse, out);
    let hostname = info.hostname.as_deref().unwrap_or("");
    for s in [
        info.version.as_str(),
        &info.name,
        hostname,
        &info.map,
        &info.game_type,
    ] {
        out.extend_from_slice(s.as_bytes());
        out.push(0);
    }
    encode_int(info.flags as i32, out);
    encode_int(info.skill_level.unwrap_or(0), out);
    for n in [
        info.num_players,
        info.max_players,
        info.num_clients,
        info.max_clients,
    ] {
        encode_int(n as i32, out);
    }
    for c in &info.clients {
        for s in [&c.name, &c.clan] {
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
        encode_int(c.country, out);
        encode_int(c.score, out);
        encode_int(
            match c.kind {
                ClientKind::Player => 0,
                ClientKind::Spectator => PLAYER_FLAG_SPECTATOR,
                ClientKind::Bot => PLAYER_FLAG_BOT,
            },
            out,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn fixture(name: &str) -> Vec<u8> {
        let path = format!(
            "{}/tests/fixtures/teeworlds/{name}.bin",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    /// The token request is 520 bytes; the real servers ignored one without the padding.
    #[test]
    fn token_request_layout() {
        let mut out = Vec::new();
        encode_token_request(0x1122_3344, &mut out);
        assert_eq!(out.len(), TOKEN_REQUEST_LEN);
        assert_eq!(
            &out[..12],
            b"\x04\x00\x00\xff\xff\xff\xff\x05\x11\x22\x33\x44"
        );
        assert!(out[12..].iter().all(|&b| b == 0));
        assert_eq!(
            decode_request(&out),
            Ok(Request::Token { mine: 0x1122_3344 })
        );
        assert_eq!(
            decode_request(&out[..12]),
            Err(DecodeError::Invalid("0.7 token request padding"))
        );
    }

    /// Real Teeworlds 0.7.5: its token reply, field by field.
    #[test]
    fn real_token_reply() {
        let d = fixture("tw07_token.0");
        assert_eq!(&d[..8], b"\x04\x00\x00\x11\x22\x33\x44\x05"); // control, our token, TOKEN
        assert_eq!(d.len(), 12); // + the server's 4 bytes
        let server = decode_token_reply(&d, 0x1122_3344).unwrap();
        assert_eq!(server.to_be_bytes(), d[8..12]);
        assert!(matches!(
            decode_token_reply(&d, 0x1122_3345),
            Err(DecodeError::Mismatch(_))
        ));
        for n in 0..d.len() {
            assert!(decode_token_reply(&d[..n], 0x1122_3344).is_err());
        }
    }

    /// Real Teeworlds 0.7.5 (`sv_name "P3 Teeworlds 0.7"`, `sv_max_clients 12`, map ctf2),
    /// three clients stopped after connecting, asked with browse token 5.
    #[test]
    fn real_info_three_connecting() {
        let d = fixture("tw07_three_info.0");
        let mut want = Vec::new();
        want.push(0x21); // connless, version 1
        want.extend_from_slice(b"\x55\x66\x77\x01"); // our token
        want.extend_from_slice(&d[5..9]); // the server's token
        want.extend_from_slice(b"\xff\xff\xff\xffinf3");
        want.push(0x05); // browse token 5, packed
        want.extend_from_slice(b"0.7.5\0"); // version
        want.extend_from_slice(b"P3 Teeworlds 0.7\0"); // name
        want.extend_from_slice(b"\0"); // hostname: unset
        want.extend_from_slice(b"ctf2\0"); // map
        want.extend_from_slice(b"DM\0"); // game type (sv_gametype default)
        want.push(0x00); // flags
        want.push(0x01); // skill level 1 (casual)
        want.push(0x00); // players
        want.push(0x08); // max players: sv_player_slots default, not sv_max_clients
        want.push(0x03); // clients
        want.push(0x0c); // max clients 12
        for _ in 0..3 {
            want.extend_from_slice(b"(connecting)\0"); // name before the client's info
            want.extend_from_slice(b"\0"); // clan
            want.push(0x40); // country -1
            want.push(0x00); // score
            want.push(0x01); // flags: spectator
        }
        assert_eq!(d, want);
        let info = decode_info_reply(&d, 0x5566_7701, 5).unwrap();
        assert_eq!(info.flavour, Flavour::Seven);
        assert_eq!(info.version, "0.7.5");
        assert_eq!(info.name, "P3 Teeworlds 0.7");
        assert_eq!(info.hostname.as_deref(), Some(""));
        assert_eq!((info.map.as_str(), info.game_type.as_str()), ("ctf2", "DM"));
        assert_eq!(info.skill_level, Some(1));
        assert_eq!(
            (
                info.num_players,
                info.max_players,
                info.num_clients,
                info.max_clients
            ),
            (0, 8, 3, 12)
        );
        assert_eq!(info.clients.len(), 3);
        assert_eq!(
            info.clients[0],
            Client {
                name: "(connecting)".into(),
                clan: String::new(),
                country: -1,
                score: 0,
                kind: ClientKind::Spectator
            }
        );
        assert!(matches!(
            decode_info_reply(&d, 0x5566_7701, 6),
            Err(DecodeError::Mismatch(_))
        ));
        // Cut anywhere before the last client's end: an error or fewer clients, no panic.
        for n in 0..d.len() {
            if let Ok(i) = decode_info_reply(&d[..n], 0x5566_7701, 5) {
                assert!(i.clients.len() < 3, "cut at {n}");
            }
        }
    }

    /// Real DDNet 16.4 (sixup) answering the 0.7 handshake in the 0.7 format, with its own
    /// version string and the time-score flag.
    #[test]
    fn real_ddnet_answers_seven() {
        let d = fixture("ddnet_07_info.0");
        let info = decode_info_reply(&d, 0x1122_3344, 1000).unwrap();
        assert_eq!(info.version, "0.7\u{2194}0.6.4, 16.4");
        assert_eq!(info.name, "P3 DDNet");
        assert_eq!(info.flags, super::super::FLAG_TIMESCORE);
        assert_eq!((info.max_players, info.max_clients), (64, 64));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes, bare or after a valid header, never panic; lists stay capped.
        #[test]
        fn noise(body in proptest::collection::vec(any::<u8>(), 0..200), header in any::<bool>()) {
            let mut d = Vec::new();
            if header {
                d.extend_from_slice(b"\x21\x00\x00\x00\x07\x01\x02\x03\x04\xff\xff\xff\xffinf3\x05");
            }
            d.extend_from_slice(&body);
            if let Ok(i) = decode_info_reply(&d, 7, 5) {
                prop_assert!(i.clients.len() <= MAX_CLIENTS as usize);
                prop_assert!(i.clients.len() * 5 <= d.len());
            }
            let _ = decode_token_reply(&d, 7);
            let _ = decode_request(&d);
        }

        /// decode_info_reply(encode_info_reply(x)) == x.
        #[test]
        fn round_trip(n in 0usize..40, flags in 0u32..4, skill in any::<i32>(), browse in any::<i32>(),
                      name in "[a-zA-Z0-9 é(){}]{0,20}") {
            let info = Info {
                flavour: Flavour::Seven,
                version: "0.7.5".into(),
                name,
                hostname: Some("h".into()),
                map: "dm1".into(),
                game_type: "DM".into(),
                flags,
                skill_level: Some(skill),
                map_crc: None,
                map_size: None,
                num_players: 0,
                max_players: 8,
                num_clients: n as u32,
                max_clients: 64,
                clients: (0..n).map(|i| Client {
                    name: format!("t{i}"),
                    clan: String::new(),
                    country: i as i32 - 5,
                    score: i as i32 * 1000,
                    kind: [ClientKind::Player, ClientKind::Spectator, ClientKind::Bot][i % 3],
                }).collect(),
            };
            let mut out = Vec::new();
            encode_info_reply(&info, 7, 9, browse, &mut out);
            prop_assert_eq!(decode_info_reply(&out, 7, browse), Ok(info));
            out.clear();
            encode_info_request(9, 7, browse, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request::Info { server: 9, mine: 7, browse }));
        }
    }
}
