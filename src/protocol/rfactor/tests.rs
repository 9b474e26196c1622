//! The rFactor codec on exact bytes: a reply laid out field by field at the offsets
//! gamedig's reader takes them (the one third-party reader of this query), the round trip
//! through the simulator's encoder, short and oversized datagrams, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn field(s: &[u8], n: usize) -> Vec<u8> {
    let mut v = s.to_vec();
    v.resize(n, 0);
    v
}

/// A reply written out byte by byte: every offset where gamedig 5.3.3's `rfactor` reads it.
fn fixture() -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(field(b"rFactor", 8)); // 0: gamename[8]
    b.push(1); // 8: full update
    b.extend([3, 0]); // 9: region 3
    b.extend([127, 0, 0, 1]); // 11: ip
    b.extend([0xe6, 0]); // 15: size 230 (the whole reply)
    b.extend([0x2c, 0x04]); // 17: version 1068
    b.extend([2, 0]); // 19: RaceCast version 2
    b.extend([0x5d, 0x86]); // 21: game port 34397
    b.extend([0xf9, 0x85]); // 23: query port 34297
    b.extend(field(b"rFactor", 20)); // 25: game[20]
    b.extend(field(b"Club Night \xe9t\xe9", 28)); // 45: name[28], Latin-1
    b.extend(field(b"Mills Metropark", 32)); // 73: track[32]
    b.extend(field(b"Welcome", 96)); // 105: motd[96]
    b.extend([0x05, 0]); // 201: aids
    b.extend([40, 0]); // 203: ping
    b.push(0); // 205: flags
    b.push(3); // 206: rate
    b.push(5); // 207: players
    b.push(20); // 208: max
    b.push(2); // 209: bots
    b.push(0x02 | 0x10); // 210: special: password, fixed setups
    b.push(1); // 211: damage
    b.extend([0, 0]); // 212: rules
    b.push(0); // 214: credits1
    b.extend([0, 0]); // 215: credits2
    b.extend([30, 0]); // 217: time
    b.extend([0xa0, 0]); // 219: laps 160/16 = 10
    b.extend([0, 0, 0]); // 221: pad
    assert_eq!(b.len(), FIXED_LEN);
    b.extend(b"F1|GT\0"); // 224: vehicles
    b
}

#[test]
fn fields_at_their_offsets() {
    let i = decode(&fixture()).unwrap();
    assert_eq!(i.gamename, "rFactor");
    assert_eq!((i.region, i.version, i.version_racecast), (3, 1068, 2));
    assert_eq!((i.game_port, i.query_port), (34397, 34297));
    assert_eq!(i.name, "Club Night été");
    assert_eq!(i.track, "Mills Metropark");
    assert_eq!(i.motd, "Welcome");
    assert_eq!((i.players, i.max, i.bots), (5, 20, 2));
    assert_eq!((i.ping, i.rate, i.damage), (40, 3, 1));
    assert_eq!((i.time, i.laps16), (30, 160));
    assert_eq!(i.vehicles, "F1|GT");
    let s = to_status(&i, Duration::from_millis(2), true);
    assert_eq!((s.online, s.max, s.bots), (5, 20, Some(2)));
    assert_eq!(s.name, "Club Night été");
    assert_eq!(s.map.as_deref(), Some("Mills Metropark"));
    assert_eq!(s.game.as_deref(), Some("rFactor"));
    assert_eq!(s.version.as_deref(), Some("1068"));
    assert_eq!(s.password, Some(true));
    assert_eq!(s.extras["laps"], json!(10.0));
    assert_eq!(s.extras["fixed_setups"], json!(true));
    assert_eq!(s.extras["racecast"], json!(false));
    assert_eq!(s.extras["vehicles"], json!("F1|GT"));
}

/// The simulator's encoder writes the same bytes.
#[test]
fn encoder_matches_fixture() {
    let i = decode(&fixture()).unwrap();
    let mut out = Vec::new();
    encode(&i, &mut out);
    // The encoder writes no flags, rules or credits and sets full update: the fixture's
    // are zero and one too.
    assert_eq!(out, fixture());
}

/// A reply cut anywhere in its fixed part is truncated at the field that did not fit; no
/// vehicles NUL is fine; a datagram past the cap is too large.
#[test]
fn short_and_oversized() {
    let f = fixture();
    for cut in [0, 7, 100, FIXED_LEN - 1] {
        assert!(
            matches!(decode(&f[..cut]), Err(DecodeError::Truncated { .. })),
            "{cut}"
        );
    }
    assert_eq!(decode(&f[..FIXED_LEN]).unwrap().vehicles, "");
    assert_eq!(decode(&f[..FIXED_LEN + 3]).unwrap().vehicles, "F1|");
    let mut big = f.clone();
    big.resize(MAX_REPLY + 1, b'x');
    assert!(matches!(decode(&big), Err(DecodeError::TooLarge { .. })));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        if let Ok(i) = decode(&bytes) {
            prop_assert!(bytes.len() >= FIXED_LEN);
            let _ = to_status(&i, Duration::ZERO, true);
        }
    }

    #[test]
    fn round_trip(name in "[ -~]{0,27}", players in any::<u8>(), max in any::<u8>(), vehicles in "[ -~]{0,100}") {
        let i = Info { name, players, max, vehicles, ..Info::default() };
        let mut out = Vec::new();
        encode(&i, &mut out);
        let back = decode(&out).unwrap();
        prop_assert_eq!(back.name, i.name);
        prop_assert_eq!((back.players, back.max), (i.players, i.max));
        prop_assert_eq!(back.vehicles, i.vehicles);
    }
}
