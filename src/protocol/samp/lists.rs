//! The list replies: `r` (rules), `c` (players) and `d` (detailed players).
//!
//! Each starts with a u16 count after the echoed header. A count is refused before anything
//! is reserved when the rest of the datagram could not hold that many entries.

use encoding_rs::Encoding;

use super::{
    check_header, check_header_in, encode_header, encode_header_as, read_count, read_str8,
    write_str8, Dialect, Header, Opcode,
};
use crate::protocol::DecodeError;

/// `r`: count (u16), then per rule name and value, each a u8 length + bytes.
pub fn decode_rules(
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<Vec<(String, String)>, DecodeError> {
    let mut r = check_header(datagram, expect, Opcode::Rules)?;
    // The smallest rule is two empty strings: two length bytes.
    let count = read_count(&mut r, "SA:MP rule count", 2)?;
    let mut rules = Vec::with_capacity(count);
    for _ in 0..count {
        let name = read_str8(&mut r, encoding)?;
        let value = read_str8(&mut r, encoding)?;
        rules.push((name, value));
    }
    Ok(rules)
}

/// Writes an `r` reply; names and values longer than 255 bytes are cut, as the field demands.
pub fn encode_rules(
    header: &Header,
    rules: &[(String, String)],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    encode_header(header, Opcode::Rules, out);
    let rules = &rules[..rules.len().min(u16::MAX.into())];
    out.extend_from_slice(&(rules.len() as u16).to_le_bytes());
    for (name, value) in rules {
        write_str8(name, encoding, out);
        write_str8(value, encoding, out);
    }
}

/// One entry of a `c` reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Client {
    pub name: String,
    pub score: i32,
}

/// `c`: count (u16), then per player name (u8 length + bytes) and score (i32).
pub fn decode_clients(
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<Vec<Client>, DecodeError> {
    decode_clients_in(&Dialect::SAMP, datagram, expect, encoding)
}

/// [`decode_clients`] in `dialect`; where its entries carry no score, each `score` is 0.
pub fn decode_clients_in(
    dialect: &Dialect,
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<Vec<Client>, DecodeError> {
    let mut r = check_header_in(dialect, datagram, expect, Opcode::Clients)?;
    let score_len = if dialect.client_scores { 4 } else { 0 };
    let count = read_count(&mut r, "SA:MP player count", 1 + score_len)?;
    let mut players = Vec::with_capacity(count);
    for _ in 0..count {
        let name = read_str8(&mut r, encoding)?;
        let score = if dialect.client_scores {
            r.i32_le()?
        } else {
            0
        };
        players.push(Client { name, score });
    }
    Ok(players)
}

pub fn encode_clients(
    header: &Header,
    players: &[Client],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    encode_clients_in(&Dialect::SAMP, header, players, encoding, out);
}

/// [`encode_clients`] in `dialect` (server side): its reply magic, scores only where its
/// entries carry them.
pub fn encode_clients_in(
    dialect: &Dialect,
    header: &Header,
    players: &[Client],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    encode_header_as(&dialect.reply_magic, header, Opcode::Clients, out);
    let players = &players[..players.len().min(u16::MAX.into())];
    out.extend_from_slice(&(players.len() as u16).to_le_bytes());
    for p in players {
        write_str8(&p.name, encoding, out);
        if dialect.client_scores {
            out.extend_from_slice(&p.score.to_le_bytes());
        }
    }
}

/// One entry of a `d` reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detailed {
    pub id: u8,
    pub name: String,
    pub score: i32,
    /// Milliseconds.
    pub ping: u32,
}

/// `d`: count (u16), then per player id (u8), name (u8 length + bytes), score (i32), ping (u32).
pub fn decode_detailed(
    datagram: &[u8],
    expect: &Header,
    encoding: &'static Encoding,
) -> Result<Vec<Detailed>, DecodeError> {
    let mut r = check_header(datagram, expect, Opcode::Detailed)?;
    let count = read_count(&mut r, "SA:MP player count", 1 + 1 + 4 + 4)?;
    let mut players = Vec::with_capacity(count);
    for _ in 0..count {
        let id = r.u8()?;
        let name = read_str8(&mut r, encoding)?;
        let score = r.i32_le()?;
        let ping = r.u32_le()?;
        players.push(Detailed {
            id,
            name,
            score,
            ping,
        });
    }
    Ok(players)
}

pub fn encode_detailed(
    header: &Header,
    players: &[Detailed],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    encode_header(header, Opcode::Detailed, out);
    let players = &players[..players.len().min(u16::MAX.into())];
    out.extend_from_slice(&(players.len() as u16).to_le_bytes());
    for p in players {
        out.push(p.id);
        write_str8(&p.name, encoding, out);
        out.extend_from_slice(&p.score.to_le_bytes());
        out.extend_from_slice(&p.ping.to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use encoding_rs::{WINDOWS_1251, WINDOWS_1252};
    use proptest::prelude::*;

    use super::*;

    const H: Header = Header {
        ip: Ipv4Addr::new(192, 168, 1, 2),
        port: 7778,
    };
    const HDR: &[u8] = b"SAMP\xc0\xa8\x01\x02\x62\x1e";

    fn reply(op: u8, body: &[u8]) -> Vec<u8> {
        let mut d = HDR.to_vec();
        d.push(op);
        d.extend_from_slice(body);
        d
    }

    /// A hand-built `r` reply decodes to its pairs in order, empty values included.
    #[test]
    fn rules_by_hand() {
        let d = reply(b'r', b"\x02\x00\x07version\x0a0.3.7-R2-1\x06weburl\x00");
        assert_eq!(
            decode_rules(&d, &H, WINDOWS_1252),
            Ok(vec![
                ("version".into(), "0.3.7-R2-1".into()),
                ("weburl".into(), String::new())
            ])
        );
    }

    /// A hand-built `c` reply decodes names and signed scores.
    #[test]
    fn clients_by_hand() {
        let d = reply(
            b'c',
            b"\x02\x00\x03Bob\x0a\x00\x00\x00\x05Alice\xff\xff\xff\xff",
        );
        assert_eq!(
            decode_clients(&d, &H, WINDOWS_1252),
            Ok(vec![
                Client {
                    name: "Bob".into(),
                    score: 10
                },
                Client {
                    name: "Alice".into(),
                    score: -1
                },
            ])
        );
    }

    /// A hand-built `d` reply decodes id, name, score and ping; names in Windows-1251.
    #[test]
    fn detailed_by_hand() {
        let d = reply(
            b'd',
            b"\x01\x00\x07\x04\xc8\xe2\xe0\xed\x05\x00\x00\x00\x2a\x00\x00\x00",
        );
        assert_eq!(
            decode_detailed(&d, &H, WINDOWS_1251),
            Ok(vec![Detailed {
                id: 7,
                name: "Иван".into(),
                score: 5,
                ping: 42
            }])
        );
    }

    /// A count larger than the datagram could hold is refused before allocating, as a broken
    /// reply (the count points past what arrived), not as one above a cap.
    #[test]
    fn counts_capped_by_what_arrived() {
        let d = reply(b'c', b"\xff\xff\x03Bob\x0a\x00\x00\x00");
        assert_eq!(
            decode_clients(&d, &H, WINDOWS_1252),
            Err(DecodeError::Overrun {
                what: "SA:MP player count",
                value: 65535,
                fits: 1
            })
        );
        let d = reply(b'd', b"\x02\x00");
        assert!(matches!(
            decode_detailed(&d, &H, WINDOWS_1252),
            Err(DecodeError::Overrun { .. })
        ));
        let d = reply(b'r', b"\x05\x00\x00\x00");
        assert!(matches!(
            decode_rules(&d, &H, WINDOWS_1252),
            Err(DecodeError::Overrun { .. })
        ));
    }

    /// A name length past the end of the datagram is truncation.
    #[test]
    fn name_beyond_datagram() {
        let d = reply(b'c', b"\x01\x00\xffBob\x00\x00\x00\x00");
        assert!(matches!(
            decode_clients(&d, &H, WINDOWS_1252),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// Replies to another opcode are mismatches, not misreads.
    #[test]
    fn wrong_opcode_is_mismatch() {
        let d = reply(b'c', b"\x00\x00");
        assert!(matches!(
            decode_detailed(&d, &H, WINDOWS_1252),
            Err(DecodeError::Mismatch(_))
        ));
        assert_eq!(decode_clients(&d, &H, WINDOWS_1252), Ok(vec![]));
    }

    fn text() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9_\\[\\]. éü€-]{0,24}"
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bodies behind a valid header never panic any list decoder.
        #[test]
        fn decoders_survive_noise(body in proptest::collection::vec(any::<u8>(), 0..128)) {
            let _ = decode_rules(&reply(b'r', &body), &H, WINDOWS_1252);
            let _ = decode_clients(&reply(b'c', &body), &H, WINDOWS_1251);
            let _ = decode_detailed(&reply(b'd', &body), &H, WINDOWS_1252);
            let _ = decode_rules(&body, &H, WINDOWS_1252);
        }

        /// decode_rules(encode_rules(x)) == x.
        #[test]
        fn rules_round_trip(rules in proptest::collection::vec((text(), text()), 0..20)) {
            let mut out = Vec::new();
            encode_rules(&H, &rules, WINDOWS_1252, &mut out);
            prop_assert_eq!(decode_rules(&out, &H, WINDOWS_1252), Ok(rules));
        }

        /// decode_clients(encode_clients(x)) == x.
        #[test]
        fn clients_round_trip(players in proptest::collection::vec((text(), any::<i32>()), 0..20)) {
            let players: Vec<Client> = players.into_iter().map(|(name, score)| Client { name, score }).collect();
            let mut out = Vec::new();
            encode_clients(&H, &players, WINDOWS_1252, &mut out);
            prop_assert_eq!(decode_clients(&out, &H, WINDOWS_1252), Ok(players));
        }

        /// decode_detailed(encode_detailed(x)) == x.
        #[test]
        fn detailed_round_trip(players in proptest::collection::vec((any::<u8>(), text(), any::<i32>(), any::<u32>()), 0..20)) {
            let players: Vec<Detailed> = players.into_iter()
                .map(|(id, name, score, ping)| Detailed { id, name, score, ping }).collect();
            let mut out = Vec::new();
            encode_detailed(&H, &players, WINDOWS_1252, &mut out);
            prop_assert_eq!(decode_detailed(&out, &H, WINDOWS_1252), Ok(players));
        }
    }
}
