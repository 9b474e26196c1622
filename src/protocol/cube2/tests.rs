//! The Cube 2 codec on exact bytes: replies captured from the real servers in Debian
//! bookworm on 127.0.0.1 (2026-11-29, `redeclipse-server` 1.6.0-1 and `cube2-server`
//! 0.0.20201227+dfsg-2, both started without their data packages), read field by field; the
//! round trip through the simulator's encoder; lying counts, cut and oversized replies;
//! arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Red Eclipse 1.6.0 (`-ss1 -sp28801`), asked with `01` on 28802: no players, map
/// keystone2k, no description.
const RED_ECLIPSE_DEFAULT: &str = concat!(
    "01",                     // the request, echoed
    "00",                     // players
    "0f",                     // 15 attributes
    "80e600",                 // game version 230
    "02",                     // mode: deathmatch
    "00",                     // mutators
    "805802",                 // time remaining 600
    "20",                     // 32 slots
    "00",                     // master mode: open
    "808613",                 // 4998 game variables
    "00",                     // game mods
    "010600",                 // version 1.6.0
    "02",                     // platform
    "40",                     // arch 64
    "00",                     // game state
    "00",                     // time left
    "6b657973746f6e65326b00", // "keystone2k"
    "00",                     // description ""
    "00",                     // branch ""
);

/// Red Eclipse 1.6.0 with `sv_serverdesc "Ünï ^fgTest"` and `sv_serverclients 12` in its
/// servinit.cfg, asked with `7F` on 40101: the description in the engine's code page, with a
/// colour code (`\f` `g`).
const RED_ECLIPSE_DESCRIBED: &str = concat!(
    "7f000f80e60002008058021800808613000106000240000064656361790",
    "07f6e91200c67546573740000",
);

/// Sauerbraten (`cube2-server -j40200 -c7 "-nSauer Ü ^fgT"`), asked with `7F` on 40201:
/// five attributes, no map loaded, the description as the command line's raw UTF-8 bytes.
const SAUERBRATEN: &str = "7f00058004010000070000536175657220c39c205e66675400";

#[test]
fn packed_integers() {
    let read = |b: &[u8]| get_int(&mut Reader::new(b)).unwrap();
    assert_eq!(read(&[0x7F]), 127);
    assert_eq!(read(&[0xFF]), -1);
    assert_eq!(read(&[0x80, 0xE6, 0x00]), 230);
    assert_eq!(read(&[0x80, 0x00, 0x80]), -32768);
    assert_eq!(read(&[0x81, 0x2A, 0x2A, 0x2A, 0x6A]), 0x6A2A_2A2A);
    for n in [
        0,
        127,
        -126,
        -127,
        128,
        -32768,
        32767,
        32768,
        i32::MIN,
        i32::MAX,
    ] {
        let mut out = Vec::new();
        put_int(n, &mut out);
        assert_eq!(read(&out), n, "{n}: {out:02x?}");
    }
    let mut out = Vec::new();
    put_int(-127, &mut out);
    assert_eq!(out, [0x80, 0x81, 0xFF]);
    assert!(matches!(
        get_int(&mut Reader::new(&[0x81, 1, 2])),
        Err(DecodeError::Truncated { .. })
    ));
}

#[test]
fn request() {
    let mut out = Vec::new();
    encode_request(0x2A2A_2A2A, &mut out);
    assert_eq!(out, [0x81, 0x2A, 0x2A, 0x2A, 0x6A]);
    out.clear();
    encode_request(0, &mut out);
    assert_eq!(out, [0x81, 0, 0, 0, 0x40]);
}

#[test]
fn red_eclipse_fields_in_order() {
    let bytes = hex(RED_ECLIPSE_DEFAULT);
    let i = decode(&bytes, &[0x01]).unwrap();
    assert_eq!(i.players, 0);
    assert_eq!(
        i.attrs,
        [230, 2, 0, 600, 32, 0, 4998, 0, 1, 6, 0, 2, 64, 0, 0]
    );
    assert_eq!((i.map.as_str(), i.description.as_str()), ("keystone2k", ""));
    assert_eq!(i.red_eclipse, Some(RedEclipse::default()));
    let s = to_status(&i, Duration::from_millis(1), true, true);
    assert_eq!((s.online, s.max), (0, 32));
    assert_eq!(s.name, "");
    assert_eq!(s.map.as_deref(), Some("keystone2k"));
    assert_eq!(s.game.as_deref(), Some("deathmatch"));
    assert_eq!(s.version.as_deref(), Some("1.6.0"));
    assert_eq!(s.password, Some(false));
    assert_eq!(s.players, Some(Vec::new()));
    assert_eq!(s.extras["game_version"], json!(230));
    assert_eq!(s.extras["time_remaining"], json!(600));
    assert_eq!(s.extras["dialect"], json!("redeclipse"));
    let mut out = Vec::new();
    encode(&[0x01], &i, &mut out);
    assert_eq!(out, bytes);
}

#[test]
fn red_eclipse_code_page_and_colours() {
    let bytes = hex(RED_ECLIPSE_DESCRIBED);
    let i = decode(&bytes, &[0x7F]).unwrap();
    assert_eq!(i.attrs[4], 24);
    assert_eq!(i.map, "decay");
    assert_eq!(i.description, "Ünï \u{c}gTest");
    let s = to_status(&i, Duration::ZERO, false, true);
    assert_eq!(s.name, "Ünï Test");
    assert_eq!(s.max, 24);
    assert_eq!(s.players, None);
    assert_eq!(s.extras["raw_description"], json!("Ünï \u{c}gTest"));
    let mut out = Vec::new();
    encode(&[0x7F], &i, &mut out);
    assert_eq!(out, bytes);
}

#[test]
fn sauerbraten_fields_in_order() {
    let bytes = hex(SAUERBRATEN);
    let i = decode(&bytes, &[0x7F]).unwrap();
    assert_eq!(i.attrs, [260, 0, 0, 7, 0]);
    assert_eq!(i.map, "");
    // Raw UTF-8 `C3 9C` read as the code page: what the game's own browser shows too.
    assert_eq!(i.description, "Sauer Ůü ^fgT");
    assert_eq!(i.red_eclipse, None);
    let s = to_status(&i, Duration::ZERO, true, true);
    assert_eq!((s.online, s.max), (0, 7));
    assert_eq!(s.map, None);
    assert_eq!(s.game.as_deref(), Some("ffa"));
    assert_eq!(s.version, None);
    assert_eq!(s.password, Some(false));
    assert_eq!(s.players, None);
    assert_eq!(s.extras["protocol"], json!(260));
    assert_eq!(s.extras["dialect"], json!("sauerbraten"));
    let mut out = Vec::new();
    encode(&[0x7F], &i, &mut out);
    assert_eq!(out, bytes);
}

#[test]
fn players_and_password() {
    let i = Info {
        players: 2,
        attrs: vec![230, 9, 0, 600, 16, 4, 0, 0, 1, 6, 0, 2, 64, 5, 0],
        map: "dutility".into(),
        description: "\u{c}[ff8800]Orange \u{c}(textures/icon)x".into(),
        red_eclipse: Some(RedEclipse {
            branch: "stable".into(),
            names: vec!["\u{c}yalice".into(), "bob".into()],
            handles: vec!["alice".into(), String::new()],
        }),
    };
    let mut out = Vec::new();
    encode(&[0x05], &i, &mut out);
    let back = decode(&out, &[0x05]).unwrap();
    assert_eq!(back, i);
    let s = to_status(&back, Duration::ZERO, true, true);
    assert_eq!(s.name, "Orange x");
    assert_eq!(s.password, Some(true));
    assert_eq!(s.game.as_deref(), Some("mode 9"));
    let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(s.extras["branch"], json!("stable"));
}

#[test]
fn colour_codes() {
    assert_eq!(strip_colours("\u{c}"), "");
    assert_eq!(strip_colours("a\u{c}[never ends"), "a");
    assert_eq!(strip_colours("\u{c}1red\u{c}sx\u{c}r"), "redx");
}

/// Broken replies end in their typed errors.
#[test]
fn hostile_replies() {
    let f = hex(RED_ECLIPSE_DEFAULT);
    assert!(matches!(decode(&f, &[0x02]), Err(DecodeError::Mismatch(_))));
    // Cut inside the attributes: fewer bytes than the count, or a packed integer cut.
    assert!(matches!(
        decode(&f[..6], &[0x01]),
        Err(DecodeError::Overrun { .. })
    ));
    assert!(matches!(
        decode(&[0x01, 0x00, 0x01, 0x80, 0xE6], &[0x01]),
        Err(DecodeError::Truncated { .. })
    ));
    assert!(matches!(
        decode(&f[..f.len() - 1], &[0x01]),
        Err(DecodeError::Unterminated { .. })
    ));
    // Lying counts: one attribute claimed per byte left plus one, a negative player count,
    // past the attribute cap, players the bytes cannot name.
    assert!(matches!(
        decode(&[0x01, 0x00, 0x05, 1, 2, 0], &[0x01]),
        Err(DecodeError::Overrun { .. })
    ));
    assert!(matches!(
        decode(&[0x01, 0xFF, 0x00, 0, 0], &[0x01]),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        decode(&[0x01, 0x00, 0x41], &[0x01]),
        Err(DecodeError::TooLarge { .. })
    ));
    let mut lying = f.clone();
    lying[1] = 100;
    assert!(matches!(
        decode(&lying, &[0x01]),
        Err(DecodeError::Overrun { .. })
    ));
    let mut big = f.clone();
    big.resize(MAX_REPLY + 1, 0);
    assert!(matches!(
        decode(&big, &[0x01]),
        Err(DecodeError::TooLarge { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        if let Ok(i) = decode(&bytes, &[]) {
            let _ = to_status(&i, Duration::ZERO, true, true);
        }
    }

    #[test]
    fn round_trip(
        attrs in proptest::collection::vec(any::<i32>(), 0..20),
        map in "[ -~]{0,30}",
        description in "[ -~ÀÜüĞЖ]{0,60}",
        names in proptest::collection::vec("[a-z]{1,15}", 0..5),
    ) {
        let red = attrs.len() >= RED_ECLIPSE_ATTRS;
        let i = Info {
            players: names.len() as i32,
            attrs,
            map,
            description,
            red_eclipse: red.then(|| RedEclipse {
                branch: String::new(),
                handles: vec![String::new(); names.len()],
                names,
            }),
        };
        let mut out = Vec::new();
        encode(&[0x42], &i, &mut out);
        prop_assert_eq!(decode(&out, &[0x42]).unwrap(), i);
    }
}

/// The checked-in `exchanges` fuzz seed (arm 29, players and detail asked, nonce 0x2A2A2A2A)
/// finishes a poll with the described Red Eclipse reply.
#[test]
fn exchanges_seed_finishes_a_poll() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use std::time::Instant;

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/exchanges/cube2-reply"
    );
    let seed = std::fs::read(path).unwrap();
    assert_eq!(&seed[..2], [0xaf, 29]);
    let params = Params {
        players: true,
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = exchange::new(&params, 0x2A2A_2A2A, deadline);
    let st = replay(&mut x, start, deadline, &seed[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!((st.online, st.max, st.name.as_str()), (0, 24, "Ünï Test"));
}

/// Sauerbraten's extinfo from the real `cube2-server` 0.0.20201227 (127.0.0.1, 2026-11-29),
/// two clients connected (`Alice`, then `Bob`, by a scripted ENet client sending only
/// `N_CONNECT`), asked `00 01 ff` + `81 11223344`: the header, then one record per client.
const EXT_REQUEST: &str = "0001ff8111223344";
const EXT_IDS: &str = concat!(
    "0001ff8111223344", // the request, echoed (the bytes after -1 too)
    "ff",               // EXT_ACK
    "69",               // EXT_VERSION 105
    "00",               // no error
    "f6",               // -10: the ids follow
    "0001",             // clients 0 and 1
);
const EXT_ALICE: &str = concat!(
    "0001ff8111223344ff6900",
    "f5",           // -11: a record
    "00",           // cn 0
    "00",           // ping 0
    "416c69636500", // "Alice"
    "676f6f6400",   // team "good"
    "0000000000",   // frags, flags, deaths, teamkills, accuracy
    "64",           // health 100
    "19",           // armour 25
    "06",           // gun 6
    "00",           // privilege none
    "01",           // state: dead (not spawned yet)
    "000000",       // IP (extinfoip off)
);
const EXT_BOB: &str = "0001ff8111223344ff6900f50100426f6200676f6f640000000000006419060001000000";
/// With no client connected, asked `00 01 ff`: the header alone, no ids.
const EXT_EMPTY: &str = "0001ffff6900f6";
/// Asked for client 5 (`00 01 05`), which is not there: the error answer.
const EXT_NO_CLIENT: &str = "000105ff6901";
/// The info reply the server sent at the same moment (asked `81 01020344`): 2 players.
const SAUER_TWO: &str = "810102034402058004010100070000496e7465726f70536175657200";

#[test]
fn extinfo_real_replies() {
    let req = hex(EXT_REQUEST);
    let mut ours = Vec::new();
    extinfo::encode_request(0x4433_2211, &mut ours);
    assert_eq!(ours, req);
    assert_eq!(
        extinfo::decode(&hex(EXT_IDS), &req, 64).unwrap(),
        extinfo::Reply::Ids(vec![0, 1])
    );
    let alice = extinfo::ExtPlayer {
        cn: 0,
        name: "Alice".into(),
        team: "good".into(),
        health: 100,
        armour: 25,
        gun: 6,
        state: 1,
        ..Default::default()
    };
    assert_eq!(
        extinfo::decode(&hex(EXT_ALICE), &req, 64).unwrap(),
        extinfo::Reply::Player(alice.clone())
    );
    let bob = extinfo::ExtPlayer {
        cn: 1,
        name: "Bob".into(),
        ..alice.clone()
    };
    assert_eq!(
        extinfo::decode(&hex(EXT_BOB), &req, 64).unwrap(),
        extinfo::Reply::Player(bob.clone())
    );
    // The simulator's encoder writes the same bytes.
    let mut enc = Vec::new();
    extinfo::encode_player(&req, &alice, &mut enc);
    assert_eq!(enc, hex(EXT_ALICE));
    enc.clear();
    extinfo::encode_ids(&req, &[0, 1], &mut enc);
    assert_eq!(enc, hex(EXT_IDS));
    assert_eq!(
        extinfo::decode(&hex(EXT_EMPTY), &[0, 1, 0xFF], 64).unwrap(),
        extinfo::Reply::Ids(vec![])
    );
    assert_eq!(
        extinfo::decode(&hex(EXT_NO_CLIENT), &[0, 1, 5], 64),
        Err(DecodeError::Invalid("Sauerbraten extinfo error answer"))
    );
    let info = decode(&hex(SAUER_TWO), &hex("8101020344")).unwrap();
    assert_eq!((info.players, info.attrs[3]), (2, 7));
    assert_eq!(extinfo::id_cap(info.players, Some(7)), 39);
}

#[test]
fn extinfo_hostile_datagrams() {
    let req = hex(EXT_REQUEST);
    // Another poll's echo.
    let mut other = hex(EXT_IDS);
    other[4] ^= 1;
    assert!(matches!(
        extinfo::decode(&other, &req, 64),
        Err(DecodeError::Mismatch(_))
    ));
    // More ids than the cap.
    assert!(matches!(
        extinfo::decode(&hex(EXT_IDS), &req, 1),
        Err(DecodeError::TooLarge { .. })
    ));
    // Every cut of a record is an error, never a shorter record.
    let full = hex(EXT_ALICE);
    for n in req.len()..full.len() {
        assert!(extinfo::decode(&full[..n], &req, 64).is_err(), "cut at {n}");
    }
    // Over the reply cap.
    let mut big = full.clone();
    big.resize(MAX_REPLY + 1, 1);
    assert!(matches!(
        extinfo::decode(&big, &req, 64),
        Err(DecodeError::TooLarge { .. })
    ));
    // Another extinfo version, or another reply type.
    let mut v = hex(EXT_IDS);
    v[9] = 0x68;
    assert!(matches!(
        extinfo::decode(&v, &req, 64),
        Err(DecodeError::Invalid(_))
    ));
    let mut t = hex(EXT_IDS);
    t[11] = 0xF4;
    assert!(matches!(
        extinfo::decode(&t, &req, 64),
        Err(DecodeError::Invalid(_))
    ));
}

mod extinfo_exchange {
    use std::time::{Duration, Instant};

    use super::*;
    use crate::protocol::exchange::{Exchange, Input, Params, Step};

    const NONCE: i32 = 0x4433_2211;

    fn sent(x: &mut exchange::Cube2, now: Instant) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(matches!(x.poll(now, &mut out), Step::Send(_)));
        out
    }

    fn give(x: &mut exchange::Cube2, now: Instant, bytes: &[u8]) {
        let rtt = Duration::from_millis(3);
        x.handle(now, Input::Received { bytes, rtt });
    }

    /// The info reply for our ping: the real one with our echo in front.
    fn info_reply(ping: &[u8]) -> Vec<u8> {
        let mut r = ping.to_vec();
        r.extend_from_slice(&hex(SAUER_TWO)[5..]);
        r
    }

    fn start(players: bool) -> (exchange::Cube2, Instant, Instant) {
        let params = Params {
            players,
            detail: true,
            ..Params::default()
        };
        let now = Instant::now();
        let deadline = now + Duration::from_secs(2);
        (exchange::new(&params, NONCE, deadline), now, deadline)
    }

    #[test]
    fn reads_the_real_records_in_the_headers_order() {
        let (mut x, now, _) = start(true);
        let ping = sent(&mut x, now);
        give(&mut x, now, &info_reply(&ping));
        assert_eq!(sent(&mut x, now), hex(EXT_REQUEST));
        // A late info reply is skipped; records may come before the header.
        give(&mut x, now, &info_reply(&ping));
        give(&mut x, now, &hex(EXT_BOB));
        give(&mut x, now, &hex(EXT_ALICE));
        let mut out = Vec::new();
        assert!(matches!(x.poll(now, &mut out), Step::Wait(_)));
        give(&mut x, now, &hex(EXT_IDS));
        let Step::Done(st) = x.poll(now, &mut out) else {
            panic!("not done")
        };
        let names: Vec<_> = st.players.unwrap().iter().map(|p| p.name.clone()).collect();
        assert_eq!(names, ["Alice", "Bob"]);
        assert_eq!((st.online, st.max, st.bots), (2, 7, Some(0)));
        assert_eq!(st.extras["extinfo_missing"], json!(0));
    }

    #[test]
    fn a_missing_record_ends_at_the_deadline_with_what_came() {
        let (mut x, now, deadline) = start(true);
        let ping = sent(&mut x, now);
        give(&mut x, now, &info_reply(&ping));
        sent(&mut x, now);
        give(&mut x, now, &hex(EXT_IDS));
        give(&mut x, now, &hex(EXT_BOB));
        let mut out = Vec::new();
        assert!(matches!(x.poll(now, &mut out), Step::Wait(_)));
        let Step::Done(st) = x.poll(deadline, &mut out) else {
            panic!("not done")
        };
        let players = st.players.unwrap();
        assert_eq!(players.len(), 1);
        assert_eq!(
            (players[0].name.as_str(), players[0].id.as_deref()),
            ("Bob", Some("1"))
        );
        assert_eq!(st.extras["extinfo_missing"], json!(1));
    }

    #[test]
    fn without_players_or_with_none_online_no_extinfo() {
        let (mut x, now, _) = start(false);
        let ping = sent(&mut x, now);
        give(&mut x, now, &info_reply(&ping));
        let mut out = Vec::new();
        let Step::Done(st) = x.poll(now, &mut out) else {
            panic!("not done")
        };
        assert_eq!(st.players, None);
        let (mut x, now, _) = start(true);
        let ping = sent(&mut x, now);
        let mut empty = info_reply(&ping);
        empty[5] = 0;
        give(&mut x, now, &empty);
        let Step::Done(st) = x.poll(now, &mut out) else {
            panic!("not done")
        };
        assert_eq!(st.online, 0);
    }

    #[test]
    fn a_bad_datagram_fails_the_poll() {
        let (mut x, now, _) = start(true);
        let ping = sent(&mut x, now);
        give(&mut x, now, &info_reply(&ping));
        sent(&mut x, now);
        let mut cut = hex(EXT_ALICE);
        cut.truncate(cut.len() - 1);
        give(&mut x, now, &cut);
        let mut out = Vec::new();
        assert!(matches!(x.poll(now, &mut out), Step::Failed(_)));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any datagrams after the info reply: never a panic, and a list never longer than
        /// the cap (the info reply's 7 slots plus the bots).
        #[test]
        fn any_extinfo_datagrams(
            datagrams in proptest::collection::vec(
                proptest::collection::vec(any::<u8>(), 0..60), 0..40),
        ) {
            let (mut x, now, deadline) = start(true);
            let ping = sent(&mut x, now);
            give(&mut x, now, &info_reply(&ping));
            let req = sent(&mut x, now);
            let mut out = Vec::new();
            for mut d in datagrams {
                // Half of them carry our echo, so the decoder goes past it.
                if d.first().is_some_and(|b| b & 1 == 0) {
                    let mut e = req.clone();
                    e.extend_from_slice(&[0xFF, 0x69, 0]);
                    e.append(&mut d);
                    d = e;
                }
                give(&mut x, now, &d);
            }
            match x.poll(deadline, &mut out) {
                Step::Done(st) => {
                    let cap = extinfo::id_cap(2, Some(7));
                    prop_assert!(st.players.map_or(0, |p| p.len()) <= cap);
                }
                Step::Failed(_) => {}
                other => prop_assert!(false, "{other:?}"),
            }
        }
    }
}

/// The checked-in `exchanges` fuzz seed for the extinfo step (arm 29, players asked, nonce
/// 0x2A2A2A2A): the real Sauerbraten info reply and extinfo datagrams, echoes rewritten to the
/// nonce, finish a poll listing both clients.
#[test]
fn exchanges_seed_reads_sauerbraten_players() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use std::time::Instant;

    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/exchanges/cube2-sauer-players"
    );
    let seed = std::fs::read(path).unwrap();
    assert_eq!(&seed[..2], [0xaf, 29]);
    let params = Params {
        players: true,
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = exchange::new(&params, 0x2A2A_2A2A, deadline);
    let run = replay(&mut x, start, deadline, &seed[2..]);
    assert_eq!(run.sent, 2);
    let st = run.result.unwrap().unwrap();
    let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(
        (st.online, names),
        (2, vec!["Alice".to_string(), "Bob".into()])
    );
}

/// The real server with `Alice` as master and one bot she added (`N_ADDBOT`), asked
/// `00 01 ff`: the bot is client 128 (`80 80 00`), named `bot`, no team, no armour; Alice's
/// privilege is 1 (master). The info reply still counted 1 player.
#[test]
fn extinfo_real_bot() {
    let req = [0, 1, 0xFF];
    let ids = extinfo::decode(&hex("0001ffff6900f600808000"), &req, 64).unwrap();
    assert_eq!(ids, extinfo::Reply::Ids(vec![0, extinfo::FIRST_BOT]));
    let bot = "0001ffff6900f580800000626f74000000000000006400060001000000";
    let extinfo::Reply::Player(bot) = extinfo::decode(&hex(bot), &req, 64).unwrap() else {
        panic!("not a record")
    };
    let got = (
        bot.cn,
        bot.name.as_str(),
        bot.team.as_str(),
        bot.health,
        bot.armour,
    );
    assert_eq!(got, (128, "bot", "", 100, 0));
    let alice = "0001ffff6900f50000416c69636500676f6f640000000000006419060101000000";
    let extinfo::Reply::Player(alice) = extinfo::decode(&hex(alice), &req, 64).unwrap() else {
        panic!("not a record")
    };
    assert_eq!((alice.name.as_str(), alice.privilege), ("Alice", 1));
}
