//! 0.6 server info (`gie3` / `inf3`) and DDNet's extended form (`iext` / `iex+`).
//!
//! # Format
//! ```text
//! request   header (6) | FF FF FF FF "gie3" | token (1 byte)
//!           header: FF×6 (plain 0.6), or "xe" | extra token (u16 BE) | FF FF (DDNet extended)
//! reply     FF×6 | FF FF FF FF | tag (4) | fields, each a NUL-terminated string
//! inf3      token | version | name | map | game type | flags | players | max players
//!           | clients | max clients, then per client (to the end, 16 at most):
//!           name | clan | country | score | is player ("1") or spectator ("0")
//! iext      token | version | name | map | map crc | map size | game type | flags | players
//!           | max players | clients | max clients | "" (reserved), then per client:
//!           name | clan | country | score | is player | "" (reserved)
//! iex+      token | packet number (1, 2, ...) | "" (reserved), then clients as in iext
//! ```
//! Numbers are decimal text. The `inf3` token echoes the request's token byte; `iext`/`iex+`
//! echo all 24 bits (extra << 8 | byte). A plain 0.6 server reads the `xe` header as a
//! connectionless one too (its flag nibble `7` has the connless bit), so one extended request
//! serves both: DDNet answers `iext`, vanilla 0.6 `inf3`.

use super::{check_counts, Client, ClientKind, Flavour, Info, MAX_CLIENTS};
use crate::protocol::{DecodeError, Reader};

/// The 4 bytes before every connectionless message's tag.
pub const PREFIX: [u8; 4] = [0xff; 4];
pub const GETINFO: &[u8; 4] = b"gie3";
/// DDNet's legacy 64-client request (`dtsf` reply); the simulator ignores it, we never send it.
pub const GETINFO_64: &[u8; 4] = b"fstd";
pub const INFO: &[u8; 4] = b"inf3";
pub const INFO_EXTENDED: &[u8; 4] = b"iext";
pub const INFO_MORE: &[u8; 4] = b"iex+";
/// Header (6) + prefix (4) + tag (4).
pub const REPLY_HEADER_LEN: usize = 14;
/// Tokens are 24 bits: the byte in the payload plus 16 in the extended header.
pub const TOKEN_MASK: u32 = 0x00ff_ffff;
/// 0.6 lists at most this many clients in `inf3`.
pub const VANILLA_MAX_LISTED: usize = 16;

/// Writes the DDNet extended info request (21 bytes), which plain 0.6 servers answer too.
pub fn encode_request(token: u32, out: &mut Vec<u8>) {
    let token = token & TOKEN_MASK;
    out.extend_from_slice(b"xe");
    out.extend_from_slice(&((token >> 8) as u16).to_be_bytes());
    out.extend_from_slice(&[0xff, 0xff]);
    out.extend_from_slice(&PREFIX);
    out.extend_from_slice(GETINFO);
    out.push(token as u8);
}

/// Writes the plain 0.6 request (tests and comparisons; we send the extended one).
pub fn encode_vanilla_request(token: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xff; 6]);
    out.extend_from_slice(&PREFIX);
    out.extend_from_slice(GETINFO);
    out.push(token);
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Came with the `xe` header: answer `iext`.
    pub extended: bool,
    /// 24 bits when extended, else the one byte.
    pub token: u32,
}

/// Decodes a `gie3` request, plain or extended; anything else is an error.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let mut r = Reader::new(datagram);
    let header = r.array::<6>()?;
    let extended = header[..2] == *b"xe" && header[4..] == [0xff, 0xff];
    if !extended && header != [0xff; 6] {
        return Err(DecodeError::Invalid("0.6 connless header"));
    }
    if r.array::<4>()? != PREFIX {
        return Err(DecodeError::Invalid("0.6 connless prefix"));
    }
    let tag = r.array::<4>()?;
    if &tag != GETINFO {
        return Err(DecodeError::UnexpectedType {
            what: "0.6 request",
            found: u32::from_be_bytes(tag),
        });
    }
    let byte = u32::from(r.u8()?);
    let token = if extended {
        u32::from(u16::from_be_bytes([header[2], header[3]])) << 8 | byte
    } else {
        byte
    };
    Ok(Request { extended, token })
}

/// Any 0.6-family reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// Plain `inf3`: complete in one datagram.
    Vanilla(Info),
    /// `iext`: packet 0 of a DDNet reply, with the counts and the first clients.
    Extended(Info),
    /// `iex+`: more clients of the reply whose `iext` carries the same token.
    More { packet: u32, clients: Vec<Client> },
}

/// Decodes a reply to our request with `token` (24 bits). A datagram with another tag or
/// another token is [`DecodeError::Mismatch`]: not an answer to us, keep waiting.
pub fn decode_reply(datagram: &[u8], token: u32) -> Result<Reply, DecodeError> {
    let token = token & TOKEN_MASK;
    if datagram.len() < REPLY_HEADER_LEN || datagram[6..10] != PREFIX {
        return Err(DecodeError::Mismatch("not a 0.6 connless reply"));
    }
    let tag = &datagram[10..14];
    let mut r = Reader::new(&datagram[REPLY_HEADER_LEN..]);
    if tag == INFO {
        if number(&mut r, "token")? != i64::from(token & 0xff) {
            return Err(DecodeError::Mismatch("0.6 token"));
        }
        return decode_vanilla(&mut r).map(Reply::Vanilla);
    }
    if tag != INFO_EXTENDED && tag != INFO_MORE {
        return Err(DecodeError::Mismatch("0.6 reply tag"));
    }
    if number(&mut r, "token")? != i64::from(token) {
        return Err(DecodeError::Mismatch("DDNet extended token"));
    }
    if tag == INFO_EXTENDED {
        return decode_extended(&mut r).map(Reply::Extended);
    }
    let packet = count(&mut r, "packet number")?;
    r.cstr()?; // reserved
    Ok(Reply::More {
        packet,
        clients: clients(&mut r, true)?,
    })
}

fn decode_vanilla(r: &mut Reader<'_>) -> Result<Info, DecodeError> {
    let version = r.cstring()?;
    let name = r.cstring()?;
    let map = r.cstring()?;
    let game_type = r.cstring()?;
    let flags = count(r, "flags")?;
    let [num_players, max_players, num_clients, max_clients] = counts(r)?;
    Ok(Info {
        flavour: Flavour::Vanilla06,
        version,
        name,
        hostname: None,
        map,
        game_type,
        flags,
        skill_level: None,
        map_crc: None,
        map_size: None,
        num_players,
        max_players,
        num_clients,
        max_clients,
        clients: clients(r, false)?,
    })
}

fn decode_extended(r: &mut Reader<'_>) -> Result<Info, DecodeError> {
    let version = r.cstring()?;
    let name = r.cstring()?;
    let map = r.cstring()?;
    // DDNet prints the CRC as a signed int ("-1924373370"): keep its 32 bits.
    let crc = number(r, "map crc")?;
    let map_crc = u32::try_from(crc)
        .ok()
        .or_else(|| i32::try_from(crc).ok().map(|c| c as u32))
        .ok_or(DecodeError::Invalid("map crc"))?;
    let map_size = count(r, "map size")?;
    let game_type = r.cstring()?;
    let flags = count(r, "flags")?;
    let [num_players, max_players, num_clients, max_clients] = counts(r)?;
    r.cstr()?; // reserved
    Ok(Info {
        flavour: Flavour::Ddnet,
        version,
        name,
        hostname: None,
        map,
        game_type,
        flags,
        skill_level: None,
        map_crc: Some(map_crc),
        map_size: Some(map_size),
        num_players,
        max_players,
        num_clients,
        max_clients,
        clients: clients(r, true)?,
    })
}

/// players, max players, clients, max clients, checked.
fn counts(r: &mut Reader<'_>) -> Result<[u32; 4], DecodeError> {
    let num_players = count(r, "player count")?;
    let max_players = count(r, "max players")?;
    let num_clients = count(r, "client count")?;
    let max_clients = count(r, "max clients")?;
    check_counts(num_players, num_clients, max_clients)?;
    Ok([num_players, max_players, num_clients, max_clients])
}

/// Clients to the end of the datagram. Each takes at least 10 bytes (5 strings, 2 of them
/// digits), so a datagram cannot list unboundedly many; the cap refuses lists that could
/// never be real before they grow.
fn clients(r: &mut Reader<'_>, extended: bool) -> Result<Vec<Client>, DecodeError> {
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_CLIENTS as usize {
            return Err(DecodeError::TooLarge {
                what: "listed clients",
                value: out.len() as u64 + 1,
                limit: MAX_CLIENTS.into(),
            });
        }
        let name = r.cstring()?;
        let clan = r.cstring()?;
        let country = int(r, "country")?;
        let score = int(r, "score")?;
        let kind = match number(r, "is player")? {
            0 => ClientKind::Spectator,
            _ => ClientKind::Player,
        };
        if extended {
            r.cstr()?; // reserved
        }
        out.push(Client {
            name,
            clan,
            country,
            score,
            kind,
        });
    }
    Ok(out)
}

/// A decimal field. Anything but an optional '-' and digits is invalid, as are values past
/// i64 (the parser refuses them without allocating).
fn number(r: &mut Reader<'_>, what: &'static str) -> Result<i64, DecodeError> {
    let bytes = r.cstr()?;
    std::str::from_utf8(bytes)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or(DecodeError::Invalid(what))
}

fn int(r: &mut Reader<'_>, what: &'static str) -> Result<i32, DecodeError> {
    i32::try_from(number(r, what)?).map_err(|_| DecodeError::Invalid(what))
}

fn count(r: &mut Reader<'_>, what: &'static str) -> Result<u32, DecodeError> {
    u32::try_from(number(r, what)?).map_err(|_| DecodeError::Invalid(what))
}

// ----- server side: what the simulator sends -----

fn reply_header(tag: &[u8; 4], out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xff; 6]);
    out.extend_from_slice(&PREFIX);
    out.extend_from_slice(tag);
}

fn put(out: &mut Vec<u8>, field: impl std::fmt::Display) {
    out.extend_from_slice(field.to_string().as_bytes());
    out.push(0);
}

fn put_client(out: &mut Vec<u8>, c: &Client, extended: bool) {
    put(out, &c.name);
    put(out, &c.clan);
    put(out, c.country);
    put(out, c.score);
    put(out, u8::from(c.kind != ClientKind::Spectator));
    if extended {
        out.push(0);
    }
}

/// Writes an `inf3` reply echoing the request's token byte, listing at most `max_listed`
/// clients (0.6 servers list [`VANILLA_MAX_LISTED`]; a hostile one may list more).
pub fn encode_vanilla(info: &Info, token: u8, max_listed: usize, out: &mut Vec<u8>) {
    reply_header(INFO, out);
    put(out, token);
    for s in [&info.version, &info.name, &info.map, &info.game_type] {
        put(out, s);
    }
    for n in [
        info.flags,
        info.num_players,
        info.max_players,
        info.num_clients,
        info.max_clients,
    ] {
        put(out, n);
    }
    for c in info.clients.iter().take(max_listed) {
        put_client(out, c, false);
    }
}

/// Writes a DDNet extended reply: `iext` with the header and the clients that fit in
/// `max_datagram` bytes, then `iex+` packets numbered from 1 for the rest. A client never
/// spans two packets; one too large for any packet still gets a packet of its own.
pub fn encode_extended(info: &Info, token: u32, max_datagram: usize) -> Vec<Vec<u8>> {
    let token = token & TOKEN_MASK;
    let mut first = Vec::new();
    reply_header(INFO_EXTENDED, &mut first);
    put(&mut first, token);
    put(&mut first, &info.version);
    put(&mut first, &info.name);
    put(&mut first, &info.map);
    put(&mut first, info.map_crc.unwrap_or(0) as i32);
    put(&mut first, info.map_size.unwrap_or(0));
    put(&mut first, &info.game_type);
    for n in [
        info.flags,
        info.num_players,
        info.max_players,
        info.num_clients,
        info.max_clients,
    ] {
        put(&mut first, n);
    }
    first.push(0);
    let mut packets = vec![first];
    let mut filled = 0usize; // clients in the newest packet
    for c in &info.clients {
        let mut bytes = Vec::new();
        put_client(&mut bytes, c, true);
        let last = packets.len() - 1;
        if filled > 0 && packets[last].len() + bytes.len() > max_datagram {
            let mut more = Vec::new();
            reply_header(INFO_MORE, &mut more);
            put(&mut more, token);
            put(&mut more, packets.len());
            more.push(0);
            packets.push(more);
            filled = 0;
        }
        let last = packets.len() - 1;
        packets[last].extend_from_slice(&bytes);
        filled += 1;
    }
    packets
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

    /// Byte for byte: the extended request with token 0x12342a.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(0x12342a, &mut out);
        assert_eq!(out, b"xe\x12\x34\xff\xff\xff\xff\xff\xffgie3\x2a");
        assert_eq!(
            decode_request(&out),
            Ok(Request {
                extended: true,
                token: 0x12342a
            })
        );
        out.clear();
        encode_vanilla_request(0x2a, &mut out);
        assert_eq!(out, b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffgie3\x2a");
        assert_eq!(
            decode_request(&out),
            Ok(Request {
                extended: false,
                token: 0x2a
            })
        );
        assert!(decode_request(b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xfffstd\x2a").is_err());
        // The extended header ends in ff ff, as we write it.
        assert!(decode_request(b"xe\x12\x34\x00\xff\xff\xff\xff\xffgie3\x2a").is_err());
    }

    /// Real DDNet 16.4, `sv_max_clients 64`, map Tutorial, two clients joined, answering our
    /// extended request with token 0x12342a (1193002): one `iext`.
    #[test]
    fn real_ddnet_extended_two_clients() {
        let mut d = Vec::new();
        d.extend_from_slice(b"\xff\xff\xff\xff\xff\xff"); // connless header
        d.extend_from_slice(b"\xff\xff\xff\xffiext"); // prefix, tag
        d.extend_from_slice(b"1193002\0"); // token: all 24 bits echoed
        d.extend_from_slice(b"0.6.4, 16.4\0"); // version: 0.6 network + DDNet release
        d.extend_from_slice(b"P3 DDNet\0"); // name
        d.extend_from_slice(b"Tutorial\0"); // map
        d.extend_from_slice(b"-1924373370\0"); // map crc, printed signed
        d.extend_from_slice(b"1082711\0"); // map size
        d.extend_from_slice(b"TestDDraceNetwor\0"); // game type, cut at 16 bytes by the server
        d.extend_from_slice(b"0\0"); // flags
        d.extend_from_slice(b"1\0"); // players
        d.extend_from_slice(b"64\0"); // max players
        d.extend_from_slice(b"2\0"); // clients
        d.extend_from_slice(b"64\0"); // max clients
        d.extend_from_slice(b"\0"); // reserved
        d.extend_from_slice(b"nameless tee\0clanA\x00276\0-9999\x001\0\0"); // player, Germany
        d.extend_from_slice(b"brainless tee\0\0-1\0-9999\x000\0\0"); // spectator, no clan/country
        assert_eq!(d, fixture("ddnet_two_ext.0"));
        let Ok(Reply::Extended(info)) = decode_reply(&d, 0x12342a) else {
            panic!("{:?}", decode_reply(&d, 0x12342a));
        };
        assert_eq!(info.flavour, Flavour::Ddnet);
        assert_eq!(info.version, "0.6.4, 16.4");
        assert_eq!(info.name, "P3 DDNet");
        assert_eq!(info.map, "Tutorial");
        assert_eq!(info.map_crc, Some(0x8d4c_6486));
        assert_eq!(info.map_size, Some(1_082_711));
        assert_eq!(info.game_type, "TestDDraceNetwor");
        assert_eq!(
            (
                info.num_players,
                info.max_players,
                info.num_clients,
                info.max_clients
            ),
            (1, 64, 2, 64)
        );
        assert_eq!(
            info.clients,
            vec![
                Client {
                    name: "nameless tee".into(),
                    clan: "clanA".into(),
                    country: 276,
                    score: -9999,
                    kind: ClientKind::Player
                },
                Client {
                    name: "brainless tee".into(),
                    clan: String::new(),
                    country: -1,
                    score: -9999,
                    kind: ClientKind::Spectator
                },
            ]
        );
        // Cut after every byte: an error each time, never a panic. (Cuts that end exactly
        // after a whole client are complete replies with fewer clients.)
        for n in 0..d.len() {
            if let Ok(Reply::Extended(i)) = decode_reply(&d[..n], 0x12342a) {
                assert!(i.clients.len() < 2, "cut at {n}");
            }
        }
        // Another token is not our answer.
        assert!(matches!(
            decode_reply(&d, 0x12342b),
            Err(DecodeError::Mismatch(_))
        ));
    }

    /// Real DDNet with 48 clients: `iext` (1362 bytes, the first 33 clients), then `iex+` packet 1
    /// (610 bytes, the other 15). Together they list every client the header counts.
    #[test]
    fn real_ddnet_multi_packet() {
        let first = fixture("ddnet_many_ext.0");
        let more = fixture("ddnet_many_ext.1");
        assert_eq!(
            &more[..30],
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffiex+1193002\x001\x00\x00tee31"
        );
        let Ok(Reply::Extended(info)) = decode_reply(&first, 0x12342a) else {
            panic!()
        };
        assert_eq!(
            (info.num_players, info.num_clients, info.max_clients),
            (37, 48, 64)
        );
        let Ok(Reply::More { packet, clients }) = decode_reply(&more, 0x12342a) else {
            panic!()
        };
        assert_eq!(packet, 1);
        assert_eq!(info.clients.len() + clients.len(), 48);
        assert_eq!(clients[0].name, "tee31 éé long"); // UTF-8, cut at 15 bytes by the server
        assert_eq!(clients[0].clan, "clan31 xyz");
        assert_eq!(
            (clients[0].country, clients[0].kind),
            (31, ClientKind::Player)
        );
        let players = info
            .clients
            .iter()
            .chain(&clients)
            .filter(|c| c.kind == ClientKind::Player)
            .count();
        assert_eq!(players, 37);
    }

    /// Real DDNet answering the plain 0.6 request with 48 clients on: it caps the counts at
    /// 16, lists 16 clients while saying 15, and appends the true counts to the name.
    #[test]
    fn real_ddnet_vanilla_caps() {
        let d = fixture("ddnet_many_06.0");
        let Ok(Reply::Vanilla(info)) = decode_reply(&d, 0x2a) else {
            panic!("{:?}", decode_reply(&d, 0x2a))
        };
        assert_eq!(info.name, "P3 DDNet [48/64]");
        assert_eq!(
            (
                info.num_players,
                info.max_players,
                info.num_clients,
                info.max_clients
            ),
            (15, 16, 15, 16)
        );
        assert_eq!(info.clients.len(), 16);
        // The token byte only: the extra 16 bits are not echoed in `inf3`.
        assert!(decode_reply(&d, 0x12342a).is_ok());
        assert!(matches!(
            decode_reply(&d, 0x2b),
            Err(DecodeError::Mismatch(_))
        ));
    }

    /// Real DDNet, empty: the plain reply, field by field.
    #[test]
    fn real_ddnet_vanilla_empty() {
        let mut d = b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffinf3".to_vec();
        d.extend_from_slice(b"42\0"); // token byte 0x2a
        d.extend_from_slice(b"0.6.4, 16.4\0P3 DDNet [0/64]\0Tutorial\0TestDDraceNetwor\0");
        d.extend_from_slice(b"0\0"); // flags
        d.extend_from_slice(b"0\x0016\x000\x0016\0"); // players, max 16, clients, max 16
        assert_eq!(d, fixture("ddnet_empty_06.0"));
        let Ok(Reply::Vanilla(info)) = decode_reply(&d, 42) else {
            panic!()
        };
        assert_eq!(
            (info.name.as_str(), info.max_clients),
            ("P3 DDNet [0/64]", 16)
        );
        assert!(info.clients.is_empty());
        for n in 0..d.len() {
            assert!(decode_reply(&d[..n], 42).is_err(), "cut at {n}");
        }
    }

    /// `fstd` (DDNet's older 64-slot form) and 0.7 replies are not ours to decode here.
    #[test]
    fn foreign_tags_mismatch() {
        for f in ["ddnet_many_fstd.0", "tw07_three_info.0", "tw07_token.0"] {
            assert!(
                matches!(
                    decode_reply(&fixture(f), 0x12342a),
                    Err(DecodeError::Mismatch(_))
                ),
                "{f}"
            );
        }
    }

    /// Hostile fields: bad numbers are invalid, 10,000 announced clients too large.
    #[test]
    fn hostile_fields() {
        let head = b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffinf342\0v\0n\0m\0g\0".to_vec();
        let with = |tail: &[u8]| {
            let mut d = head.clone();
            d.extend_from_slice(tail);
            decode_reply(&d, 42)
        };
        assert_eq!(
            with(b"x\x000\x0016\x000\x0016\0"),
            Err(DecodeError::Invalid("flags"))
        );
        assert_eq!(
            with(b"0\0-1\x0016\x000\x0016\0"),
            Err(DecodeError::Invalid("player count"))
        );
        assert_eq!(
            with(b"0\x0099999999999999999999\x0016\x000\x0016\0"),
            Err(DecodeError::Invalid("player count"))
        );
        assert!(matches!(
            with(b"0\x000\x0016\x0010000\x0016\0"),
            Err(DecodeError::TooLarge { .. })
        ));
        assert_eq!(
            with(b"0\x005\x0016\x004\x0016\0"),
            Err(DecodeError::Invalid("more players than clients"))
        );
    }

    fn info(clients: usize) -> Info {
        Info {
            flavour: Flavour::Ddnet,
            version: "0.6.4, 16.4".into(),
            name: "Sim".into(),
            hostname: None,
            map: "dm1".into(),
            game_type: "DM".into(),
            flags: 0,
            skill_level: None,
            map_crc: Some(0xdead_beef),
            map_size: Some(5805),
            num_players: clients as u32,
            max_players: 64,
            num_clients: clients as u32,
            max_clients: 64,
            clients: (0..clients)
                .map(|i| Client {
                    name: format!("tee {i}"),
                    clan: "c".into(),
                    country: i as i32 - 1,
                    score: -(i as i32),
                    kind: ClientKind::Player,
                })
                .collect(),
        }
    }

    /// The simulator's packets decode back to what it was given, split as DDNet splits.
    #[test]
    fn extended_round_trip_split() {
        let i = info(40);
        let packets = encode_extended(&i, 0xabcdef, 400);
        assert!(packets.len() > 2);
        let mut got = Vec::new();
        for (n, p) in packets.iter().enumerate() {
            assert!(p.len() <= 400);
            match decode_reply(p, 0xabcdef).unwrap() {
                Reply::Extended(head) => {
                    assert_eq!(n, 0);
                    assert_eq!(
                        Info {
                            clients: Vec::new(),
                            ..head.clone()
                        },
                        Info {
                            clients: Vec::new(),
                            ..i.clone()
                        }
                    );
                    got.extend(head.clients);
                }
                Reply::More { packet, clients } => {
                    assert_eq!(packet as usize, n);
                    got.extend(clients);
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(got, i.clients);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes, bare or behind a valid header and token, never panic, and any
        /// client list that decodes is within the cap and no longer than the datagram allows.
        #[test]
        fn noise(body in proptest::collection::vec(any::<u8>(), 0..200), tag in 0usize..4) {
            let tags: [&[u8]; 4] = [b"inf342\0", b"iext1193002\0", b"iex+1193002\0", b""];
            let mut d = b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff".to_vec();
            d.extend_from_slice(tags[tag]);
            d.extend_from_slice(&body);
            for input in [&d[..], &body[..]] {
                let listed = match decode_reply(input, 0x12342a) {
                    Ok(Reply::Vanilla(i)) | Ok(Reply::Extended(i)) => i.clients.len(),
                    Ok(Reply::More { clients, .. }) => clients.len(),
                    Err(_) => 0,
                };
                prop_assert!(listed <= MAX_CLIENTS as usize);
                prop_assert!(listed * 10 <= input.len());
                let _ = decode_request(input);
            }
        }

        /// Vanilla replies round-trip (at most 16 clients listed, as 0.6 sends).
        #[test]
        fn vanilla_round_trip(n in 0usize..16, token in any::<u8>()) {
            let mut i = info(n);
            i.flavour = Flavour::Vanilla06;
            i.map_crc = None;
            i.map_size = None;
            let mut out = Vec::new();
            encode_vanilla(&i, token, VANILLA_MAX_LISTED, &mut out);
            prop_assert_eq!(decode_reply(&out, u32::from(token) | 0x5500), Ok(Reply::Vanilla(i)));
        }
    }
}
