//! The Tribes / Starsiege codec on exact bytes: a Tribes reply laid out field by field as
//! qstat 2.17's `deal_with_tribes_packet` and gamedig 5.3.3's `tribes1` both read it, a
//! Starsiege reply as gamedig's `tribes1` reads its "Starsiege" branch (the only reader of
//! that layout), round trips through the simulator's encoder, cut, lying and foreign
//! datagrams, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn s8(b: &mut Vec<u8>, s: &[u8]) {
    b.push(s.len() as u8);
    b.extend(s);
}

fn tribes_fixture() -> Vec<u8> {
    let mut b = vec![0x63, 0x2A, 0x2A, 0x62]; // reply to 'b' with key "**" (qstat's)
    s8(&mut b, b"Tribes"); // game type
    s8(&mut b, b"1.11"); // version
    s8(&mut b, b"Broadside"); // name
    b.push(1); // dedicated
    b.push(0); // password
    b.push(2); // players
    b.push(32); // max
    b.extend([0x90, 0x01]); // cpu 400 MHz, little-endian
    s8(&mut b, b"base"); // mod
    s8(&mut b, b"CTF"); // mission type
    s8(&mut b, b"Raindance"); // map
    s8(&mut b, b"Welcome"); // motd
    b.push(2); // teams
    s8(&mut b, b"Team Name\t\x06Score"); // team fields
    s8(
        &mut b,
        b"Player Name\t\x06Team\t\x06Score\t\x04Ping\t\x04PL",
    ); // player fields
    s8(&mut b, b"Blood Eagle");
    s8(&mut b, b"%t\t3");
    s8(&mut b, b"Diamond Sword");
    s8(&mut b, b"%t\t1");
    b.extend([10, 0, 0]); // ping 40 ms / 4, loss, team
    s8(&mut b, b"alice");
    s8(&mut b, b"%n\t%t\t  12\t%p\t%l");
    b.extend([20, 1, 1]);
    s8(&mut b, b"bob");
    s8(&mut b, b"%n\t%t\t  -3\t%p\t%l");
    b
}

fn starsiege_fixture() -> Vec<u8> {
    let mut b = vec![0x73, 0x01, 0x00, 0x72]; // reply to 'r' with key 1 (gamedig's)
    s8(&mut b, b"Starsiege");
    s8(&mut b, b"1.004");
    s8(&mut b, b"Cybrid Front");
    b.extend([1, 1, 0, 1]); // password, dedicated, drop-in, in progress
    b.extend(2u32.to_le_bytes()); // players
    b.extend(16u32.to_le_bytes()); // max
    b.push(1); // team play
    s8(&mut b, b"Mercury");
    b.extend([0x2C, 0x01]); // cpu 300
    b.extend([1, 0]); // factory vehicles, tecmix
    for l in [5u32, 10, 20, 30, 40, 50, 2] {
        b.extend(l.to_le_bytes()); // six limits, players sent
    }
    s8(&mut b, b"Harabec");
    b.push(1);
    s8(&mut b, b"Caanon");
    b.push(4);
    b
}

#[test]
fn tribes_fields_in_order() {
    let f = tribes_fixture();
    let r = decode(&f, TRIBES, 0x2A2A).unwrap();
    assert_eq!(
        (r.game_type.as_str(), r.version.as_str(), r.name.as_str()),
        ("Tribes", "1.11", "Broadside")
    );
    let Body::Tribes(t) = &r.body else {
        panic!("{r:?}")
    };
    assert!(t.dedicated && !t.password);
    assert_eq!((t.players, t.max, t.cpu), (2, 32, 400));
    assert_eq!(
        (t.game_mod.as_str(), t.mission_type.as_str(), t.map.as_str()),
        ("base", "CTF", "Raindance")
    );
    assert_eq!(t.teams[1].name, "Diamond Sword");
    assert_eq!((t.list[1].ping, t.list[1].loss, t.list[1].team), (20, 1, 1));
    let want = Want {
        players: true,
        detail: true,
    };
    let s = to_status(&r, Duration::from_millis(1), want);
    assert_eq!((s.online, s.max), (2, 32));
    assert_eq!(s.map.as_deref(), Some("Raindance"));
    assert_eq!(s.game.as_deref(), Some("base"));
    assert_eq!(s.version.as_deref(), Some("1.11"));
    assert_eq!(s.password, Some(false));
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "alice");
    assert_eq!((players[0].score, players[0].ping), (Some(12), Some(40)));
    assert_eq!((players[1].score, players[1].ping), (Some(-3), Some(80)));
    assert_eq!(s.extras["mission_type"], json!("CTF"));
    assert_eq!(s.extras["teams"], json!(["Blood Eagle", "Diamond Sword"]));
    let mut out = Vec::new();
    encode(&r, TRIBES, 0x2A2A, &mut out);
    assert_eq!(out, f);
}

#[test]
fn starsiege_fields_in_order() {
    let f = starsiege_fixture();
    let r = decode(&f, STARSIEGE, 1).unwrap();
    let Body::Starsiege(s) = &r.body else {
        panic!("{r:?}")
    };
    assert!(s.password && s.dedicated && !s.drop_in && s.in_progress);
    assert_eq!((s.players, s.max, s.team_play, s.cpu), (2, 16, 1, 300));
    assert_eq!(s.map, "Mercury");
    assert_eq!(s.limits, [5, 10, 20, 30, 40, 50]);
    assert_eq!(s.players_sent, 2);
    assert_eq!(
        s.list,
        vec![("Harabec".to_string(), 1), ("Caanon".to_string(), 4)]
    );
    let want = Want {
        players: true,
        detail: true,
    };
    let st = to_status(&r, Duration::ZERO, want);
    assert_eq!((st.online, st.max), (2, 16));
    assert_eq!(st.game.as_deref(), Some("Starsiege"));
    assert_eq!(st.name, "Cybrid Front");
    assert_eq!(st.password, Some(true));
    assert_eq!(st.players.unwrap()[1].name, "Caanon");
    assert_eq!(st.extras["time_limit"], json!(20));
    let mut out = Vec::new();
    encode(&r, STARSIEGE, 1, &mut out);
    assert_eq!(out, f);
}

#[test]
fn requests() {
    let mut out = Vec::new();
    encode_request(TRIBES, 0x2A2A, &mut out);
    assert_eq!(out, b"b**");
    assert_eq!(parse_request(b"r\x01\x00"), Some((STARSIEGE, 1)));
    assert_eq!(parse_request(b"b\x01"), None);
    assert_eq!(parse_request(b"`**"), None);
}

/// Another kind, key or echo is not ours; cut, lying and oversized replies are errors.
#[test]
fn foreign_cut_lying_and_oversized() {
    let f = tribes_fixture();
    assert!(matches!(
        decode(&f, TRIBES, 1),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(matches!(
        decode(&f, STARSIEGE, 0x2A2A),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(matches!(
        decode(&f[..3], TRIBES, 0x2A2A),
        Err(DecodeError::Mismatch(_))
    ));
    for cut in [5, 20, 60, f.len() - 1] {
        assert!(
            matches!(
                decode(&f[..cut], TRIBES, 0x2A2A),
                Err(DecodeError::Truncated { .. })
            ),
            "{cut}"
        );
    }
    // The players byte says 200: more records than the bytes left could hold.
    let mut lying = f.clone();
    lying[4 + 7 + 5 + 10 + 2] = 200;
    assert!(matches!(
        decode(&lying, TRIBES, 0x2A2A),
        Err(DecodeError::Overrun { .. })
    ));
    let mut big = f.clone();
    big.resize(MAX_REPLY + 1, 0);
    assert!(matches!(
        decode(&big, TRIBES, 0x2A2A),
        Err(DecodeError::TooLarge { .. })
    ));
    // A Starsiege count past any real server's.
    let mut s = starsiege_fixture();
    let at = 4 + 10 + 6 + 13 + 4;
    s[at..at + 4].copy_from_slice(&4_000_000_000u32.to_le_bytes());
    assert!(matches!(
        decode(&s, STARSIEGE, 1),
        Err(DecodeError::Invalid(_))
    ));
}

#[test]
fn gamedig_field_names() {
    assert_eq!(
        field_names("Player Name\t\x06Team\t\x06Score"),
        ["player name", "team", "score"]
    );
    assert_eq!(field_names(""), [""]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let want = Want { players: true, detail: true };
        for kind in [TRIBES, STARSIEGE] {
            let mut framed = vec![kind + 1, 7, 0, kind];
            framed.extend(&bytes);
            for b in [&bytes, &framed] {
                if let Ok(r) = decode(b, kind, 7) {
                    let _ = to_status(&r, Duration::ZERO, want);
                }
            }
        }
    }

    #[test]
    fn round_trip(name in "[ -~]{0,60}", map in "[ -~]{0,30}", names in proptest::collection::vec("[ -~]{0,20}", 0..8), max in any::<u8>()) {
        let list: Vec<TribesPlayer> = names.iter().map(|n| TribesPlayer { name: n.clone(), ..TribesPlayer::default() }).collect();
        let t = Tribes { players: list.len() as u8, max, map, list, ..Tribes::default() };
        let r = Reply { game_type: "Tribes".into(), version: "1.11".into(), name, body: Body::Tribes(t) };
        let mut out = Vec::new();
        encode(&r, TRIBES, 9, &mut out);
        prop_assert_eq!(decode(&out, TRIBES, 9).unwrap(), r);
    }
}

/// The checked-in `exchanges` fuzz seeds (arms 22 and 23: a key of 2A 2A, players and
/// detail asked) finish a poll with the fixture's counts; a reply with another key is skipped
/// and the poll ends in `mismatch`.
#[test]
fn exchanges_seeds_finish_a_poll() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use crate::status::Reason;
    use std::time::Instant;

    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/corpus/exchanges/");
    let params = Params {
        players: true,
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let seed = |name: &str| std::fs::read(format!("{root}{name}")).unwrap();
    let b = seed("tribes1-b_reply");
    assert_eq!(&b[..2], [0xaf, 22]);
    let mut x = exchange::new::<TRIBES>(&params, 0x2A2A, deadline);
    let st = replay(&mut x, start, deadline, &b[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!((st.online, st.max, st.players.unwrap().len()), (2, 32, 2));
    let r = seed("starsiege-r_reply");
    assert_eq!(&r[..2], [0xaf, 23]);
    let mut x = exchange::new::<STARSIEGE>(&params, 0x2A2A, deadline);
    let st = replay(&mut x, start, deadline, &r[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!(
        (st.online, st.max, st.name.as_str()),
        (2, 16, "Cybrid Front")
    );
    let mut x = exchange::new::<TRIBES>(&params, 0x2A2B, deadline);
    let e = replay(&mut x, start, deadline, &b[2..])
        .result
        .unwrap()
        .unwrap_err();
    assert_eq!(e.reason(), Reason::Mismatch);
}
