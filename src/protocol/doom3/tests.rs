//! Byte-exact replies in each layout, the poll, and noise.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::reply::MAX_VARS;
use super::*;

const CHALLENGE: u32 = 0x1234_5678;

/// A Doom 3 1.3.1 reply laid out as `idAsyncServer::ProcessGetInfoMessage` writes it: the
/// challenge, protocol 1.41, the serverinfo dictionary, one player (number, ping, rate,
/// name), the end marker (MAX_ASYNC_CLIENTS = 32), the OS mask.
fn doom3_reply() -> Vec<u8> {
    let mut b = b"\xff\xffinfoResponse\0".to_vec();
    b.extend_from_slice(&CHALLENGE.to_le_bytes()); // challenge, echoed
    b.extend_from_slice(&[0x29, 0x00, 0x01, 0x00]); // protocol: minor 41, major 1
    b.extend_from_slice(b"si_name\0^1Red ^7Doom\0");
    b.extend_from_slice(b"si_map\0game/mp/d3dm1\0");
    b.extend_from_slice(b"si_maxPlayers\x008\0");
    b.extend_from_slice(b"si_gameType\0Deathmatch\0");
    b.extend_from_slice(b"si_version\0DOOM 1.3.1.1304.x86 Jan 19 2007\0");
    b.extend_from_slice(b"si_usePass\x000\0");
    b.extend_from_slice(b"\0\0"); // end of the dictionary
    b.push(0); // player number 0
    b.extend_from_slice(&[0x32, 0x00]); // ping 50
    b.extend_from_slice(&[0x40, 0x9c, 0, 0]); // rate 40000
    b.extend_from_slice(b"^2Marine\0"); // name
    b.push(32); // end of the players
    b.extend_from_slice(&[1, 0, 0, 0]); // OS mask: win32
    b
}

#[test]
fn doom3_layout() {
    let r = decode_reply(&doom3_reply(), Dialect::Doom3, CHALLENGE).unwrap();
    assert_eq!(
        r.version,
        Version {
            major: 1,
            minor: 41
        }
    );
    assert_eq!(r.var("SI_NAME"), Some("^1Red ^7Doom"));
    assert_eq!(
        r.players,
        vec![Player {
            number: 0,
            ping: 50,
            rate: Some(40_000),
            name: "^2Marine".into(),
            ..Player::default()
        }]
    );
    assert_eq!(r.os_mask, Some(1));
    let s = to_status(&r, Dialect::Doom3, Duration::from_millis(5), true);
    assert_eq!(s.name, "Red Doom");
    assert_eq!(s.map.as_deref(), Some("game/mp/d3dm1"));
    assert_eq!((s.online, s.max, s.bots), (1, 8, None));
    assert_eq!(s.game.as_deref(), Some("Deathmatch"));
    assert_eq!(s.password, Some(false));
    assert_eq!(s.players.unwrap()[0].name, "Marine");
    // Our encoder writes the same bytes.
    let mut out = Vec::new();
    encode_reply(&r, Dialect::Doom3, &mut out);
    assert_eq!(out, doom3_reply());
}

/// Quake 4 (protocol 2.x) adds a clan tag after each name; colours include `^cRGB`.
#[test]
fn quake4_layout() {
    let mut b = b"\xff\xffinfoResponse\0".to_vec();
    b.extend_from_slice(&CHALLENGE.to_le_bytes());
    b.extend_from_slice(&[0x56, 0x00, 0x02, 0x00]); // protocol 2.86
    b.extend_from_slice(b"si_name\0^c900Q4 ^iblkServer\0si_maxPlayers\x0016\0\0\0");
    b.extend_from_slice(&[3, 20, 0, 0x10, 0x27, 0, 0]); // number 3, ping 20, rate 10000
    b.extend_from_slice(b"Kane\0^c090GDF\0"); // name, clan
    b.push(32);
    b.extend_from_slice(&[2, 0, 0, 0]);
    let r = decode_reply(&b, Dialect::Quake4, CHALLENGE).unwrap();
    assert_eq!(r.players[0].clan.as_deref(), Some("^c090GDF"));
    let s = to_status(&r, Dialect::Quake4, Duration::ZERO, false);
    assert_eq!((s.name.as_str(), s.online, s.max), ("Q4 Server", 1, 16));
    // Read as Doom 3, the clan tag would be taken for the next player: the layout matters.
    assert!(decode_reply(&b, Dialect::Doom3, CHALLENGE).map(|r| r.players.len()) != Ok(1));
}

/// ETQW 10.19: a task id before the challenge, a size after the version, clan position and
/// tag, bot flag, and the tail (ranked, time left, game state, server type, interested).
#[test]
fn etqw_layout() {
    let mut b = b"\xff\xffinfoResponse\0".to_vec();
    b.extend_from_slice(&[0xff; 4]); // task id
    b.extend_from_slice(&CHALLENGE.to_le_bytes());
    b.extend_from_slice(&[0x13, 0x00, 0x0a, 0x00]); // protocol 10.19
    b.extend_from_slice(&[0, 0, 0, 0]); // size
    b.extend_from_slice(b"si_name\0QW\0si_map\0maps/valley.entities\0si_maxPlayers\x0024\0\0\0");
    b.extend_from_slice(&[0, 40, 0, 0x88, 0x13, 0, 0]); // number 0, ping 40, rate 5000
    b.extend_from_slice(b"Strogg\0\x00TAG\0\x01"); // name, clan position, clan, bot
    b.push(32);
    b.extend_from_slice(&[0, 0, 0, 0]); // os mask
    b.push(1); // ranked
    b.extend_from_slice(&[0x10, 0x0e, 0, 0]); // time left 3600
    b.push(2); // game state
    b.push(0); // server type: regular
    b.push(4); // interested clients
    let r = decode_reply(&b, Dialect::Etqw, CHALLENGE).unwrap();
    assert_eq!(r.task_id, Some(u32::MAX));
    assert_eq!(r.players[0].bot, Some(true));
    assert_eq!(r.players[0].clan.as_deref(), Some("TAG"));
    let t = r.etqw.clone().unwrap();
    assert_eq!(
        (t.ranked, t.time_left, t.interested_clients),
        (Some(true), Some(3600), Some(4))
    );
    let s = to_status(&r, Dialect::Etqw, Duration::ZERO, true);
    assert_eq!(
        (s.map.as_deref(), s.online, s.max, s.bots),
        (Some("valley"), 1, 24, Some(1))
    );
    let mut out = Vec::new();
    encode_reply(&r, Dialect::Etqw, &mut out);
    assert_eq!(out, b);
}

/// Foreign datagrams and other challenges are mismatches; broken ones are errors.
#[test]
fn mismatches_and_errors() {
    let good = doom3_reply();
    assert_eq!(
        decode_reply(&good, Dialect::Doom3, 7),
        Err(DecodeError::Mismatch("Doom 3 challenge"))
    );
    assert!(matches!(
        decode_reply(b"\xff\xff\xff\xffstatusResponse\n", Dialect::Doom3, 0),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(decode_reply(&good[..40], Dialect::Doom3, CHALLENGE).is_err());
    let mut req = Vec::new();
    encode_request(CHALLENGE, &mut req);
    assert_eq!(&req[..], b"\xff\xffgetInfo\0\x78\x56\x34\x12");
    assert_eq!(decode_request(&req), Ok(CHALLENGE));
    assert_eq!(decode_request(b"\xff\xffgetInfo\0"), Ok(0));
    assert!(decode_request(b"\xff\xffgetStatus\0").is_err());
}

/// Caps: server variables and players.
#[test]
fn caps() {
    let mut r = Reply {
        challenge: 1,
        vars: (0..=MAX_VARS)
            .map(|i| (format!("k{i}"), "v".into()))
            .collect(),
        ..Reply::default()
    };
    let mut out = Vec::new();
    encode_reply(&r, Dialect::Doom3, &mut out);
    assert!(matches!(
        decode_reply(&out, Dialect::Doom3, 1),
        Err(DecodeError::TooLarge { .. })
    ));
    r.vars.clear();
    r.players = (0..=MAX_PLAYERS)
        .map(|i| Player {
            number: (i % 30) as u8,
            name: "x".into(),
            ..Player::default()
        })
        .collect();
    out.clear();
    encode_reply(&r, Dialect::Doom3, &mut out);
    assert!(matches!(
        decode_reply(&out, Dialect::Doom3, 1),
        Err(DecodeError::TooLarge { .. })
    ));
}

/// The layout is read from the reply: every simulator layout, Prey's 3.x as Doom 3, a
/// wrong challenge or a foreign datagram is someone else's.
#[test]
fn detects_layout() {
    for (d, major, minor) in [
        (Dialect::Doom3, 1, 41),
        (Dialect::Quake4, 2, 86),
        (Dialect::Etqw, 10, 19),
        (Dialect::Wolfenstein, 10, 17),
    ] {
        let reply = Reply {
            task_id: (d == Dialect::Etqw).then_some(u32::MAX),
            challenge: CHALLENGE,
            version: Version { major, minor },
            vars: vec![("si_name".into(), "x".into())],
            players: vec![Player {
                name: "p".into(),
                ..Player::default()
            }],
            ..Reply::default()
        };
        let mut out = Vec::new();
        encode_reply(&reply, d, &mut out);
        assert_eq!(detect(&out, CHALLENGE), Ok(d));
        assert!(matches!(detect(&out, 9), Err(DecodeError::Mismatch(_))));
    }
    let mut prey = doom3_reply();
    prey[21] = 4; // protocol 4.41: the Prey demo
    assert_eq!(detect(&prey, CHALLENGE), Ok(Dialect::Doom3));
    for foreign in [
        &b"noise"[..],
        b"\xff",
        b"\xff\xff",
        b"\xff\xffstatusResponse\0",
    ] {
        assert!(matches!(
            detect(foreign, CHALLENGE),
            Err(DecodeError::Mismatch(_))
        ));
    }
}

/// The exchange: foreign datagrams skipped, ours done; nothing by the deadline is a
/// timeout, only wrong challenges a mismatch.
#[test]
fn exchange() {
    use crate::protocol::exchange::oneshot::OneShot;
    use crate::protocol::exchange::{Exchange, Input, Params, Step};
    use crate::status::Reason;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(1);
    let params = Params {
        players: true,
        ..Params::default()
    };
    let start = |challenge| {
        let mut x = OneShot::new(GetInfo { challenge, params }, deadline);
        let mut out = Vec::new();
        assert!(matches!(x.poll(t0, &mut out), Step::Send(_)));
        assert_eq!(out[..10], *b"\xff\xffgetInfo\0");
        assert_eq!(out[10..], challenge.to_le_bytes());
        x
    };
    let rtt = Duration::from_millis(3);
    let mut x = start(CHALLENGE);
    x.handle(
        t0,
        Input::Received {
            bytes: b"noise",
            rtt,
        },
    );
    assert!(matches!(x.poll(t0, &mut Vec::new()), Step::Wait(at) if at == deadline));
    x.handle(
        t0,
        Input::Received {
            bytes: &doom3_reply(),
            rtt,
        },
    );
    let Step::Done(s) = x.poll(t0, &mut Vec::new()) else {
        panic!("not done")
    };
    assert_eq!((s.online, s.max, s.name.as_str()), (1, 8, "Red Doom"));
    assert_eq!((s.latency, s.rules), (rtt, None));
    assert_eq!(s.players.map(|p| p.len()), Some(1));
    let mut x = start(CHALLENGE);
    assert!(
        matches!(x.poll(deadline, &mut Vec::new()), Step::Failed(e) if e.reason() == Reason::Timeout)
    );
    let mut x = start(9);
    x.handle(
        t0,
        Input::Received {
            bytes: &doom3_reply(),
            rtt,
        },
    );
    assert!(
        matches!(x.poll(deadline, &mut Vec::new()), Step::Failed(e) if e.reason() == Reason::Mismatch)
    );
    assert_ne!(exchange::challenge(), u32::MAX);
}

#[test]
fn colours() {
    assert_eq!(strip_colors("^c123Hi^iabc ^1there^^"), "Hi there^");
    assert_eq!(strip_colors("^cx"), "x");
}

fn dialects() -> impl Strategy<Value = Dialect> {
    prop_oneof![
        Just(Dialect::Doom3),
        Just(Dialect::Quake4),
        Just(Dialect::Etqw),
        Just(Dialect::Wolfenstein)
    ]
}

fn arb_reply() -> impl Strategy<Value = (Reply, Dialect)> {
    let text = "[a-zA-Z0-9 ^_]{0,12}";
    (
        dialects(),
        any::<(u32, u16, u16)>(),
        proptest::collection::vec((text, text), 0..8),
        proptest::collection::vec(
            (
                0u8..16,
                any::<u16>(),
                any::<u32>(),
                text,
                text,
                any::<(u8, bool)>(),
            ),
            0..8,
        ),
        any::<u32>(),
    )
        .prop_map(|(d, (challenge, major, minor), vars, players, os)| {
            let version = Version { major, minor };
            let packed = version.packed();
            let vars = vars
                .into_iter()
                .filter(|(k, v)| !(k.is_empty() && v.is_empty()))
                .collect();
            let clans = packed >= 0x000A_0011;
            let players = players
                .into_iter()
                .map(|(number, ping, rate, name, clan, (pos, bot))| Player {
                    number,
                    ping,
                    rate: d.has_rate(packed).then_some(rate),
                    name,
                    clan: match d {
                        Dialect::Quake4 => Some(clan),
                        Dialect::Etqw | Dialect::Wolfenstein if clans => Some(clan),
                        _ => None,
                    },
                    clan_position: (matches!(d, Dialect::Etqw | Dialect::Wolfenstein) && clans)
                        .then_some(pos),
                    bot: matches!(d, Dialect::Etqw | Dialect::Wolfenstein).then_some(bot),
                })
                .collect();
            let etqw = d == Dialect::Etqw;
            let reply = Reply {
                ex: false,
                task_id: etqw.then_some(7),
                challenge,
                version,
                size: etqw.then_some(0),
                vars,
                players,
                os_mask: Some(os),
                etqw: etqw.then_some(EtqwTail {
                    ranked: Some(true),
                    time_left: Some(60),
                    game_state: Some(1),
                    server_type: Some(0),
                    interested_clients: Some(2),
                    tv: None,
                }),
            };
            (reply, d)
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// What we encode decodes to the same reply, in every layout (ETQW 13.9/13.10 aside).
    #[test]
    fn round_trip((reply, d) in arb_reply()) {
        prop_assume!(!(d == Dialect::Etqw && matches!(reply.version.packed(), 0x000D_0009 | 0x000D_000A)));
        let mut out = Vec::new();
        encode_reply(&reply, d, &mut out);
        prop_assert_eq!(decode_reply(&out, d, reply.challenge), Ok(reply));
    }

    /// Arbitrary and mutated bytes never panic, in any layout.
    #[test]
    fn noise(d in dialects(), bytes in proptest::collection::vec(any::<u8>(), 0..200), pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
        let _ = decode_reply(&bytes, d, 0);
        let _ = decode_request(&bytes);
        let mut m = doom3_reply();
        let i = pos.index(m.len());
        m[i] = byte;
        if let Ok(r) = decode_reply(&m, d, CHALLENGE) {
            let _ = to_status(&r, d, Duration::ZERO, true);
        }
    }
}
