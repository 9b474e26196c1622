//! The Mafia II query byte for byte as gamedig 5.3.3 reads it, broken replies, arbitrary
//! bytes.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

/// Mafia II Online's dialect, written out here so the codec's tests need no other module.
const PINGS: Dialect = Dialect {
    magic: b"M2Online",
    pings: true,
};

#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(&DIALECT, &mut out);
    assert_eq!(out, b"M2MP");
    assert!(is_request(&DIALECT, &out));
    assert!(!is_request(&PINGS, &out));
}

/// A reply laid out field by field from gamedig 5.3.3's reader: every string's length byte
/// counts itself.
fn fixture() -> Vec<u8> {
    let mut d = b"M2MP".to_vec();
    d.push(9);
    d.extend_from_slice(b"Empire B");
    d.push(2);
    d.extend_from_slice(b"2");
    d.push(3);
    d.extend_from_slice(b"64");
    d.push(8);
    d.extend_from_slice(b"Freeroa");
    d.push(1); // password
    d.push(6);
    d.extend_from_slice(b"Vito\xe9");
    d.push(4);
    d.extend_from_slice(b"Joe");
    d
}

#[test]
fn reply_field_by_field() {
    let d = fixture();
    let r = decode_reply(&DIALECT, &d).unwrap();
    assert_eq!(r.name, "Empire B");
    assert_eq!((r.players, r.max), (2, 64));
    assert_eq!(r.gamemode, "Freeroa");
    assert!(r.password);
    assert_eq!(
        r.list,
        vec![
            Record {
                name: "Vitoé".into(),
                ping: None
            },
            Record {
                name: "Joe".into(),
                ping: None
            }
        ]
    );
    let s = to_status(
        &r,
        Want {
            players: true,
            detail: true,
        },
        Duration::ZERO,
    );
    assert_eq!((s.online, s.max, s.password), (2, 64, Some(true)));
    assert_eq!(s.game.as_deref(), Some("Freeroa"));
    assert_eq!(s.players.as_ref().unwrap()[0].name, "Vitoé");
    assert_eq!(s.extras["listed"], 2);
    let mut ours = Vec::new();
    encode_reply(&DIALECT, &r, &mut ours);
    assert_eq!(ours, d);
}

/// Mafia II Online's: a ping after each name.
#[test]
fn pings_dialect() {
    let mut d = b"M2Online".to_vec();
    d.extend_from_slice(b"\x02S\x021\x0332\x02m\x00\x04Ann\x0345");
    let r = decode_reply(&PINGS, &d).unwrap();
    assert_eq!((r.name.as_str(), r.players, r.max), ("S", 1, 32));
    assert!(!r.password);
    assert_eq!(
        r.list,
        vec![Record {
            name: "Ann".into(),
            ping: Some(45)
        }]
    );
    let s = to_status(
        &r,
        Want {
            players: true,
            detail: false,
        },
        Duration::ZERO,
    );
    assert_eq!(s.players.unwrap()[0].ping, Some(45));
    // The other dialect's magic is not ours.
    assert!(matches!(
        decode_reply(&DIALECT, &d),
        Err(DecodeError::Mismatch(_))
    ));
}

/// The list stops at an empty name (length byte 1, or 0 as gamedig reads it).
#[test]
fn empty_name_ends_the_list() {
    for end in [0u8, 1] {
        let mut d = fixture();
        d.push(end);
        d.extend_from_slice(b"\x04Zed");
        let r = decode_reply(&DIALECT, &d).unwrap();
        assert_eq!(r.list.len(), 2, "{end}");
    }
}

#[test]
fn broken_replies() {
    let d = fixture();
    assert!(matches!(
        decode_reply(&DIALECT, &d[1..]),
        Err(DecodeError::Mismatch(_))
    ));
    // Cut in the last name: its length says more than came.
    assert!(matches!(
        decode_reply(&DIALECT, &d[..d.len() - 1]),
        Err(DecodeError::Truncated { .. })
    ));
    // Cut before the password byte.
    assert!(decode_reply(&DIALECT, &d[..4 + 9 + 2 + 3 + 8]).is_err());
    // A server name's length past the end.
    let mut lying = d.clone();
    lying[4] = 255;
    assert!(matches!(
        decode_reply(&DIALECT, &lying),
        Err(DecodeError::Truncated { .. })
    ));
    // A player count that is no number.
    let mut text = d.clone();
    text[4 + 9 + 1] = b'x';
    assert!(matches!(
        decode_reply(&DIALECT, &text),
        Err(DecodeError::Invalid(_))
    ));
    let mut big = fixture();
    big.resize(MAX_REPLY + 1, 1);
    assert!(matches!(
        decode_reply(&DIALECT, &big),
        Err(DecodeError::TooLarge { .. })
    ));
}

proptest! {
    #[test]
    fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        for dialect in [DIALECT, PINGS] {
            let mut d = dialect.magic.to_vec();
            d.extend_from_slice(&body);
            let _ = decode_reply(&dialect, &d);
            let _ = decode_reply(&dialect, &body);
        }
    }

    #[test]
    fn round_trip(
        pings: bool,
        name in "[ -~]{0,60}",
        gamemode in "[ -~]{0,20}",
        players: u32, max: u32, password: bool,
        list in proptest::collection::vec(("[!-~][ -~]{0,20}", any::<u32>()), 0..10),
    ) {
        let dialect = if pings { PINGS } else { DIALECT };
        let list = list
            .into_iter()
            .map(|(name, ping)| Record { name, ping: pings.then_some(ping) })
            .collect();
        let r = Reply { name, players, max, gamemode, password, list };
        let mut d = Vec::new();
        encode_reply(&dialect, &r, &mut d);
        prop_assert_eq!(decode_reply(&dialect, &d).unwrap(), r);
    }
}

/// The checked-in `exchanges` fuzz seeds (arms 25 and 26: the pick byte, the arm byte, then
/// the replay script) reach a status in their dialects.
#[test]
fn fuzz_seeds_replay_to_a_status() {
    use std::time::Instant;

    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;

    let seeds: [(&[u8], Dialect, u32); 2] = [
        (
            include_bytes!("../../../fuzz/corpus/exchanges/mafia2mp-reply"),
            DIALECT,
            64,
        ),
        (
            include_bytes!("../../../fuzz/corpus/exchanges/mafia2online-reply"),
            PINGS,
            100,
        ),
    ];
    for (seed, dialect, max) in seeds {
        let params = Params {
            players: true,
            ..Params::default()
        };
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let mut x = exchange::new(dialect, &params, deadline);
        let r = replay(&mut x, start, deadline, &seed[2..]);
        let status = r.result.unwrap().unwrap();
        assert_eq!((status.online, status.max), (2, max));
        assert_eq!(status.players.unwrap().len(), 2);
    }
}
