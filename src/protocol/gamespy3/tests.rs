//! Byte dumps laid out field by field, the state machine step by step, and proptests.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;

const SESSION: i32 = 0x1020_3040;

/// qstat's `-gs4` handshake and `-gs3 -P` request, byte for byte (qstat.h, session
/// 10 20 30 40), and the request with a challenge as qstat builds it after the handshake.
#[test]
fn dump_requests() {
    let mut out = Vec::new();
    encode_handshake(SESSION, &mut out);
    assert_eq!(out, [0xFE, 0xFD, 0x09, 0x10, 0x20, 0x30, 0x40]);
    assert_eq!(
        decode_request(&out),
        Ok(Request::Handshake { session: SESSION })
    );
    out.clear();
    encode_request(SESSION, None, FULL_REQUEST, &mut out);
    assert_eq!(
        out,
        [0xFE, 0xFD, 0x00, 0x10, 0x20, 0x30, 0x40, 0xFF, 0xFF, 0xFF, 0x01]
    );
    out.clear();
    // The challenge -1287574694 from the comment in qstat's gs3.c is B3 41 2B 5A.
    encode_request(SESSION, Some(-1_287_574_694), FULL_REQUEST, &mut out);
    assert_eq!(
        out,
        [
            0xFE, 0xFD, 0x00, // magic, query
            0x10, 0x20, 0x30, 0x40, // session
            0xB3, 0x41, 0x2B, 0x5A, // challenge, big-endian
            0xFF, 0xFF, 0xFF, 0x01, // keys, players, teams, split allowed
        ]
    );
    assert_eq!(
        decode_request(&out),
        Ok(Request::Query {
            session: SESSION,
            challenge: Some(-1_287_574_694),
            payload: FULL_REQUEST
        })
    );
    // qstat's key-list status request is not ours to decode.
    let keyed = [
        0xFE, 0xFD, 0x00, 0x10, 0x20, 0x30, 0x40, 0x06, 0x01, 0x06, 0x05, 0x08, 0x0a, 0x04, 0x00,
        0x00,
    ];
    assert!(decode_request(&keyed).is_err());
}

/// The handshake reply from qstat's comment: `09` + session + "-1287574694" + NUL.
#[test]
fn dump_handshake_reply() {
    let mut dump = vec![0x09, 0x10, 0x20, 0x30, 0x40];
    dump.extend_from_slice(b"-1287574694\0");
    assert_eq!(decode_handshake(&dump, SESSION), Ok(-1_287_574_694));
    let mut out = Vec::new();
    encode_handshake_reply(SESSION, -1_287_574_694, &mut out);
    assert_eq!(out, dump);
    for bad in [&b"\0"[..], b"-\0", b"12a\0", b"4294967296\0", b" 1\0"] {
        let mut d = dump[..5].to_vec();
        d.extend_from_slice(bad);
        assert!(
            matches!(decode_handshake(&d, SESSION), Err(DecodeError::Invalid(_))),
            "{bad:?}"
        );
    }
    assert!(matches!(
        decode_handshake(&dump, SESSION + 1),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(matches!(
        decode_handshake(&dump[..14], SESSION),
        Err(DecodeError::Unterminated { .. })
    ));
}

/// A Battlefield 2-style reply in one part, as its keys and columns look in captures
/// published with qstat and gamedig bug reports: keys, then players, then teams.
const ONE_PART: &[u8] = b"\x00\x10\x20\x30\x40splitnum\x00\x80\x00\
hostname\x00Sim BF2\x00gamename\x00battlefield2\x00gamever\x001.5.3153-802.0\x00\
mapname\x00Strike At Karkand\x00gametype\x00gpm_cq\x00numplayers\x002\x00\
maxplayers\x0064\x00password\x000\x00\x00\
\x01player_\x00\x00alice\x00bob\x00\x00score_\x00\x0012\x00-3\x00\x00ping_\x00\x0045\x0060\x00\x00\x00\
\x02team_t\x00\x00MEC\x00USMC\x00\x00score_t\x00\x000\x000\x00\x00\x00";

fn sample() -> Reply {
    let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
    let row = |cells: &[&str]| cells.iter().map(|c| Some(c.to_string())).collect();
    Reply {
        info: vec![
            kv("hostname", "Sim BF2"),
            kv("gamename", "battlefield2"),
            kv("gamever", "1.5.3153-802.0"),
            kv("mapname", "Strike At Karkand"),
            kv("gametype", "gpm_cq"),
            kv("numplayers", "2"),
            kv("maxplayers", "64"),
            kv("password", "0"),
        ],
        players: Table {
            fields: vec!["player_".into(), "score_".into(), "ping_".into()],
            rows: vec![row(&["alice", "12", "45"]), row(&["bob", "-3", "60"])],
        },
        teams: Table {
            fields: vec!["team_t".into(), "score_t".into()],
            rows: vec![row(&["MEC", "0"]), row(&["USMC", "0"])],
        },
    }
}

fn decode_all(datagrams: &[Vec<u8>]) -> Result<Reply, DecodeError> {
    let mut parts = Parts::new();
    let mut complete = false;
    for d in datagrams {
        complete = parts.add(&decode_part(d, SESSION)?)?;
    }
    assert!(complete);
    decode_body(parts.bodies())
}

#[test]
fn dump_one_part() {
    let part = decode_part(ONE_PART, SESSION).unwrap();
    assert_eq!((part.index, part.last, part.section), (0, true, 0));
    let reply = decode_all(&[ONE_PART.to_vec()]).unwrap();
    assert_eq!(reply, sample());
    let mut out = Vec::new();
    encode_reply(SESSION, &sample(), 1400, &mut out);
    assert_eq!(out, vec![ONE_PART.to_vec()]);
    for n in 16..ONE_PART.len() {
        // Cut anywhere, a part still decodes or fails; it never panics and never invents rows.
        if let Ok(r) = decode_all(&[ONE_PART[..n].to_vec()]) {
            assert!(r.players.rows.len() <= 2, "{n}");
        }
    }
}

/// The same reply in three parts: the player columns continue in the next part from the
/// offset it names (`score_ 00 01` = the score column from row 1).
#[test]
fn dump_split_columns() {
    let p0 = b"\x00\x10\x20\x30\x40splitnum\x00\x00\x00\
hostname\x00Sim BF2\x00gamename\x00battlefield2\x00gamever\x001.5.3153-802.0\x00\
mapname\x00Strike At Karkand\x00gametype\x00gpm_cq\x00numplayers\x002\x00\
maxplayers\x0064\x00password\x000\x00\x00\
\x01player_\x00\x00alice\x00bob\x00\x00score_\x00\x0012\x00\x00"
        .to_vec();
    let p1 = b"\x00\x10\x20\x30\x40splitnum\x00\x01\x01\
score_\x00\x01-3\x00\x00ping_\x00\x0045\x0060\x00\x00\x00"
        .to_vec();
    let p2 = b"\x00\x10\x20\x30\x40splitnum\x00\x82\x02\
\x02team_t\x00\x00MEC\x00USMC\x00\x00score_t\x00\x000\x000\x00\x00\x00"
        .to_vec();
    assert_eq!(
        decode_all(&[p0.clone(), p1.clone(), p2.clone()]),
        Ok(sample())
    );
    // Any order, duplicates ignored.
    assert_eq!(
        decode_all(&[p2.clone(), p1.clone(), p1.clone(), p0.clone()]),
        Ok(sample())
    );
    let mut parts = Parts::new();
    assert_eq!(parts.add(&decode_part(&p2, SESSION).unwrap()), Ok(false));
    assert_eq!(parts.add(&decode_part(&p0, SESSION).unwrap()), Ok(false));
    assert_eq!((parts.have(), parts.total()), (2, Some(3)));
}

/// Our encoder splits where the format allows: every part within the limit, and they
/// reassemble to the reply.
#[test]
fn encoder_splits() {
    let mut reply = sample();
    for i in 0..40 {
        reply.players.rows.push(vec![
            Some(format!("player number {i}")),
            Some(i.to_string()),
            Some("50".into()),
        ]);
    }
    let mut out = Vec::new();
    encode_reply(SESSION, &reply, 200, &mut out);
    assert!(out.len() > 3, "{}", out.len());
    assert!(out.iter().all(|d| d.len() <= 200 + 32));
    assert_eq!(decode_all(&out), Ok(reply));
}

/// Minecraft's full stat (the wiki.vg dump) is a one-part GameSpy 3 reply: our decoder reads
/// its keys and player names.
#[test]
fn minecraft_full_stat_is_a_variant() {
    let dump = b"\x00\x00\x00\x00\x01splitnum\x00\x80\x00\
hostname\x00A Minecraft Server\x00gametype\x00SMP\x00game_id\x00MINECRAFT\x00\
version\x00Beta 1.9 Prerelease 4\x00plugins\x00\x00map\x00world\x00numplayers\x002\x00\
maxplayers\x0020\x00hostport\x0025565\x00hostname\x00127.0.0.1\x00\x00\
\x01player_\x00\x00barneygale\x00Vivalahelvig\x00\x00";
    let part = decode_part(dump, 1).unwrap();
    let reply = decode_body([(part.section, part.body)]).unwrap();
    assert_eq!(reply.get("map"), Some("world"));
    let names: Vec<_> = (0..2)
        .filter_map(|i| reply.players.get(i, "player_"))
        .collect();
    assert_eq!(names, ["barneygale", "Vivalahelvig"]);
    let status = to_status(
        &reply,
        Want {
            players: true,
            ..Want::default()
        },
        Duration::ZERO,
    );
    assert_eq!((status.online, status.max), (2, 20));
    assert_eq!(status.name, "A Minecraft Server");
    assert_eq!(status.map.as_deref(), Some("world"));
    assert_eq!(status.game.as_deref(), Some("MINECRAFT"));
}

/// The Minecraft flavor against GameSpy 3 proper on the same bytes: its header is skipped
/// unread, its text falls back to Latin-1, its lists must end, and its session is masked.
#[test]
fn minecraft_flavor() {
    let mc = Flavor::MINECRAFT;
    let session = 0x7FFF_FFFF;
    assert_eq!(mc.mask(session), 0x0F0F_0F0F);
    // GeyserMC's header; a Latin-1 hostname; a team section after the names.
    let datagram = b"\x00\x0f\x0f\x0f\x0fGeyserMC!!\x00\
hostname\x00Caf\xe9\x00\x00\x01player_\x00\x00a\x00b\x00\x00\x02team_t\x00\x00X\x00\x00\x00";
    assert!(matches!(
        decode_part(datagram, 0x0F0F_0F0F),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        decode_part_in(&Flavor::GAMESPY3, datagram, session),
        Err(DecodeError::Mismatch(_))
    ));
    let part = decode_part_in(&mc, datagram, session).unwrap();
    assert_eq!((part.index, part.last, part.section), (0, true, 0));
    let reply = decode_body_in(&mc, [(part.section, part.body)]).unwrap();
    assert_eq!(
        reply.info,
        [("hostname".to_string(), "Caf\u{e9}".to_string())]
    );
    let names: Vec<_> = (0..3)
        .filter_map(|i| reply.players.get(i, "player_"))
        .collect();
    assert_eq!(names, ["a", "b"]);
    assert!(reply.teams.rows.is_empty());
    let lossy = decode_body([(part.section, part.body)]).unwrap();
    assert_eq!(lossy.get("hostname"), Some("Caf\u{fffd}"));
    assert_eq!(lossy.teams.get(0, "team_t"), Some("X"));
    // Cut after the key/values, or inside the names: GameSpy 3 reads what came (the next
    // part would continue it), Minecraft's one part is short.
    let body = part.body;
    let cut_at = body.len() - 16;
    for cut in [&body[..16], &body[..cut_at]] {
        assert!(decode_body([(0, cut)]).is_ok());
        assert!(decode_body_in(&mc, [(0, cut)]).is_err());
    }
    let mut wrong = body.to_vec();
    wrong[16] = 0x02;
    assert_eq!(
        decode_body_in(&mc, [(0, &wrong[..])]),
        Err(DecodeError::Invalid("Query full stat player marker"))
    );
    // Minecraft's full stat request is a GameSpy 3 request with a challenge.
    let mut out = Vec::new();
    encode_request(mc.mask(session), Some(9_513_307), mc.payload, &mut out);
    assert_eq!(
        decode_request(&out),
        Ok(Request::Query {
            session: 0x0F0F_0F0F,
            challenge: Some(9_513_307),
            payload: [0; 4]
        })
    );
    out.clear();
    encode_query_head(1, Some(2), &mut out);
    assert_eq!(out, [0xFE, 0xFD, 0x00, 0, 0, 0, 1, 0, 0, 0, 2]);
    // The handshake reply as Minecraft reads it: the echo compared masked.
    let reply = handshake_reply(0x0F0F_0F0F, 42);
    assert_eq!(decode_handshake_in(&mc, &reply, session), Ok(42));
    assert!(matches!(
        decode_handshake(&reply, session),
        Err(DecodeError::Mismatch(_))
    ));
}

#[test]
fn parts_caps() {
    let mut parts = Parts::new();
    let body = [0u8; 4];
    let part = |index, last| Part {
        index,
        last,
        section: 0,
        body: &body,
    };
    assert!(matches!(
        parts.add(&part(MAX_PARTS, false)),
        Err(DecodeError::TooLarge { .. })
    ));
    assert_eq!(parts.add(&part(3, false)), Ok(false));
    assert!(matches!(
        parts.add(&part(1, true)),
        Err(DecodeError::Invalid(_))
    ));
    let mut parts = Parts::new();
    assert_eq!(parts.add(&part(1, true)), Ok(false));
    assert!(matches!(
        parts.add(&part(2, true)),
        Err(DecodeError::Invalid(_))
    ));
    let big = vec![b'a'; MAX_REPLY_BYTES / 2 + 1];
    let mut parts = Parts::new();
    let p = |index| Part {
        index,
        last: false,
        section: 0,
        body: &big,
    };
    assert_eq!(parts.add(&p(0)), Ok(false));
    assert!(matches!(
        parts.add(&p(1)),
        Err(DecodeError::TooLarge { .. })
    ));
}

/// Row offsets past the cap are too large, not an allocation.
#[test]
fn rows_capped() {
    let mut body = b"\x00\x01player_\x00\xff".to_vec();
    for _ in 0..(MAX_ROWS - 255 + 1) {
        body.extend_from_slice(b"x\x00");
    }
    body.push(0);
    assert!(matches!(
        decode_body([(0, &body[..])]),
        Err(DecodeError::TooLarge {
            what: "GameSpy3 rows",
            ..
        })
    ));
}

#[test]
fn status_mapping() {
    let s = to_status(
        &sample(),
        Want {
            detail: true,
            players: true,
            rules: true,
        },
        Duration::from_millis(7),
    );
    assert_eq!(s.name, "Sim BF2");
    assert_eq!(s.map.as_deref(), Some("Strike At Karkand"));
    assert_eq!(s.game.as_deref(), Some("battlefield2"));
    assert_eq!(s.version.as_deref(), Some("1.5.3153-802.0"));
    assert_eq!((s.online, s.max, s.password), (2, 64, Some(false)));
    let players = s.players.unwrap();
    assert_eq!(players[1].name, "bob");
    assert_eq!((players[1].score, players[1].ping), (Some(-3), Some(60)));
    assert_eq!(s.rules.unwrap().len(), 8);
    assert_eq!(s.extras["teams"], serde_json::json!(["MEC", "USMC"]));
    assert_eq!(s.latency, Duration::from_millis(7));
}

/// Unreal Tournament 3 names the map in a numbered key; its `mapname` is something else.
#[test]
fn ut3_map_key() {
    let mut reply = sample();
    reply.info.push(("p1073741825".into(), "DM-Deck".into()));
    let s = to_status(&reply, Want::default(), Duration::ZERO);
    assert_eq!(s.map.as_deref(), Some("DM-Deck"));
}

// --- the state machine ---

use crate::protocol::exchange::{Error, Exchange as _, Input, LinkError, Params, Step};
use crate::status::Reason;

fn handshake_reply(session: i32, challenge: i32) -> Vec<u8> {
    let mut out = Vec::new();
    encode_handshake_reply(session, challenge, &mut out);
    out
}

const BUDGET: Duration = Duration::from_secs(3);

fn exchange(t0: Instant, challengeless: bool) -> GameSpy3 {
    let params = Params {
        players: true,
        ..Params::default()
    };
    GameSpy3::new(params, SESSION, challengeless, t0 + BUDGET)
}

fn feed(ex: &mut GameSpy3, now: Instant, bytes: &[u8]) {
    let rtt = Duration::from_millis(5);
    ex.handle(now, Input::Received { bytes, rtt });
}

fn sent(step: Step) -> &'static str {
    match step {
        Step::Send(label) => label,
        other => panic!("expected a send, got {other:?}"),
    }
}

fn waits(step: Step) -> Instant {
    match step {
        Step::Wait(until) => until,
        other => panic!("expected a wait, got {other:?}"),
    }
}

fn failed(step: Step) -> Error {
    match step {
        Step::Failed(e) => e,
        other => panic!("expected a failure, got {other:?}"),
    }
}

fn done(step: Step) -> crate::status::Status {
    match step {
        Step::Done(s) => s,
        other => panic!("expected a status, got {other:?}"),
    }
}

#[test]
fn exchange_with_challenge() {
    let t0 = Instant::now();
    let mut ex = exchange(t0, false);
    let mut out = Vec::new();
    assert_eq!(sent(ex.poll(t0, &mut out)), "GameSpy3 handshake");
    assert_eq!(out, [0xFE, 0xFD, 0x09, 0x10, 0x20, 0x30, 0x40]);
    assert_eq!(waits(ex.poll(t0, &mut out)), t0 + Duration::from_secs(1));
    feed(&mut ex, t0, &handshake_reply(SESSION, 42));
    assert_eq!(
        sent(ex.poll(t0, &mut out)),
        "GameSpy3 request with the challenge"
    );
    assert_eq!(&out[7..], [0, 0, 0, 42, 0xFF, 0xFF, 0xFF, 0x01]);
    assert_eq!(waits(ex.poll(t0, &mut out)), t0 + BUDGET);
    // Someone else's part is ignored.
    let mut other = ONE_PART.to_vec();
    other[1] ^= 1;
    feed(&mut ex, t0, &other);
    assert_eq!(waits(ex.poll(t0, &mut out)), t0 + BUDGET);
    feed(&mut ex, t0, ONE_PART);
    let s = done(ex.poll(t0, &mut out));
    assert_eq!((s.name.as_str(), s.online, s.max), ("Sim BF2", 2, 64));
    assert_eq!(s.players.map(|p| p.len()), Some(2));
    assert_eq!(s.latency, Duration::from_millis(5));
    assert!(!ex.challengeless());
}

/// Challenge 0, or no answer to the handshake: the request goes without challenge bytes,
/// and the next poll is told to start with it.
#[test]
fn exchange_without_challenge() {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    feed(&mut ex, t0, &handshake_reply(SESSION, 0));
    assert_eq!(
        sent(ex.poll(t0, &mut out)),
        "GameSpy3 request (no handshake needed)"
    );
    assert_eq!(out.len(), 11);
    feed(&mut ex, t0, ONE_PART);
    done(ex.poll(t0, &mut out));
    assert!(ex.challengeless());

    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    let later = t0 + Duration::from_secs(1);
    assert_eq!(
        sent(ex.poll(later, &mut out)),
        "GameSpy3 request (no handshake needed)"
    );
    // A late challenge still counts: the request goes again with it.
    feed(&mut ex, later, &handshake_reply(SESSION, 9));
    assert_eq!(
        sent(ex.poll(later, &mut out)),
        "GameSpy3 request with the challenge"
    );
    feed(&mut ex, later, ONE_PART);
    assert_eq!(done(ex.poll(later, &mut out)).name, "Sim BF2");
    assert!(!ex.challengeless());
}

/// Remembered: the request goes first, without a handshake; unanswered for a third of the
/// budget, the handshake follows and its challenge is used.
#[test]
fn exchange_remembers_challengeless() {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut ex = exchange(t0, true);
    assert_eq!(
        sent(ex.poll(t0, &mut out)),
        "GameSpy3 request (no handshake needed)"
    );
    feed(&mut ex, t0, ONE_PART);
    done(ex.poll(t0, &mut out));
    assert!(ex.challengeless());

    let mut ex = exchange(t0, true);
    ex.poll(t0, &mut out);
    let third = t0 + Duration::from_secs(1);
    assert_eq!(waits(ex.poll(t0, &mut out)), third);
    assert_eq!(sent(ex.poll(third, &mut out)), "GameSpy3 handshake");
    assert_eq!(waits(ex.poll(third, &mut out)), t0 + BUDGET);
    feed(&mut ex, third, &handshake_reply(SESSION, 7));
    assert_eq!(
        sent(ex.poll(third, &mut out)),
        "GameSpy3 request with the challenge"
    );
    feed(&mut ex, third, ONE_PART);
    done(ex.poll(third, &mut out));
    assert!(!ex.challengeless());
}

#[test]
fn exchange_failures() {
    let t0 = Instant::now();
    let end = t0 + BUDGET;
    let mut out = Vec::new();
    // Silence: a timeout at the deadline.
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    ex.poll(t0 + Duration::from_secs(1), &mut out);
    assert_eq!(failed(ex.poll(end, &mut out)).reason(), Reason::Timeout);
    // Only someone else's replies: mismatch.
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    feed(&mut ex, t0, &handshake_reply(SESSION ^ 1, 5));
    assert_eq!(failed(ex.poll(end, &mut out)).reason(), Reason::Mismatch);
    // Some parts: incomplete.
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    feed(&mut ex, t0, &handshake_reply(SESSION, 1));
    ex.poll(t0, &mut out);
    let mut p = ONE_PART.to_vec();
    p[14] = 0x81;
    feed(&mut ex, t0, &p);
    assert!(matches!(
        failed(ex.poll(end, &mut out)),
        Error::SplitIncomplete
    ));
    // Endless new challenges.
    let limit = Params::default().limits.max_challenges;
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    for c in 1..=i32::from(limit) {
        feed(&mut ex, t0, &handshake_reply(SESSION, c));
        assert_eq!(
            sent(ex.poll(t0, &mut out)),
            "GameSpy3 request with the challenge"
        );
    }
    feed(&mut ex, t0, &handshake_reply(SESSION, 99));
    assert!(matches!(
        failed(ex.poll(t0, &mut out)),
        Error::Challenge { limit: l } if l == limit
    ));
    // A garbage part addressed to us: malformed.
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    feed(&mut ex, t0, &handshake_reply(SESSION, 1));
    ex.poll(t0, &mut out);
    feed(&mut ex, t0, b"\x00\x10\x20\x30\x40splitnuX\x00\x80\x00");
    let e = failed(ex.poll(t0, &mut out));
    assert!(matches!(e.decode(), Some(DecodeError::Invalid(_))), "{e:?}");
    assert_eq!(e.reason(), Reason::Malformed);
    // The link failed.
    let mut ex = exchange(t0, false);
    ex.poll(t0, &mut out);
    ex.handle(t0, Input::Failed(LinkError::Refused));
    assert_eq!(failed(ex.poll(t0, &mut out)).reason(), Reason::Refused);
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ .é-]{1,20}"
}

fn table(prefix: &'static str) -> impl Strategy<Value = Table> {
    (1usize..5, 0usize..40).prop_flat_map(move |(width, height)| {
        (
            proptest::collection::vec("[a-z]{1,8}", width),
            proptest::collection::vec(proptest::collection::vec(text(), width), height),
        )
            .prop_map(move |(names, rows)| {
                let mut fields: Vec<String> = Vec::new();
                for n in names {
                    let f = format!("{n}{prefix}");
                    if !fields.contains(&f) {
                        fields.push(f);
                    }
                }
                let w = fields.len();
                Table {
                    fields,
                    rows: rows
                        .into_iter()
                        .map(|r| r.into_iter().take(w).map(Some).collect())
                        .collect(),
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes never panic a decoder, and a decoded body never has more rows than
    /// its bytes could name.
    #[test]
    fn decoders_survive_noise(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = decode_request(&bytes);
        let _ = decode_handshake(&bytes, SESSION);
        let _ = decode_part(&bytes, SESSION);
        if let Ok(r) = decode_body([(0, &bytes[..])]) {
            prop_assert!(r.players.rows.len() <= MAX_ROWS);
            prop_assert!(r.info.len() <= bytes.len() / 2);
        }
    }

    /// One mutated byte in the one-part dump never panics.
    #[test]
    fn mutations(at in 0..ONE_PART.len(), byte in any::<u8>()) {
        let mut d = ONE_PART.to_vec();
        d[at] = byte;
        if let Ok(p) = decode_part(&d, SESSION) {
            let _ = decode_body([(p.section, p.body)]);
        }
    }

    /// encode then decode gives the reply back, whatever the part size, in any part order.
    #[test]
    fn reply_round_trip(info in proptest::collection::vec(("[a-z_]{1,12}", "[a-zA-Z0-9 ]{0,20}"), 0..20),
                        players in table("_"), teams in table("_t"),
                        limit in 300usize..1400, reverse in any::<bool>()) {
        let reply = Reply { info, players, teams };
        let mut out = Vec::new();
        encode_reply(SESSION, &reply, limit, &mut out);
        if reverse {
            out.reverse();
        }
        prop_assert_eq!(decode_all(&out)?, reply);
    }

    /// Requests and handshake replies round-trip.
    #[test]
    fn request_round_trip(session in any::<i32>(), challenge in proptest::option::of(any::<i32>())) {
        let mut out = Vec::new();
        encode_request(session, challenge, FULL_REQUEST, &mut out);
        prop_assert_eq!(decode_request(&out), Ok(Request::Query { session, challenge, payload: FULL_REQUEST }));
        out.clear();
        let c = challenge.unwrap_or(0);
        encode_handshake_reply(session, c, &mut out);
        prop_assert_eq!(decode_handshake(&out, session), Ok(c));
    }

    /// The state machine fed arbitrary datagrams at arbitrary times ends, and never runs
    /// past its deadline.
    #[test]
    fn exchange_survives_noise(inputs in proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..64), 0u64..4000), 0..12), remembered in any::<bool>()) {
        let t0 = Instant::now();
        let mut ex = exchange(t0, remembered);
        let mut out = Vec::new();
        let mut now = t0;
        for (mut d, ms) in inputs {
            if d.len() > 5 {
                d[1..5].copy_from_slice(&SESSION.to_be_bytes());
            }
            now = t0 + Duration::from_millis(ms).max(now - t0);
            feed(&mut ex, now, &d);
            if let Step::Wait(t) = ex.poll(now, &mut out) {
                prop_assert!(t <= t0 + BUDGET && t > now);
            }
        }
        let end = t0 + Duration::from_secs(4);
        let mut steps = 0;
        loop {
            steps += 1;
            prop_assert!(steps < 10);
            match ex.poll(end, &mut out) {
                Step::Done(_) | Step::Failed(_) => break,
                Step::Wait(t) => prop_assert!(false, "waits past the deadline until {:?}", t),
                _ => {}
            }
        }
    }
}

/// A reply in one datagram is whole by itself (read in place); with another part in, or not
/// the last, or past the byte cap, it is not, and the cap says so as `add` would.
#[test]
fn part_alone() {
    let body = [0u8; 8];
    let part = |index, last| Part {
        index,
        last,
        section: 0,
        body: &body,
    };
    let mut parts = Parts::new();
    assert_eq!(parts.alone(&part(0, true)), Ok(true));
    assert_eq!(parts.alone(&part(0, false)), Ok(false));
    assert_eq!(parts.alone(&part(1, true)), Ok(false));
    assert_eq!(parts.add(&part(1, false)), Ok(false));
    assert_eq!(parts.alone(&part(0, true)), Ok(false));
    let small = Parts::with_caps(MAX_PARTS, 7);
    assert_eq!(
        small.alone(&part(0, true)),
        Err(DecodeError::TooLarge {
            what: "GameSpy3 reply bytes",
            value: 8,
            limit: 7
        })
    );
}

/// A view without cells (a poll that wants no players) walks the same bytes: the same
/// key/values and row counts, no cells, the same status.
#[test]
fn view_without_cells() {
    let mut parts = Vec::new();
    encode_reply(1, &sample(), 1400, &mut parts);
    assert_eq!(parts.len(), 1);
    let part = decode_part(&parts[0], 1).unwrap();
    let bodies = [(part.section, part.body)];
    let full = view_body_in(&Flavor::GAMESPY3, bodies).unwrap();
    let lean = view_body_keeping(&Flavor::GAMESPY3, bodies, false).unwrap();
    assert_eq!(lean.info, full.info);
    assert_eq!(full.get("hostname"), Some(&b"Sim BF2"[..]));
    assert_eq!(lean.players.rows(), 2);
    assert_eq!(lean.teams.rows(), full.teams.rows());
    assert_eq!(full.players.get(1, "player_"), Some(&b"bob"[..]));
    assert_eq!(lean.players.get(1, "player_"), None);
    let want = Want::default();
    assert_eq!(
        status_of(&lean, want, Duration::ZERO),
        status_of(&full, want, Duration::ZERO)
    );
    assert_eq!(status_of(&lean, want, Duration::ZERO).online, 2);
}
