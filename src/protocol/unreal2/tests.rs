//! Byte-exact replies, the exchange's timing and caps, and noise.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::exchange::{MAX_DATAGRAMS, MAX_PLAYERS};
use super::*;
use crate::protocol::exchange::{Exchange, Input, Params, Step};
use crate::status::Reason;

/// A UT2004 info reply laid out as the engine writes it (the layout qstat reads at fixed
/// offsets: name at byte 14 after the header, so the IP is the single byte 00).
fn ut2004_info() -> Vec<u8> {
    let mut b = vec![
        0x80, 0, 0, 0,    // query version: UT2004 retail
        0x00, // type: info
        0, 0, 0, 0,    // server id
        0x00, // ip: empty string
        0x61, 0x1E, 0, 0, // game port 7777
        0x62, 0x1E, 0, 0, // query port 7778
    ];
    b.extend_from_slice(b"\x0f\x1b\xff\x01\x01Red Server\0"); // name, a red colour code
    b.extend_from_slice(b"\x0bDM-Rankin\0\0"); // map (length counts two NULs here)
    b.extend_from_slice(b"\x0cxDeathMatch\0"); // game type
    b.extend_from_slice(&[3, 0, 0, 0]); // players
    b.extend_from_slice(&[16, 0, 0, 0]); // max players
    b.extend_from_slice(&[0, 0, 0, 0]); // ping
    b.extend_from_slice(&[1, 0, 0, 0]); // flags: password
    b.extend_from_slice(b"\x02\x35\0"); // skill "5"
    b
}

#[test]
fn ut2004_info_reply() {
    let reply = decode_reply(&ut2004_info()).unwrap();
    assert_eq!(reply.version, 0x80);
    assert_eq!(
        reply.body,
        Body::Info(Info {
            server_id: 0,
            ip: String::new(),
            game_port: 7777,
            query_port: 7778,
            name: "Red Server".into(),
            map: "DM-Rankin".into(),
            game_type: "xDeathMatch".into(),
            players: 3,
            max_players: 16,
            waves: None,
            tail: Some(Tail {
                ping: 0,
                flags: 1,
                skill: "5".into()
            }),
        })
    );
}

/// Killing Floor's wave counters sit between the maximum and the ping (OpenGSQ's
/// killingfloor reader, tested by its author against live KF servers, reads this order).
#[test]
fn killing_floor_info_reply() {
    let mut b = vec![0x80, 0, 0, 0, 0x00, 0, 0, 0, 0, 0x00];
    b.extend_from_slice(&7707i32.to_le_bytes());
    b.extend_from_slice(&7708i32.to_le_bytes());
    b.extend_from_slice(b"\x05KF-1\0\x09KF-Manor\0\x0bKFGameType\0");
    b.extend_from_slice(&[2, 0, 0, 0, 6, 0, 0, 0]); // 2 of 6
    b.extend_from_slice(&[4, 0, 0, 0, 10, 0, 0, 0]); // wave 4 of 10
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0]); // ping, flags
    b.extend_from_slice(b"\x00"); // skill: empty
    let Body::Info(info) = decode_reply(&b).unwrap().body else {
        panic!("not info")
    };
    assert_eq!((info.players, info.max_players), (2, 6));
    assert_eq!(info.waves, Some((4, 10)));
    assert_eq!(info.tail.as_ref().map(|t| t.flags), Some(0));
    // Our encoder writes the same bytes back, waves included.
    assert_eq!(datagram(|o| encode_info(UT2004, &info, o)), b);
}

/// UT2003 ends the info after the maximum; a tail fitting neither layout is ignored.
#[test]
fn short_and_odd_tails() {
    let full = ut2004_info();
    let short = &full[..full.len() - 11];
    let Body::Info(info) = decode_reply(short).unwrap().body else {
        panic!()
    };
    assert_eq!((info.players, info.max_players, info.tail), (3, 16, None));
    let mut odd = short.to_vec();
    odd.extend_from_slice(&[1, 2, 3]);
    let Body::Info(info) = decode_reply(&odd).unwrap().body else {
        panic!()
    };
    assert_eq!((info.max_players, info.tail, info.waves), (16, None, None));
}

#[test]
fn rules_and_players() {
    let mut b = vec![0x80, 0, 0, 0, 0x01];
    b.extend_from_slice(b"\x0bServerMode\0\x0adedicated\0\x08mutator\0\x01\0");
    assert_eq!(
        decode_reply(&b).unwrap().body,
        Body::Rules(vec![
            ("ServerMode".into(), "dedicated".into()),
            ("mutator".into(), String::new()),
        ])
    );
    let mut b = vec![0x80, 0, 0, 0, 0x02];
    b.extend_from_slice(&[7, 0, 0, 0]); // id
    b.extend_from_slice(b"\x06Alice\0"); // name
    b.extend_from_slice(&[48, 0, 0, 0]); // ping
    b.extend_from_slice(&(-2i32).to_le_bytes()); // score
    b.extend_from_slice(&[0, 0, 0, 0x20]); // stats id (team bit 29: red to qstat)
    assert_eq!(
        decode_reply(&b).unwrap().body,
        Body::Players(vec![Player {
            id: 7,
            name: "Alice".into(),
            ping: 48,
            score: -2,
            stats_id: 0x2000_0000,
        }])
    );
    b.pop();
    assert!(matches!(
        decode_reply(&b),
        Err(DecodeError::Truncated { .. })
    ));
}

/// Foreign headers are mismatches (someone else's packet); an unknown type is malformed.
#[test]
fn headers() {
    assert_eq!(
        decode_reply(b"\xff\xff\xff\xffinfoResponse"),
        Err(DecodeError::Mismatch("Unreal 2 header"))
    );
    assert!(matches!(
        decode_reply(&[0x80, 0, 0, 0, 9]),
        Err(DecodeError::UnexpectedType { found: 9, .. })
    ));
    let mut out = Vec::new();
    encode_request(Kind::Players, &mut out);
    assert_eq!(out, [0x79, 0, 0, 0, 2]);
    assert_eq!(decode_request(&out), Ok(vec![Kind::Players]));
    assert_eq!(decode_request(&[0x78, 0, 0, 0, 3]).map(|k| k.len()), Ok(3));
    assert!(decode_request(&[0x78, 0, 0, 0, 4]).is_err());
}

fn players(n: i32) -> Vec<Player> {
    (0..n)
        .map(|i| Player {
            id: i,
            name: format!("p{i}"),
            ping: 10,
            score: i,
            stats_id: 0,
        })
        .collect()
}

fn datagram(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out);
    out
}

fn info(players: i32) -> Info {
    Info {
        name: "s".into(),
        players,
        max_players: 8,
        ..Info::default()
    }
}

const GAP: Duration = QUIET_GAP;

fn params(rules: bool, players: bool) -> Params {
    Params {
        rules,
        players,
        detail: true,
        ..Params::default()
    }
}

/// Starts a poll at `t0`: the requests it sends back to back, and the step after them.
fn start(x: &mut Unreal2, t0: Instant) -> (Vec<Vec<u8>>, Step) {
    let mut sent = Vec::new();
    let mut out = Vec::new();
    loop {
        match x.poll(t0, &mut out) {
            Step::Send(_) => sent.push(out.clone()),
            step => return (sent, step),
        }
    }
}

fn feed(x: &mut Unreal2, bytes: &[u8], now: Instant) {
    let rtt = Duration::from_millis(10);
    x.handle(now, Input::Received { bytes, rtt });
}

fn step(x: &mut Unreal2, now: Instant) -> Step {
    x.poll(now, &mut Vec::new())
}

fn wait_until(s: &Step) -> Option<Instant> {
    match s {
        Step::Wait(at) => Some(*at),
        _ => None,
    }
}

/// Rules and players in two datagrams each end a quiet gap after the last one; duplicates
/// and foreign datagrams change nothing. The info request goes out last (the one resent).
#[test]
fn exchange_collects_until_quiet() {
    let t0 = Instant::now();
    let mut x = Unreal2::new(params(true, true), t0 + Duration::from_secs(2));
    let (requests, first) = start(&mut x, t0);
    assert_eq!(
        requests,
        vec![
            vec![0x79, 0, 0, 0, 1],
            vec![0x79, 0, 0, 0, 2],
            vec![0x79, 0, 0, 0, 0]
        ]
    );
    assert_eq!(wait_until(&first), Some(t0 + Duration::from_secs(2)));
    let t1 = t0 + Duration::from_millis(10);
    let all = players(3);
    feed(&mut x, &datagram(|o| encode_info(UT2004, &info(3), o)), t1);
    let first = datagram(|o| encode_players(UT2004, &all[..2], o));
    feed(&mut x, &first, t1);
    feed(&mut x, &first, t1);
    feed(&mut x, b"garbage from elsewhere", t1);
    feed(
        &mut x,
        &datagram(|o| encode_rules(UT2004, &[("a".into(), "1".into())], o)),
        t1,
    );
    assert_eq!(wait_until(&step(&mut x, t1)), Some(t1 + GAP));
    let t2 = t1 + Duration::from_millis(50);
    feed(
        &mut x,
        &datagram(|o| encode_players(UT2004, &all[2..], o)),
        t2,
    );
    assert_eq!(wait_until(&step(&mut x, t1 + GAP)), Some(t2 + GAP));
    let Step::Done(s) = step(&mut x, t2 + GAP) else {
        panic!("not done")
    };
    assert_eq!((s.online, s.max, s.name.as_str()), (3, 8, "s"));
    assert_eq!(s.latency, Duration::from_millis(10));
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    let expected: Vec<String> = all.iter().map(|p| p.name.clone()).collect();
    assert_eq!(names, expected);
    assert_eq!(s.rules, Some(vec![("a".into(), "1".into())]));
}

/// Players alone end as soon as the info's count is reached; info alone ends with it.
#[test]
fn exchange_ends_early_on_count() {
    let t0 = Instant::now();
    let far = t0 + Duration::from_secs(5);
    let mut x = Unreal2::new(params(false, true), far);
    let (requests, _) = start(&mut x, t0);
    assert_eq!(requests.len(), 2);
    feed(&mut x, &datagram(|o| encode_info(UT2004, &info(2), o)), t0);
    assert_eq!(wait_until(&step(&mut x, t0)), Some(t0 + GAP));
    feed(
        &mut x,
        &datagram(|o| encode_players(UT2004, &players(2), o)),
        t0,
    );
    assert!(matches!(step(&mut x, t0), Step::Done(_)));
    let mut x = Unreal2::new(params(false, false), far);
    let (requests, _) = start(&mut x, t0);
    assert_eq!(requests, vec![vec![0x79, 0, 0, 0, 0]]);
    feed(&mut x, &datagram(|o| encode_info(UT2004, &info(9), o)), t0);
    assert!(matches!(step(&mut x, t0), Step::Done(s) if s.players.is_none() && s.online == 9));
}

/// No info by the deadline is a timeout (a mismatch when only foreign datagrams came); the
/// deadline also cuts the quiet gap short.
#[test]
fn exchange_deadline() {
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_millis(50);
    let mut x = Unreal2::new(params(true, false), deadline);
    start(&mut x, t0);
    let Step::Failed(e) = step(&mut x, deadline) else {
        panic!("not failed")
    };
    assert_eq!(e.reason(), Reason::Timeout);
    let mut x = Unreal2::new(params(true, false), deadline);
    start(&mut x, t0);
    feed(&mut x, b"\xff\xff\xff\xffprint", t0);
    let Step::Failed(e) = step(&mut x, deadline) else {
        panic!("not failed")
    };
    assert_eq!(e.reason(), Reason::Mismatch);
    let mut x = Unreal2::new(params(true, false), deadline);
    start(&mut x, t0);
    feed(&mut x, &datagram(|o| encode_info(UT2004, &info(0), o)), t0);
    assert_eq!(wait_until(&step(&mut x, t0)), Some(deadline));
    assert!(matches!(step(&mut x, deadline), Step::Done(_)));
}

/// Caps: too many players, too many datagrams; a broken datagram of ours fails the poll.
#[test]
fn exchange_caps() {
    let t0 = Instant::now();
    let far = t0 + Duration::from_secs(5);
    let failed = |x: &mut Unreal2| match step(x, t0) {
        Step::Failed(e) => e.decode().cloned(),
        _ => None,
    };
    let mut x = Unreal2::new(params(false, true), far);
    start(&mut x, t0);
    let many = players(MAX_PLAYERS as i32 + 1);
    feed(&mut x, &datagram(|o| encode_players(UT2004, &many, o)), t0);
    assert!(matches!(failed(&mut x), Some(DecodeError::TooLarge { .. })));
    let mut x = Unreal2::new(params(false, true), far);
    start(&mut x, t0);
    for i in 0..=MAX_DATAGRAMS {
        feed(&mut x, &[i as u8], t0);
    }
    assert!(matches!(failed(&mut x), Some(DecodeError::TooLarge { .. })));
    let mut x = Unreal2::new(params(false, true), far);
    start(&mut x, t0);
    feed(&mut x, &[0x80, 0, 0, 0, 0, 1], t0);
    assert!(matches!(
        failed(&mut x),
        Some(DecodeError::Truncated { .. })
    ));
}

fn arb_text() -> impl Strategy<Value = String> {
    "[^\\x00-\\x1f\\x7f]{0,20}"
}

fn arb_info() -> impl Strategy<Value = Info> {
    (
        any::<(i32, i32, i32, i32, i32)>(),
        (arb_text(), arb_text(), arb_text(), arb_text()),
        proptest::option::of(any::<(i32, i32)>()),
        proptest::option::of((any::<(i32, i32)>(), arb_text())),
    )
        .prop_map(
            |((id, gp, qp, n, m), (ip, name, map, gt), waves, tail)| Info {
                server_id: id,
                ip,
                game_port: gp,
                query_port: qp,
                name,
                map,
                game_type: gt,
                players: n,
                max_players: m,
                waves: waves.filter(|_| tail.is_some()),
                tail: tail.map(|((ping, flags), skill)| Tail { ping, flags, skill }),
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes after a valid header never panic the decoder.
    #[test]
    fn noise(kind in 0u8..4, bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut d = vec![0x80, 0, 0, 0, kind];
        d.extend_from_slice(&bytes);
        let _ = decode_reply(&d);
        let _ = decode_reply(&bytes);
        let _ = decode_request(&bytes);
    }

    /// Info replies round-trip, tails included. A Killing Floor tail whose wave counters
    /// parse as a UT2004 tail ending exactly is ambiguous by construction; skipped.
    #[test]
    fn info_round_trip(info in arb_info()) {
        let d = datagram(|o| encode_info(UT2004, &info, o));
        let back = decode_reply(&d).unwrap();
        prop_assume!(info.waves.is_none() || back.body == Body::Info(info.clone()));
        prop_assert_eq!(back, Reply { version: UT2004, body: Body::Info(info) });
    }

    /// Lists round-trip.
    #[test]
    fn lists_round_trip(names in proptest::collection::vec(arb_text(), 0..10)) {
        let list: Vec<Player> = names.iter().enumerate().map(|(i, n)| Player { id: i as i32, name: n.clone(), ping: 1, score: 2, stats_id: 3 }).collect();
        let d = datagram(|o| encode_players(0x79, &list, o));
        prop_assert_eq!(decode_reply(&d).unwrap().body, Body::Players(list));
        let rules: Vec<(String, String)> = names.iter().map(|n| (n.clone(), n.clone())).collect();
        let d = datagram(|o| encode_rules(0x79, &rules, o));
        prop_assert_eq!(decode_reply(&d).unwrap().body, Body::Rules(rules));
    }

    /// Mutating any byte of a good info reply never panics, and the exchange fed noise and
    /// time steps always ends by its deadline.
    #[test]
    fn mutated_and_sequenced(pos in any::<prop::sample::Index>(), byte in any::<u8>(), steps in proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..40), 0u64..80), 0..12)) {
        let mut d = ut2004_info();
        let i = pos.index(d.len());
        d[i] = byte;
        let _ = decode_reply(&d);
        let t0 = Instant::now();
        let deadline = t0 + Duration::from_millis(500);
        let mut x = Unreal2::new(params(true, true), deadline);
        start(&mut x, t0);
        let mut now = t0;
        for (mut bytes, ms) in steps {
            if ms % 3 == 0 { let mut h = vec![0x80, 0, 0, 0]; h.append(&mut bytes); bytes = h; }
            now += Duration::from_millis(ms);
            feed(&mut x, &bytes, now);
            match step(&mut x, now) {
                Step::Wait(until) => prop_assert!(until <= deadline),
                _ => return Ok(()),
            }
        }
        prop_assert!(!matches!(step(&mut x, deadline), Step::Wait(_)));
    }
}

/// The first 147 bytes of a real Killing Floor server's 207-byte info reply, as gamedig's
/// debug output printed them in node-gamedig issue #121 (2019, server 212.109.217.192:7712):
/// the name is 64 UCS-2 characters, so its length is the two-byte compact index `C0 01`.
const KF_CAPTURED_PREFIX: &[u8] = &[
    0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x1f, 0x1e, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0xc0, 0x01, 0x5b, 0x00, 0x76, 0x00, 0x35, 0x00, 0x32, 0x00, 0x5d, 0x00, 0x20, 0x00,
    0x1b, 0x00, 0x40, 0x00, 0xf8, 0x00, 0x40, 0x00, 0x4e, 0x00, 0x6f, 0x00, 0x6f, 0x00, 0x62, 0x00,
    0x20, 0x00, 0x73, 0x00, 0x65, 0x00, 0x72, 0x00, 0x76, 0x00, 0x65, 0x00, 0x72, 0x00, 0x20, 0x00,
    0x2d, 0x00, 0x20, 0x00, 0x4e, 0x00, 0x69, 0x00, 0x63, 0x00, 0x65, 0x00, 0x50, 0x00, 0x61, 0x00,
    0x63, 0x00, 0x6b, 0x00, 0x20, 0x00, 0x6d, 0x00, 0x6f, 0x00, 0x64, 0x00, 0x20, 0x00, 0x1b, 0x00,
    0x48, 0x04, 0x48, 0x04, 0x40, 0x00, 0x5b, 0x00, 0x43, 0x00, 0x75, 0x00, 0x72, 0x00, 0x72, 0x00,
    0x65, 0x00, 0x6e, 0x00, 0x74, 0x00, 0x20, 0x00, 0x73, 0x00, 0x74, 0x00, 0x61, 0x00, 0x74, 0x00,
    0x65, 0x00, 0x3a, 0x00, 0x20, 0x00, 0x4c, 0x00, 0x4f, 0x00, 0x42, 0x00, 0x42, 0x00, 0x59, 0x00,
    0x5d, 0x00, 0x00, 0x00, 0x0f, 0x1b, 0x40, 0xf8, 0x40, 0x4b, 0x46, 0x2d, 0x4f, 0x6c, 0x64, 0x43,
    0x69,
];

/// The captured name reads whole, and the map's own length byte (`0F`, 15) follows it: the
/// fields after the name are where the engine put them.
#[test]
fn killing_floor_captured_name_is_64_wide_characters() {
    let mut r = crate::protocol::Reader::new(&KF_CAPTURED_PREFIX[18..]);
    let name = super::text::read_string(&mut r).unwrap();
    assert_eq!(
        name,
        "[v52] Noob server - NicePack mod [Current state: LOBBY]"
    );
    assert_eq!(r.position(), 2 + 64 * 2);
    assert_eq!(r.u8().unwrap(), 0x0f);
}

/// The whole reply: the capture, then the rest completed by us (the map finished as
/// `KF-OldCity`, the game type, 3 of 6 players, wave 2 of 10, ping, flags and skill; the
/// capture was cut there). Before the compact index was read, the counts came out as
/// 1,179,323,136 and the name was cut.
#[test]
fn killing_floor_reply_with_a_long_wide_name() {
    let mut b = KF_CAPTURED_PREFIX.to_vec();
    b.extend_from_slice(b"\x74\x79\x00"); // "ty" and the map's NUL
    b.extend_from_slice(b"\x0bKFGameType\x00");
    b.extend_from_slice(&[3, 0, 0, 0, 6, 0, 0, 0]); // players, max
    b.extend_from_slice(&[2, 0, 0, 0, 10, 0, 0, 0]); // wave, waves
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0]); // ping, flags, skill ""
    let reply = decode_reply(&b).unwrap();
    let Body::Info(info) = reply.body else {
        panic!("not an info reply");
    };
    assert_eq!(
        info.name,
        "[v52] Noob server - NicePack mod [Current state: LOBBY]"
    );
    assert_eq!(info.map, "KF-OldCity");
    assert_eq!(info.game_type, "KFGameType");
    assert_eq!((info.players, info.max_players), (3, 6));
    assert_eq!(info.waves, Some((2, 10)));
}

/// Long strings round-trip through the compact index, narrow and wide, at its 64-unit edge.
#[test]
fn compact_index_lengths_round_trip() {
    for text in [
        "a".repeat(62),
        "b".repeat(63),
        "c".repeat(100),
        "é".repeat(70),
    ] {
        let mut out = Vec::new();
        super::text::write_string(&text, &mut out);
        let mut r = crate::protocol::Reader::new(&out);
        assert_eq!(super::text::read_string(&mut r).unwrap(), text);
        assert!(r.is_empty(), "{text}");
    }
}
