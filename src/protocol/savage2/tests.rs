//! The Savage 2 codec on exact bytes: a reply laid out field by field as gamedig 5.3.3's
//! `savage2` reads it (the only reader), the round trip through the simulator's encoder,
//! cut and oversized datagrams, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn fixture() -> Vec<u8> {
    let mut b = vec![0x7E, 0x03, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]; // 12 bytes nobody reads
    b.extend(b"^rNewerth ^wFront\0"); // name, with colour codes
    b.push(9); // players
    b.push(32); // max
    b.extend(b"00:12:30\0"); // time
    b.extend(b"eden2\0"); // map
    b.extend(b"crossroads\0"); // next map
    b.extend(b"Europe\0"); // location
    b.push(2); // min players
    b.extend(b"RTSS\0"); // game type
    b.extend(b"2.1.0.0\0"); // version
    b.push(5); // min level
    b
}

#[test]
fn fields_in_order() {
    let i = decode(&fixture()).unwrap();
    assert_eq!(i.header[..2], [0x7E, 0x03]);
    assert_eq!(i.name, "^rNewerth ^wFront");
    assert_eq!((i.players, i.max), (9, 32));
    assert_eq!(
        (i.time.as_str(), i.map.as_str(), i.next_map.as_str()),
        ("00:12:30", "eden2", "crossroads")
    );
    assert_eq!(i.location, "Europe");
    assert_eq!((i.min_players, i.min_level), (2, 5));
    assert_eq!(
        (i.game_type.as_str(), i.version.as_str()),
        ("RTSS", "2.1.0.0")
    );
    let s = to_status(&i, Duration::from_millis(1), true);
    assert_eq!(s.name, "Newerth Front");
    assert_eq!((s.online, s.max), (9, 32));
    assert_eq!(s.map.as_deref(), Some("eden2"));
    assert_eq!(s.game.as_deref(), Some("RTSS"));
    assert_eq!(s.version.as_deref(), Some("2.1.0.0"));
    assert_eq!(s.password, None);
    assert_eq!(s.extras["next_map"], json!("crossroads"));
    assert_eq!(s.extras["raw_name"], json!("^rNewerth ^wFront"));
    let mut out = Vec::new();
    encode(&i, &mut out);
    assert_eq!(out, fixture());
}

#[test]
fn colour_codes() {
    assert_eq!(strip_colours("^^a^"), "a");
    assert_eq!(strip_colours("plain"), "plain");
}

/// A cut reply is broken where it ended; past the cap too large.
#[test]
fn cut_and_oversized() {
    let f = fixture();
    assert!(matches!(
        decode(&f[..5]),
        Err(DecodeError::Truncated { .. })
    ));
    assert!(matches!(
        decode(&f[..20]),
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
    }

    #[test]
    fn round_trip(name in "[ -~]{0,60}", map in "[ -~]{0,30}", players in any::<u8>(), max in any::<u8>()) {
        let i = Info { name, map, players, max, ..Info::default() };
        let mut out = Vec::new();
        encode(&i, &mut out);
        prop_assert_eq!(decode(&out).unwrap(), i);
    }
}

/// The checked-in `exchanges` fuzz seed (arm 24, detail asked) finishes a poll with the
/// fixture's counts.
#[test]
fn exchanges_seed_finishes_a_poll() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use std::time::Instant;

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/exchanges/savage2-reply"
    );
    let seed = std::fs::read(path).unwrap();
    assert_eq!(&seed[..2], [0xa7, 24]);
    let params = Params {
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = exchange::new(&params, deadline);
    let st = replay(&mut x, start, deadline, &seed[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!(
        (st.online, st.max, st.name.as_str()),
        (9, 32, "Newerth Front")
    );
}
