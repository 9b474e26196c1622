//! CS2D's reply byte for byte as gamedig 5.3.3 reads it, broken replies, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(&mut out);
    assert_eq!(out, [0x01, 0x00, 0xFB, 0x01, 0xF5, 0x03, 0xFB, 0x05]);
    assert!(is_request(&out));
}

/// A reply with the game mode byte and two players.
fn fixture() -> Vec<u8> {
    let mut d = vec![0x01, 0x00, 0xFB, 0x01];
    d.push(0b0010_0001); // password, game mode present
    d.push(8);
    d.extend_from_slice(b"CS2D Srv");
    d.push(8);
    d.extend_from_slice(b"de_cs2dm");
    d.extend_from_slice(&[2, 16, 1, 3, 0b101]); // players, max, game mode, bots, flags2
    d.extend_from_slice(&[0xFB, 0x05, 2]);
    d.push(1);
    d.push(5);
    d.extend_from_slice(b"Alice");
    d.push(1);
    d.extend_from_slice(&12i32.to_le_bytes());
    d.extend_from_slice(&3i32.to_le_bytes());
    d.push(2);
    d.push(3);
    d.extend_from_slice(b"Bob");
    d.push(2);
    d.extend_from_slice(&(-1i32).to_le_bytes());
    d.extend_from_slice(&7i32.to_le_bytes());
    d
}

#[test]
fn reply_field_by_field() {
    let d = fixture();
    let r = decode_reply(&d).unwrap();
    assert_eq!(r.flags, 0b0010_0001);
    assert_eq!((r.name.as_str(), r.map.as_str()), ("CS2D Srv", "de_cs2dm"));
    assert_eq!((r.players, r.max, r.game_mode, r.bots), (2, 16, Some(1), 3));
    assert_eq!(r.flags2, 0b101);
    let list = r.list.clone().unwrap();
    assert_eq!(
        list[1],
        Record {
            id: 2,
            name: "Bob".into(),
            team: 2,
            score: -1,
            deaths: 7
        }
    );
    let want = Want {
        players: true,
        detail: true,
    };
    let s = to_status(&r, want, Duration::ZERO);
    assert_eq!((s.online, s.max, s.bots), (2, 16, Some(3)));
    assert_eq!(s.password, Some(true));
    assert_eq!(s.players.unwrap()[0].score, Some(12));
    assert_eq!(s.extras["game_mode"], 1);
    let mut ours = Vec::new();
    encode_reply(&r, &mut ours);
    assert_eq!(ours, d);
}

/// Without flags bit 5 there is no game mode byte; without a list the status has none.
#[test]
fn no_game_mode_no_list() {
    let r = Reply {
        flags: 0,
        name: "x".into(),
        map: "m".into(),
        players: 0,
        max: 8,
        game_mode: None,
        bots: 0,
        flags2: 0,
        list: None,
    };
    let mut d = Vec::new();
    encode_reply(&r, &mut d);
    assert_eq!(d.len(), 4 + 1 + 2 + 2 + 4);
    assert_eq!(decode_reply(&d).unwrap(), r);
    let s = to_status(
        &r,
        Want {
            players: true,
            detail: false,
        },
        Duration::ZERO,
    );
    assert_eq!(s.players, None);
}

#[test]
fn broken_replies() {
    let d = fixture();
    assert!(matches!(
        decode_reply(&d[1..]),
        Err(DecodeError::Mismatch(_))
    ));
    // Cut in the last record.
    assert!(matches!(
        decode_reply(&d[..d.len() - 1]),
        Err(DecodeError::Truncated { .. })
    ));
    // A player count the datagram cannot hold.
    let at = d.windows(2).position(|p| p == [0xFB, 0x05]).unwrap() + 2;
    let mut lying = d.clone();
    lying[at] = 200;
    assert!(matches!(
        decode_reply(&lying),
        Err(DecodeError::Overrun { .. })
    ));
    // A name length past the end.
    let mut long = d[..6].to_vec();
    long[5] = 255;
    assert!(decode_reply(&long).is_err());
}

proptest! {
    #[test]
    fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..300)) {
        let mut d = REPLY_HEADER.to_vec();
        d.extend_from_slice(&body);
        let _ = decode_reply(&d);
        let _ = decode_reply(&body);
    }

    #[test]
    fn round_trip(
        flags in any::<u8>(),
        name in "[ -~]{0,40}",
        map in "[ -~]{0,20}",
        players: u8, max: u8, game_mode: Option<u8>, bots: u8, flags2: u8,
        list in proptest::option::of(proptest::collection::vec(
            (any::<u8>(), "[ -~]{0,16}", any::<u8>(), any::<i32>(), any::<i32>()), 0..8)),
    ) {
        let list = list.map(|l| l.into_iter()
            .map(|(id, name, team, score, deaths)| Record { id, name, team, score, deaths })
            .collect());
        let flags = (flags & !GAME_MODE) | if game_mode.is_some() { GAME_MODE } else { 0 };
        let r = Reply { flags, name, map, players, max, game_mode, bots, flags2, list };
        let mut d = Vec::new();
        encode_reply(&r, &mut d);
        prop_assert_eq!(decode_reply(&d).unwrap(), r);
    }
}
