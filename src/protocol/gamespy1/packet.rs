//! One datagram of a reply: its key/value pairs, its `\queryid\` and whether it is `\final\`.

use super::DecodeError;

/// `\queryid\<id>.<part>`: which reply a datagram belongs to, and its number in it from 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryId {
    /// The server's counter of replies, kept as text: servers only ever compare it.
    pub id: String,
    pub part: u32,
}

/// One decoded datagram. `pairs` holds every pair but `queryid` and `final`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Packet {
    pub pairs: Vec<(String, String)>,
    pub query_id: Option<QueryId>,
    pub is_final: bool,
}

/// The most pairs [`decode_packet`] makes room for up front; more grow the list.
const ROOM: usize = 256;

/// How a server lays out a datagram: the servers differ, the decoder reads them all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Style {
    /// Unreal: `\k\v...\final\\queryid\44.1` (`final` before `queryid`).
    #[default]
    Unreal,
    /// `\queryid\44.1\k\v...\final\`, as Battlefield 1942 orders it.
    QueryIdFirst,
    /// netPanzer: `k\v...\final\`, no leading backslash, no `queryid`.
    Bare,
}

/// Server text: UTF-8 when it is valid UTF-8, else Latin-1 (every byte one character), which
/// is what the Windows servers of that era send.
pub fn text(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// Decodes one datagram. NULs and line ends ending the datagram or any key or value (some
/// servers send them) are ignored; a leading backslash is optional; a last key without a value
/// gets an empty one.
///
/// Errors: a `queryid` that is not `<id>.<n>` with `n` from 1 ([`DecodeError::Invalid`]); a
/// datagram with no pair at all ([`DecodeError::Invalid`]).
pub fn decode_packet(datagram: &[u8]) -> Result<Packet, DecodeError> {
    let body = trim_end(datagram);
    let body = body.strip_prefix(b"\\").unwrap_or(body);
    if body.is_empty() {
        return Err(DecodeError::Invalid("empty GameSpy 1 datagram"));
    }
    let mut tokens = body.split(|&b| b == b'\\');
    // Room for the pairs a datagram of this size usually holds (a key, a value and two
    // separators average more than 12 bytes), so the list rarely regrows on the way; capped,
    // and guessed from the length: counting the separators first cost more than regrowing.
    let mut packet = Packet {
        pairs: Vec::with_capacity((body.len() / 12 + 1).min(ROOM)),
        ..Packet::default()
    };
    while let Some(key) = tokens.next() {
        let key = trim_end(key);
        let value = trim_end(tokens.next().unwrap_or_default());
        if key.is_empty() && value.is_empty() {
            // `\k\v\` ends with one separator too many, or `\\` runs: nothing to keep.
            continue;
        }
        if key.eq_ignore_ascii_case(b"final") {
            packet.is_final = true;
        } else if key.eq_ignore_ascii_case(b"queryid") {
            if packet.query_id.is_none() {
                packet.query_id = Some(query_id(value)?);
            }
        } else {
            packet.pairs.push((text(key), text(value)));
        }
    }
    if packet.pairs.is_empty() && packet.query_id.is_none() && !packet.is_final {
        return Err(DecodeError::Invalid("empty GameSpy 1 datagram"));
    }
    Ok(packet)
}

fn trim_end(token: &[u8]) -> &[u8] {
    let end = token
        .iter()
        .rposition(|&b| !matches!(b, 0 | b'\n' | b'\r'))
        .map_or(0, |i| i + 1);
    &token[..end]
}

/// `44.1` -> id 44, part 1. A bare `44` (some servers number nothing) is part 1.
fn query_id(value: &[u8]) -> Result<QueryId, DecodeError> {
    let (id, part) = match value.iter().rposition(|&b| b == b'.') {
        Some(dot) => (&value[..dot], &value[dot + 1..]),
        None => (value, &b"1"[..]),
    };
    let part = std::str::from_utf8(part)
        .ok()
        .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|p| p.parse::<u32>().ok())
        .filter(|&p| p >= 1)
        .ok_or(DecodeError::Invalid("queryid part number"))?;
    Ok(QueryId { id: text(id), part })
}

/// Writes one datagram in `style`. Backslashes inside keys and values would end them early,
/// so they are dropped, as servers do; `Style::Bare` leaves the query id out.
pub fn encode_packet(packet: &Packet, style: Style, out: &mut Vec<u8>) {
    let field = |out: &mut Vec<u8>, s: &str| {
        out.push(b'\\');
        out.extend(s.bytes().filter(|&b| b != b'\\'));
    };
    let start = out.len();
    let query_id = |out: &mut Vec<u8>| {
        if let Some(q) = &packet.query_id {
            field(out, "queryid");
            field(out, &format!("{}.{}", q.id, q.part));
        }
    };
    if style == Style::QueryIdFirst {
        query_id(out);
    }
    for (k, v) in &packet.pairs {
        field(out, k);
        field(out, v);
    }
    if packet.is_final {
        field(out, "final");
        out.push(b'\\');
    }
    if style == Style::Unreal {
        query_id(out);
    }
    if style == Style::Bare && out.len() > start {
        out.remove(start);
    }
}

/// Splits a reply's pairs into numbered datagrams of at most about `budget` bytes each (a
/// pair never spans two; one pair longer than the budget gets a datagram of its own), the
/// last one `\final\`, all with query id `id`, as a server sends them. `Style::Bare` makes one
/// un-numbered datagram whatever the budget.
pub fn encode_reply(
    pairs: &[(String, String)],
    id: u32,
    budget: usize,
    style: Style,
) -> Vec<Vec<u8>> {
    if style == Style::Bare {
        let mut out = Vec::new();
        let packet = Packet {
            pairs: pairs.to_vec(),
            query_id: None,
            is_final: true,
        };
        encode_packet(&packet, style, &mut out);
        return vec![out];
    }
    let mut groups: Vec<Vec<(String, String)>> = vec![Vec::new()];
    let mut used = 0;
    for (k, v) in pairs {
        let size = k.len() + v.len() + 2;
        if used + size > budget && groups.last().is_some_and(|g| !g.is_empty()) {
            groups.push(Vec::new());
            used = 0;
        }
        used += size;
        if let Some(g) = groups.last_mut() {
            g.push((k.clone(), v.clone()));
        }
    }
    let count = groups.len();
    groups
        .into_iter()
        .enumerate()
        .map(|(i, pairs)| {
            let packet = Packet {
                pairs,
                query_id: Some(QueryId {
                    id: id.to_string(),
                    part: u32::try_from(i + 1).unwrap_or(u32::MAX),
                }),
                is_final: i + 1 == count,
            };
            let mut out = Vec::new();
            encode_packet(&packet, style, &mut out);
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Unreal Tournament 99's last datagram, field by field: pairs, `\final\` with its empty
    /// value, then the query id (reply 44, part 2).
    #[test]
    fn unreal_layout() {
        let d = b"\\hostname\\My UT Server\\numplayers\\1\\final\\\\queryid\\44.2";
        let p = decode_packet(d).unwrap();
        assert_eq!(
            p.pairs,
            pairs(&[("hostname", "My UT Server"), ("numplayers", "1")])
        );
        assert_eq!(
            p.query_id,
            Some(QueryId {
                id: "44".into(),
                part: 2
            })
        );
        assert!(p.is_final);
        let mut out = Vec::new();
        encode_packet(&p, Style::Unreal, &mut out);
        assert_eq!(out, d);
    }

    /// The query id may come first; a datagram that is not the last has no `\final\`.
    #[test]
    fn query_id_first() {
        let d = b"\\queryid\\7.1\\mapname\\Wake";
        let p = decode_packet(d).unwrap();
        assert_eq!(p.pairs, pairs(&[("mapname", "Wake")]));
        assert_eq!(
            p.query_id,
            Some(QueryId {
                id: "7".into(),
                part: 1
            })
        );
        assert!(!p.is_final);
        let mut out = Vec::new();
        encode_packet(&p, Style::QueryIdFirst, &mut out);
        assert_eq!(out, d);
    }

    /// netPanzer: no leading backslash, no query id, `\final\` last, as in the captured
    /// fixture (tests/fixtures/gamespy1/).
    #[test]
    fn bare_layout() {
        let d = b"gamename\\netpanzer\\numplayers\\1\\final\\";
        let p = decode_packet(d).unwrap();
        assert_eq!(
            p.pairs,
            pairs(&[("gamename", "netpanzer"), ("numplayers", "1")])
        );
        assert_eq!((p.query_id.clone(), p.is_final), (None, true));
        let mut out = Vec::new();
        encode_packet(&p, Style::Bare, &mut out);
        assert_eq!(out, d);
    }

    /// Trailing NULs and newlines go; a dangling key gets an empty value; Latin-1 bytes
    /// become their characters, valid UTF-8 stays.
    #[test]
    fn tolerant_reading() {
        let p =
            decode_packet(b"\\hostname\\Caf\xe9\0\\map\\\xc3\xa9t\xc3\xa9\\dangling\0\n").unwrap();
        assert_eq!(
            p.pairs,
            pairs(&[("hostname", "Café"), ("map", "été"), ("dangling", "")])
        );
        assert_eq!(text(b"\xff\x80"), "ÿ\u{80}");
    }

    /// A bare query id is part 1; part 0, no digits or a huge number are errors.
    #[test]
    fn query_ids() {
        let p = decode_packet(b"\\queryid\\12\\final\\").unwrap();
        assert_eq!(
            p.query_id,
            Some(QueryId {
                id: "12".into(),
                part: 1
            })
        );
        for bad in [
            &b"\\queryid\\1.0"[..],
            b"\\queryid\\1.",
            b"\\queryid\\1.x",
            b"\\queryid\\1.99999999999",
        ] {
            assert_eq!(
                decode_packet(bad),
                Err(DecodeError::Invalid("queryid part number")),
                "{bad:?}"
            );
        }
        assert!(decode_packet(b"\0\0").is_err());
        assert!(decode_packet(b"\\").is_err());
    }

    /// A reply splits at pair boundaries within the budget, numbered from 1, the last final.
    #[test]
    fn reply_splitting() {
        let p = pairs(&[("a", "1"), ("b", "2"), ("c", "3")]);
        let parts = encode_reply(&p, 9, 8, Style::Unreal);
        assert_eq!(
            parts,
            vec![
                b"\\a\\1\\b\\2\\queryid\\9.1".to_vec(),
                b"\\c\\3\\final\\\\queryid\\9.2".to_vec(),
            ]
        );
        let bare = encode_reply(&p, 9, 8, Style::Bare);
        assert_eq!(bare, vec![b"a\\1\\b\\2\\c\\3\\final\\".to_vec()]);
    }

    fn word() -> impl Strategy<Value = String> {
        "[a-z_0-9]{1,8}".prop_filter("reserved", |k| k != "final" && k != "queryid")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic, and every pair decoded came from the input.
        #[test]
        fn decoder_survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
            if let Ok(p) = decode_packet(&bytes) {
                let chars: usize = p.pairs.iter().map(|(k, v)| k.chars().count() + v.chars().count()).sum();
                prop_assert!(chars <= bytes.len());
            }
        }

        /// Mutated real datagrams never panic.
        #[test]
        fn decoder_survives_mutations(pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut d = include_bytes!("../../../tests/fixtures/gamespy1/netpanzer_087_status.0.bin").to_vec();
            let i = pos.index(d.len());
            d[i] = byte;
            let _ = decode_packet(&d);
        }

        /// Every layout round-trips through the encoder, and a split reply reassembles to the
        /// same pairs in order.
        #[test]
        fn round_trip(
            kv in proptest::collection::vec((word(), "[ -\\[\\]-~é]{0,12}"), 1..20),
            id in any::<u32>(),
            budget in 1usize..200,
            style in prop_oneof![Just(Style::Unreal), Just(Style::QueryIdFirst), Just(Style::Bare)],
        ) {
            let parts = encode_reply(&kv, id, budget, style);
            let mut back = Vec::new();
            for (i, d) in parts.iter().enumerate() {
                let p = decode_packet(d).unwrap();
                prop_assert_eq!(p.is_final, i + 1 == parts.len());
                if style != Style::Bare {
                    prop_assert_eq!(p.query_id, Some(QueryId { id: id.to_string(), part: i as u32 + 1 }));
                }
                back.extend(p.pairs);
            }
            prop_assert_eq!(back, kv);
        }
    }
}
