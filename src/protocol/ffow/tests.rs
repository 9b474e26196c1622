//! The Frontlines codec on exact bytes: a reply laid out field by field as qstat 2.17's
//! `fl.c` and gamedig 5.3.3's `ffow` both read it, the round trip through the simulator's
//! encoder, cut and foreign datagrams, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn fixture() -> Vec<u8> {
    let mut b = vec![0xFF, 0xFF, 0xFF, 0xFF, b'I'];
    b.push(7); // protocol
    b.extend(b"Frontline Ops\0"); // name
    b.extend(b"FL-Village\0"); // map
    b.extend(b"ffow\0"); // mod
    b.extend(b"Frontlines\0"); // game mode
    b.extend(b"Frontlines: Fuel of War\0"); // description
    b.extend(b"1.0.3\0"); // version
    b.extend([0x15, 0x64]); // game port 5476, big-endian
    b.push(12); // players
    b.push(50); // max
    b.push(b'd'); // dedicated
    b.push(b'w'); // os
    b.push(1); // password
    b.push(0); // anti-cheat
    b.push(30); // frame time
    b.push(2); // round
    b.push(3); // rounds
    b.extend([0x01, 0x2c]); // 300 s left, big-endian
    b
}

#[test]
fn fields_in_order() {
    let i = decode(&fixture()).unwrap();
    assert_eq!(i.protocol, 7);
    assert_eq!(i.name, "Frontline Ops");
    assert_eq!(i.map, "FL-Village");
    assert_eq!(i.game_mod, "ffow");
    assert_eq!(i.mode, "Frontlines");
    assert_eq!(i.description, "Frontlines: Fuel of War");
    assert_eq!(i.version, "1.0.3");
    assert_eq!(i.game_port, 5476);
    assert_eq!((i.players, i.max), (12, 50));
    assert_eq!((i.dedicated, i.os), (b'd', b'w'));
    assert!(i.password && !i.anticheat);
    assert_eq!(
        (i.frame_time, i.round, i.rounds, i.seconds_left),
        (30, 2, 3, 300)
    );
    let s = to_status(&i, Duration::from_millis(1), true);
    assert_eq!((s.online, s.max), (12, 50));
    assert_eq!(s.name, "Frontline Ops");
    assert_eq!(s.map.as_deref(), Some("FL-Village"));
    assert_eq!(s.game.as_deref(), Some("ffow"));
    assert_eq!(s.version.as_deref(), Some("1.0.3"));
    assert_eq!(s.password, Some(true));
    assert_eq!(s.extras["seconds_left"], json!(300));
    assert_eq!(s.extras["dedicated"], json!(true));
    assert_eq!(s.extras["os"], json!("w"));
    let mut out = Vec::new();
    encode(&i, &mut out);
    assert_eq!(out, fixture());
}

/// Other replies are skipped (`Mismatch`); a cut one is broken; past the cap too large.
#[test]
fn foreign_cut_and_oversized() {
    assert!(matches!(
        decode(b"\xFF\xFF\xFF\xFFA\x01\x02\x03\x04"),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(matches!(decode(b"\xFF\xFF"), Err(DecodeError::Mismatch(_))));
    let f = fixture();
    assert!(matches!(
        decode(&f[..10]),
        Err(DecodeError::Unterminated { .. })
    ));
    assert!(matches!(
        decode(&f[..f.len() - 1]),
        Err(DecodeError::Truncated { .. })
    ));
    let mut big = f.clone();
    big.resize(MAX_REPLY + 1, 0);
    assert!(matches!(decode(&big), Err(DecodeError::TooLarge { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(i) = decode(&bytes) {
            let _ = to_status(&i, Duration::ZERO, true);
        }
        let mut framed = b"\xFF\xFF\xFF\xFFI".to_vec();
        framed.extend(&bytes);
        if let Ok(i) = decode(&framed) {
            let _ = to_status(&i, Duration::ZERO, true);
        }
    }

    #[test]
    fn round_trip(name in "[ -~]{0,60}", map in "[ -~]{0,30}", players in any::<u8>(), max in any::<u8>(), left in any::<u16>()) {
        let i = Info { name, map, players, max, seconds_left: left, ..Info::default() };
        let mut out = Vec::new();
        encode(&i, &mut out);
        prop_assert_eq!(decode(&out).unwrap(), i);
    }
}
