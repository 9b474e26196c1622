//! The codec against what the real bzfs sent, byte dumps of every message, and arbitrary
//! bytes.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

/// What the real bzfs 2.4.26 (Debian bookworm `bzflag-server` 2.4.26) answered to
/// [`encode_request`] in one write, started as `bzfs -p <port> -i 127.0.0.1
/// -noMasterBanlist -mp 12 -ms 3 -j -mps 50 -mts 100 -time 600`, 30 s after `bzadmin`
/// joined it as the observer `Watcher` (motto `bzadmin`): the hello's answer (player id 1),
/// `qg`, `qp` (8 teams, 1 player), `tu` (5 teams) and one `ap`, byte for byte.
pub(crate) const BZFS_2_4_26: &str =
    "425a46533032323101002c716700000018000c0003000000000000000000000001000c000c000c000c000c00\
c800000000003200640258001e00047170000800010029747505000000000000000000010000000000000002\
0000000000000003000000000000000400000000000000ab6170000000000500000000000057617463686572\
00000000000000000000000000000000000000000000000000627a61646d696e000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
000000000000000000000000000000000000000000";

/// The same server with nobody on it, queried as the first connection (player id 0,
/// elapsed time 0: the clock had not started).
pub(crate) const BZFS_EMPTY: &str =
    "425a46533032323100002c716700000018000c0003000000000000000000000000000c000c000c000c000c00\
c800000000003200640258000000047170000800000029747505000000000000000000010000000000000002\
00000000000000030000000000000004000000000000";

/// The same bzfs restarted as a capture-the-flag server (`-c -mp 20 -ms 2 -j -mts 5 -time
/// 900 -loadplugin serverSidePlayerSample.so`): the plugin's robot `Sample 0` and `bzadmin`'s
/// `Watcher` both joined as observers (player ids 0 and 1; we were 2).
pub(crate) const BZFS_CTF: &str =
    "425a46533032323102002c716700010018001400020000000000000000000000020014001400140014001400\
c800000000000000050384000000047170000800020029747505000000000000000000010000000000000002\
0000000000000003000000000000000400000000000000ab6170000000000500000000000053616d706c6520\
3000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
00000000000000000000000000000000000000000000ab617001000000050000000000005761746368657200\
000000000000000000000000000000000000000000000000627a61646d696e00000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000";

/// The first server (`-mp 12 -ms 3 -j -mps 50 -mts 100 -time 600`) restarted, with two
/// scripted clients entered as tanks over loopback (`MsgEnter`: `Alpha` red, `Bravo` blue,
/// motto `scripted`, as `.ci/interop/bzflag.sh` enters them) and `bzadmin`'s `Watcher`
/// observing: we were player 3.
pub(crate) const BZFS_TANKS: &str =
    "425a46533032323103002c716700000018000c0003000000010000000100000001000c000c000c000c000c00\
c800000000003200640258000000047170000800030029747505000000000000000000010001000000000002\
0000000000000003000100000000000400000000000000ab61700000000003000000000000427261766f0000\
0000000000000000000000000000000000000000000000000073637269707465640000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
00000000000000000000000000000000000000000000ab61700100000001000000000000416c706861000000\
0000000000000000000000000000000000000000000000007363726970746564000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
000000000000000000000000000000000000000000ab61700200000005000000000000576174636865720000\
0000000000000000000000000000000000000000000000627a61646d696e0000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
00000000000000000000000000000000000000";

/// bzfs restarted as a Rabbit Chase server (`-rabbit -mp 10`) with the two scripted tanks
/// entered (asking for rogue and red): `qg`'s six team sizes are all 0, the tanks are on
/// the hunter team (7), outside them; only the records count them.
pub(crate) const BZFS_RABBIT: &str =
    "425a46533032323102002c716700030010000a0001000000000000000000000000000a000000000000000000\
c800000000000000000000000000047170000800020029747505000000000000000000010000000000000002\
0000000000000003000000000000000400000000000000ab61700000000007000000000000416c7068610000\
0000000000000000000000000000000000000000000000000073637269707465640000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
00000000000000000000000000000000000000000000ab61700100000007000000000000427261766f000000\
0000000000000000000000000000000000000000000000007363726970746564000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000\
0000000000000000000000000000000000000000";

pub(crate) fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Frames a whole capture: the hello's answer and every message.
fn frames(bytes: &[u8]) -> (Hello, Vec<Message>) {
    let (hello, mut at) = decode_hello(bytes).unwrap().unwrap();
    let mut out = Vec::new();
    while at < bytes.len() {
        let (m, used) = decode_message(&bytes[at..]).unwrap().unwrap();
        out.push(m);
        at += used;
    }
    (hello, out)
}

#[test]
fn the_request_is_what_bzfquery_sends() {
    let mut out = Vec::new();
    encode_request(&mut out);
    assert_eq!(out, b"BZFLAG\r\n\r\n\x00\x00qg\x00\x00qp");
}

#[test]
fn real_bzfs_field_by_field() {
    let bytes = unhex(BZFS_2_4_26);
    assert_eq!(bytes.len(), 285);
    let (hello, messages) = frames(&bytes);
    assert_eq!(
        hello,
        Hello {
            version: "0221".into(),
            id: 1
        }
    );
    let codes: Vec<u16> = messages.iter().map(|m| m.code).collect();
    assert_eq!(
        codes,
        [
            MSG_QUERY_GAME,
            MSG_QUERY_PLAYERS,
            MSG_TEAM_UPDATE,
            MSG_ADD_PLAYER
        ]
    );
    let g = decode_game(&messages[0].body).unwrap();
    assert_eq!(
        g,
        Game {
            style: 0,
            // -j (jumping) and the inertia bit bzfs 2.4 always sets.
            options: 0x0018,
            max_players: 12,
            max_shots: 3,
            team_sizes: [0, 0, 0, 0, 0, 1],
            team_max: [12, 12, 12, 12, 12, 200],
            shake_wins: 0,
            shake_timeout: 0,
            max_player_score: 50,
            max_team_score: 100,
            time_limit: 600,
            time_elapsed: 30,
        }
    );
    assert_eq!(decode_player_count(&messages[1].body).unwrap(), (8, 1));
    assert_eq!(messages[2].body.len(), 41);
    assert_eq!(messages[3].body.len(), RECORD_LEN);
    let watcher = decode_record(&messages[3].body).unwrap();
    assert_eq!(
        watcher,
        Record {
            id: 0,
            kind: 0,
            team: OBSERVER_TEAM,
            wins: 0,
            losses: 0,
            team_kills: 0,
            callsign: "Watcher".into(),
            motto: "bzadmin".into(),
        }
    );
    // The observer is not a player: 0 of 12, and not listed.
    let s = to_status(&g, &[watcher], "0221", Duration::ZERO, (true, true, true));
    assert_eq!((s.online, s.max, s.bots), (0, 12, Some(0)));
    assert_eq!(s.players, Some(vec![]));
    assert_eq!(s.game.as_deref(), Some("Team FFA"));
    assert_eq!(s.version.as_deref(), Some("0221"));
    assert_eq!(s.name, "");
    assert_eq!(s.extras["observers"], 1);
    assert_eq!(s.extras["observers_max"], 200);
    let rules = s.rules.unwrap();
    let rule = |k: &str| rules.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    assert_eq!(rule("options"), Some("jumping,inertia"));
    assert_eq!(rule("max_shots"), Some("3"));
    assert_eq!(rule("max_player_score"), Some("50"));
    assert_eq!(rule("max_team_score"), Some("100"));
    assert_eq!(rule("time_limit"), Some("600"));
    assert_eq!(rule("max_observer"), Some("200"));
}

#[test]
fn real_empty_bzfs() {
    let (hello, messages) = frames(&unhex(BZFS_EMPTY));
    assert_eq!(hello.id, 0);
    let g = decode_game(&messages[0].body).unwrap();
    assert_eq!((g.team_sizes, g.time_elapsed), ([0; 6], 0));
    assert_eq!(decode_player_count(&messages[1].body).unwrap(), (8, 0));
    assert_eq!(messages.len(), 3);
}

#[test]
fn real_ctf_bzfs_with_two_observers() {
    let bytes = unhex(BZFS_CTF);
    assert_eq!(bytes.len(), 460);
    let (hello, messages) = frames(&bytes);
    assert_eq!(hello.id, 2);
    let g = decode_game(&messages[0].body).unwrap();
    assert_eq!((g.style, g.max_players, g.max_shots), (1, 20, 2));
    assert_eq!((g.max_team_score, g.time_limit), (5, 900));
    assert_eq!(g.team_sizes, [0, 0, 0, 0, 0, 2]);
    assert_eq!(decode_player_count(&messages[1].body).unwrap(), (8, 2));
    let records: Vec<Record> = messages[3..]
        .iter()
        .map(|m| decode_record(&m.body).unwrap())
        .collect();
    let names: Vec<(u8, &str, u16)> = records
        .iter()
        .map(|r| (r.id, r.callsign.as_str(), r.team))
        .collect();
    assert_eq!(names, [(0, "Sample 0", 5), (1, "Watcher", 5)]);
    let s = to_status(&g, &records, "0221", Duration::ZERO, (true, false, true));
    assert_eq!((s.online, s.max), (0, 20));
    assert_eq!(s.game.as_deref(), Some("Capture the Flag"));
    assert_eq!(s.extras["observers"], 2);
}

#[test]
fn real_bzfs_with_two_tanks_and_an_observer() {
    let bytes = unhex(BZFS_TANKS);
    assert_eq!(bytes.len(), 635);
    let (hello, messages) = frames(&bytes);
    assert_eq!(hello.id, 3);
    let g = decode_game(&messages[0].body).unwrap();
    assert_eq!(g.team_sizes, [0, 1, 0, 1, 0, 1]);
    assert_eq!(decode_player_count(&messages[1].body).unwrap(), (8, 3));
    let records: Vec<Record> = messages[3..]
        .iter()
        .map(|m| decode_record(&m.body).unwrap())
        .collect();
    let seen: Vec<(u8, &str, u16, &str)> = records
        .iter()
        .map(|r| (r.id, r.callsign.as_str(), r.team, r.motto.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (0, "Bravo", 3, "scripted"),
            (1, "Alpha", 1, "scripted"),
            (2, "Watcher", 5, "bzadmin"),
        ]
    );
    let s = to_status(&g, &records, "0221", Duration::ZERO, (true, false, true));
    assert_eq!((s.online, s.max, s.bots), (2, 12, Some(0)));
    let names: Vec<&str> = s
        .players
        .iter()
        .flatten()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["Bravo", "Alpha"]);
    assert_eq!(s.extras["observers"], 1);
}

#[test]
fn real_rabbit_chase_counts_the_hunters() {
    let (_, messages) = frames(&unhex(BZFS_RABBIT));
    let g = decode_game(&messages[0].body).unwrap();
    assert_eq!((g.style, g.max_players, g.team_sizes), (3, 10, [0; 6]));
    let records: Vec<Record> = messages[3..]
        .iter()
        .map(|m| decode_record(&m.body).unwrap())
        .collect();
    let teams: Vec<(&str, u16)> = records
        .iter()
        .map(|r| (r.callsign.as_str(), r.team))
        .collect();
    assert_eq!(teams, [("Alpha", 7), ("Bravo", 7)]);
    let s = to_status(&g, &records, "0221", Duration::ZERO, (false, false, false));
    assert_eq!((s.online, s.max), (2, 10));
    assert_eq!(s.game.as_deref(), Some("Rabbit Chase"));
}

#[test]
fn records_round_trip_and_cut_long_names() {
    let r = Record {
        id: 7,
        kind: COMPUTER_PLAYER,
        team: 1,
        wins: 12,
        losses: 3,
        team_kills: 1,
        callsign: "x".repeat(40),
        motto: "ümlaut".into(),
    };
    let mut body = Vec::new();
    encode_record(&r, &mut body);
    assert_eq!(body.len(), RECORD_LEN);
    assert_eq!(&body[..11], b"\x07\x00\x01\x00\x01\x00\x0c\x00\x03\x00\x01");
    let back = decode_record(&body).unwrap();
    assert_eq!(back.callsign, "x".repeat(31));
    assert_eq!(back.motto, "ümlaut");
    assert_eq!((back.id, back.wins, back.losses), (7, 12, 3));
    let s = to_status(
        &Game::default(),
        &[back],
        "0221",
        Duration::ZERO,
        (true, false, false),
    );
    assert_eq!((s.online, s.bots), (1, Some(1)));
    assert_eq!(s.players.unwrap()[0].score, Some(9));
}

#[test]
fn game_round_trips() {
    let g = Game {
        style: 1,
        options: 0x0462,
        max_players: 40,
        max_shots: 5,
        team_sizes: [1, 2, 3, 4, 5, 6],
        team_max: [7, 8, 9, 10, 11, 12],
        shake_wins: 2,
        shake_timeout: 50,
        max_player_score: 0,
        max_team_score: 10,
        time_limit: 0,
        time_elapsed: 65535,
    };
    let mut body = Vec::new();
    encode_game(&g, &mut body);
    assert_eq!(body.len(), game::GAME_LEN);
    assert_eq!(decode_game(&body).unwrap(), g);
    assert_eq!(game::style_name(1), "Capture the Flag");
    assert_eq!(game::style_name(9), "style 9");
    assert_eq!(
        game::option_names(0x0462),
        "superflags,ricochet,shaking,no_team_kills"
    );
}

#[test]
fn refusals_and_lies() {
    // A full server: id 0xff.
    assert_eq!(
        decode_hello(b"BZFS0221\xff").unwrap().unwrap().0.id,
        NO_SLOT
    );
    // bzfs's answer to a peer that never said hello (after 2.5 s): not a slot.
    assert!(decode_hello(b"BZFS0221\r\n\r\n").unwrap().is_some());
    // Not bzfs: refused from the first differing byte.
    assert!(decode_hello(b"HT").is_err());
    assert!(decode_hello(b"BZ").unwrap().is_none());
    assert!(decode_hello(b"BZFS02\x0021\x01").is_err());
    // A length above bzfs's packet size, refused from the header alone.
    assert!(matches!(
        decode_message(b"\x04\x00qg"),
        Err(DecodeError::TooLarge { value: 1024, .. })
    ));
    assert_eq!(decode_message(b"\x03\xfcqg").unwrap(), None);
    // A short body.
    assert!(decode_game(&[0; 43]).is_err());
    assert!(decode_record(&[0; RECORD_LEN - 1]).is_err());
    assert!(matches!(
        decode_player_count(b"\x00\x08\x01\x00"),
        Err(DecodeError::TooLarge { value: 256, .. })
    ));
}

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = decode_hello(&bytes);
        if let Ok(Some((m, used))) = decode_message(&bytes) {
            prop_assert!(used <= bytes.len() && used <= MAX_PACKET);
            prop_assert_eq!(m.body.len() + HEADER, used);
        }
        let _ = decode_game(&bytes);
        let _ = decode_player_count(&bytes);
        let _ = decode_record(&bytes);
    }

    #[test]
    fn records_round_trip(id: u8, kind: u16, team: u16, wins: u16, losses: u16, tks: u16,
                          callsign in "[a-zA-Z0-9 ]{0,31}", motto in "[a-z ]{0,127}") {
        let r = Record { id, kind, team, wins, losses, team_kills: tks, callsign, motto };
        let mut body = Vec::new();
        encode_record(&r, &mut body);
        prop_assert_eq!(decode_record(&body).unwrap(), r);
    }
}

mod dialogue {
    //! The exchange fed the real bzfs's bytes in pieces, on a virtual clock.

    use std::time::{Duration, Instant};

    use proptest::prelude::*;

    use super::{unhex, BZFS_2_4_26, BZFS_EMPTY};
    use crate::protocol::bzflag::exchange::Bzflag;
    use crate::protocol::exchange::{Exchange, Input, Params, Step};
    use crate::status::{Reason, Status};

    /// Runs one poll: connect, send, then `pieces` of the reply; what it ended with.
    fn run(params: Params, pieces: &[&[u8]]) -> Result<Status, Reason> {
        let now = Instant::now();
        let mut x = Bzflag::new(params, now + Duration::from_secs(5));
        let mut out = Vec::new();
        assert!(matches!(x.poll(now, &mut out), Step::Connect(_)));
        assert!(matches!(x.poll(now, &mut out), Step::Send(_)));
        assert_eq!(out, b"BZFLAG\r\n\r\n\x00\x00qg\x00\x00qp");
        for p in pieces {
            match x.poll(now, &mut out) {
                Step::Wait(_) => {}
                Step::Done(s) => return Ok(s),
                Step::Failed(e) => return Err(e.reason()),
                other => panic!("{other:?}"),
            }
            x.handle(
                now,
                Input::Received {
                    bytes: p,
                    rtt: Duration::from_millis(2),
                },
            );
        }
        match x.poll(now + Duration::from_secs(6), &mut out) {
            Step::Done(s) => Ok(s),
            Step::Failed(e) => Err(e.reason()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn the_real_reply_in_one_piece() {
        let bytes = unhex(BZFS_2_4_26);
        let params = Params {
            players: true,
            rules: true,
            ..Params::default()
        };
        let s = run(params, &[&bytes]).unwrap();
        assert_eq!((s.online, s.max, s.bots), (0, 12, Some(0)));
        assert_eq!(s.players, Some(vec![]));
        assert_eq!(s.latency, Duration::from_millis(2));
        assert!(s
            .rules
            .unwrap()
            .contains(&("time_limit".into(), "600".into())));
    }

    /// With nobody on, the poll still ends only after `tu`, the last message bzfs sends:
    /// the connection closes with nothing unread.
    #[test]
    fn an_empty_server_ends_after_the_team_update() {
        let bytes = unhex(BZFS_EMPTY);
        let s = run(Params::default(), &[&bytes]).unwrap();
        assert_eq!((s.online, s.max, s.bots), (0, 12, Some(0)));
        let without_tu = &bytes[..bytes.len() - 45];
        assert_eq!(run(Params::default(), &[without_tu]), Err(Reason::Timeout));
    }

    #[test]
    fn a_full_server_refuses() {
        assert_eq!(
            run(Params::default(), &[b"BZFS0221\xff"]),
            Err(Reason::Refused)
        );
        assert_eq!(
            run(Params::default(), &[b"SSH-2.0"]),
            Err(Reason::Malformed)
        );
    }

    #[test]
    fn an_unfinished_reply_times_out() {
        let bytes = unhex(BZFS_2_4_26);
        let cut = &bytes[..bytes.len() - 1];
        assert_eq!(run(Params::default(), &[cut]), Err(Reason::Timeout));
    }

    proptest! {
        #[test]
        fn any_split_reads_the_same(cuts in proptest::collection::vec(0usize..285, 0..6)) {
            let bytes = unhex(BZFS_2_4_26);
            let mut cuts = cuts;
            cuts.push(0);
            cuts.push(bytes.len());
            cuts.sort_unstable();
            let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
            let s = run(Params::default(), &pieces).unwrap();
            prop_assert_eq!((s.online, s.max), (0, 12));
        }

        #[test]
        fn arbitrary_replies_end(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
            let _ = run(Params::default(), &[&bytes]);
        }
    }
}

/// The checked-in `exchanges` fuzz seed (arm 31: the pick byte 0x8f with players on, the
/// arm byte, then the replay script: the real bzfs's reply in chunks of 200 bytes) reaches
/// a status.
#[test]
fn fuzz_seed_replays_to_a_status() {
    use std::time::Instant;

    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;

    let seed = include_bytes!("../../../fuzz/corpus/exchanges/bzflag-query_reply");
    assert_eq!(&seed[..2], &[0x8f, 31]);
    let params = Params {
        players: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = exchange::Bzflag::new(params, deadline);
    let r = replay(&mut x, start, deadline, &seed[2..]);
    let status = r.result.unwrap().unwrap();
    assert_eq!((status.online, status.max), (0, 12));
    assert_eq!(status.players, Some(vec![]));
}
