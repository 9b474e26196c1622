//! The dialogues without sockets: each exchange driven by the real driver over the in-memory
//! transport ([`super::fake`]), under tokio's paused clock.

use crate::protocol::a2s::exchange::Memory as A2sMemory;
use std::time::Duration;

use tokio::time::Instant;

use super::driver::{drive, Pacing};
use super::fake::{Answer, Fake};
use super::{Error, Request, Session};
use crate::net::NetError;
use crate::protocol::a2s::exchange::A2s;
use crate::protocol::a2s::{self, Info, Query};
use crate::protocol::bedrock::exchange::Ping as BedrockPing;
use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::minecraft::legacy::{self, LegacyStatus};
use crate::protocol::minecraft::query::{self as mcq, FullStat};
use crate::protocol::minecraft::query_exchange::{McQuery, Memory, RELEARN};
use crate::protocol::minecraft::slp;
use crate::protocol::minecraft::slp_exchange::Slp;
use crate::protocol::minecraft::varint::decode_frame;
use crate::protocol::mumble::exchange::Ping as MumblePing;
use crate::protocol::samp;
use crate::protocol::samp::exchange::Samp;
use crate::protocol::teeworlds::exchange::Teeworlds;
use crate::protocol::teeworlds::machine::Tokens;
use crate::protocol::{bedrock, mumble};
use crate::status::Reason;
use crate::target::{Address, Protocol};

fn request(protocol: Protocol) -> Request {
    Request::new(protocol, Address::parse("127.0.0.1").unwrap())
}

fn deadline() -> Instant {
    Instant::now() + Duration::from_secs(5)
}

fn info() -> Vec<u8> {
    let info = Info {
        name: "in memory".into(),
        players: 3,
        max_players: 10,
        ..Info::default()
    };
    let mut out = Vec::new();
    a2s::encode_info(&info, &mut out);
    out
}

fn challenge(c: [u8; 4]) -> Answer {
    let mut out = Vec::new();
    a2s::encode_challenge(c, &mut out);
    Answer::Bytes(out)
}

/// The challenge an info request carries.
fn info_challenge(req: &[u8]) -> Option<[u8; 4]> {
    match a2s::decode_request(req) {
        Ok(Query::Info { challenge }) => challenge,
        other => panic!("not an info request: {other:?}"),
    }
}

/// A server that rotates its challenge mid-way (it answers the first challenged request
/// with a new challenge) is followed, and the last challenge is remembered for next time.
#[tokio::test(start_paused = true)]
async fn a2s_new_challenge_mid_way() {
    let req = request(Protocol::A2s);
    let mut session = Session::default();
    let mut fake = Fake::<true>::new(|_, n, bytes| match (n, info_challenge(bytes)) {
        (0, None) => vec![challenge([1, 1, 1, 1])],
        (1, Some([1, 1, 1, 1])) => vec![challenge([2, 2, 2, 2])],
        (2, Some([2, 2, 2, 2])) => vec![Answer::Bytes(info())],
        other => panic!("unexpected request {other:?}"),
    });
    let deadline = deadline();
    let mut x = A2s::new(
        req.params(),
        session.memory.get::<A2sMemory>().challenge,
        deadline.into_std(),
    );
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    session.memory.get::<A2sMemory>().challenge = x.challenge();
    assert_eq!(
        (status.name.as_str(), status.online, status.max),
        ("in memory", 3, 10)
    );
    assert_eq!(fake.sent.len(), 3);
    assert_eq!(
        session.memory.get::<A2sMemory>().challenge,
        Some([2, 2, 2, 2])
    );
}

/// A server that issues a new challenge for every request fails the poll with `challenge`
/// once the bound is passed: the bound's worth of challenged requests, and no more.
#[tokio::test(start_paused = true)]
async fn a2s_challenge_cap_reached() {
    let mut req = request(Protocol::A2s);
    req.limits.max_challenges = 2;
    let mut session = Session::default();
    let mut fake = Fake::<true>::new(|_, n, _| vec![challenge([n as u8; 4])]);
    let deadline = deadline();
    let mut x = A2s::new(
        req.params(),
        session.memory.get::<A2sMemory>().challenge,
        deadline.into_std(),
    );
    let err = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap_err();
    assert!(matches!(err, Error::Challenge { limit: 2 }), "{err:?}");
    assert_eq!(err.reason(), Reason::Challenge);
    // The first request, then one per challenge allowed.
    assert_eq!(fake.sent.len(), 3);
}

fn full_stat(session: i32) -> Vec<u8> {
    let stat = FullStat {
        values: vec![
            ("hostname".into(), "A Minecraft Server".into()),
            ("numplayers".into(), "2".into()),
            ("maxplayers".into(), "20".into()),
        ],
        players: vec!["alice".into(), "bob".into()],
    };
    let mut out = Vec::new();
    mcq::encode_full_stat_reply(session, &stat, &mcq::VANILLA_PADDING, &mut out);
    out
}

/// A Minecraft query memory holding `token` for session id `session`, issued `age` ago
/// (the paused clock is advanced by `age`: an instant before the clock's start may not
/// exist), on local port 40000, no token lifetime learned.
async fn aged_token(session: i32, token: i32, age: Duration) -> Memory {
    let issued = Instant::now();
    tokio::time::advance(age).await;
    Memory {
        token: Some((session, token)),
        token_at: Some(issued.into_std()),
        local_port: Some(40000),
        stale_after: None,
    }
}

/// What one Minecraft query poll left behind.
struct McPoll {
    status: crate::status::Status,
    /// The exchange's memory after the poll (what the session keeps).
    memory: Memory,
    /// Every datagram sent, resends included.
    sent: Vec<Vec<u8>>,
}

/// One Minecraft query poll from port 40000 with `memory`, against `fake`, driven until
/// `timeout` from now; it must succeed.
async fn mcquery_poll(memory: Memory, mut fake: Fake<true>, timeout: Duration) -> McPoll {
    let req = request(Protocol::MinecraftQuery);
    let deadline = Instant::now() + timeout;
    let mut x = McQuery::new(req.params(), memory, Some(40000), deadline.into_std());
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    McPoll {
        status,
        memory: x.memory(),
        sent: fake.sent.into_iter().map(|(_, b)| b).collect(),
    }
}

/// A remembered token the server has rotated gets no answer (the stat is dropped): after a
/// third of the time the exchange asks for a new token once and polls with it; the session
/// remembers the new token.
#[tokio::test(start_paused = true)]
async fn mcquery_token_refresh() {
    const OLD: i32 = 1111;
    const NEW: i32 = 2222;
    let memory = aged_token(0x0101_0101, OLD, Duration::ZERO).await;
    let fake = Fake::<true>::new(|_, _, bytes| match mcq::decode_request(bytes) {
        Ok(mcq::Request::FullStat { token: OLD, .. }) => vec![],
        Ok(mcq::Request::Handshake { session }) => {
            let mut out = Vec::new();
            mcq::encode_handshake_reply(session, NEW, &mut out);
            vec![Answer::Bytes(out)]
        }
        Ok(mcq::Request::FullStat {
            session,
            token: NEW,
        }) => vec![Answer::Bytes(full_stat(session))],
        other => panic!("unexpected request {other:?}"),
    });
    let started = Instant::now();
    let poll = mcquery_poll(memory, fake, Duration::from_secs(3)).await;
    let status = poll.status;
    assert_eq!((status.online, status.max), (2, 20));
    assert_eq!(status.name, "A Minecraft Server");
    let kinds: Vec<_> = poll
        .sent
        .iter()
        .map(|b| mcq::decode_request(b).unwrap())
        .collect();
    // The old stat (sent again once its wait allowed), then handshake and the new stat.
    assert!(matches!(
        kinds[0],
        mcq::Request::FullStat { token: OLD, .. }
    ));
    let handshake = kinds
        .iter()
        .position(|k| matches!(k, mcq::Request::Handshake { .. }))
        .unwrap();
    assert!(kinds[..handshake]
        .iter()
        .all(|k| matches!(k, mcq::Request::FullStat { token: OLD, .. })));
    assert!(matches!(
        kinds[handshake + 1..],
        [mcq::Request::FullStat { token: NEW, .. }]
    ));
    // The refresh came after the remembered token's share: a third of the time.
    assert!(Instant::now() - started >= Duration::from_secs(1));
    assert_eq!(poll.memory.token.map(|(_, t)| t), Some(NEW));
    assert_eq!(poll.memory.local_port, Some(40000));
}

/// The exact stat request with `token`: `FE FD 00`, the session id as sent, the token
/// big-endian, the four payload bytes of the full stat.
fn stat_bytes(session: [u8; 4], token: i32) -> Vec<u8> {
    let mut want = vec![0xFE, 0xFD, 0x00];
    want.extend_from_slice(&session);
    want.extend_from_slice(&token.to_be_bytes());
    want.extend_from_slice(&[0, 0, 0, 0]);
    want
}

/// A server that answers handshakes with token 7 and stats carrying 7 (or `also`), and
/// ignores any other token.
fn token_server(also: i32) -> Fake<true> {
    Fake::<true>::new(move |_, _, bytes| match mcq::decode_request(bytes) {
        Ok(mcq::Request::Handshake { session }) => {
            let mut out = Vec::new();
            mcq::encode_handshake_reply(session, 7, &mut out);
            vec![Answer::Bytes(out)]
        }
        Ok(mcq::Request::FullStat { session, token }) if token == 7 || token == also => {
            vec![Answer::Bytes(full_stat(session))]
        }
        Ok(mcq::Request::FullStat { .. }) => vec![],
        other => panic!("unexpected request {other:?}"),
    })
}

/// A token an hour old is still tried (vanilla 1.13+ never drops one): one stat, sent with
/// the remembered session id and token, and no handshake.
#[tokio::test(start_paused = true)]
async fn mcquery_old_token_tried_until_ignored() {
    let memory = aged_token(0x0102_0304, 0x00AB_CDEF, Duration::from_secs(3600)).await;
    let McPoll { sent, memory, .. } =
        mcquery_poll(memory, token_server(0x00AB_CDEF), Duration::from_secs(5)).await;
    assert_eq!(
        sent,
        [[
            0xFE, 0xFD, 0x00, 0x01, 0x02, 0x03, 0x04, 0x00, 0xAB, 0xCD, 0xEF, 0x00, 0x00, 0x00,
            0x00
        ]]
    );
    assert_eq!(memory.stale_after, None);
}

/// An ignored token teaches its age: the poll falls back to a handshake after its share,
/// and the session remembers that tokens of that age are stale.
#[tokio::test(start_paused = true)]
async fn mcquery_ignored_token_age_learned() {
    let memory = aged_token(0x0101_0101, 1111, Duration::from_secs(40)).await;
    let McPoll { sent, memory, .. } =
        mcquery_poll(memory, token_server(7), Duration::from_secs(5)).await;
    assert_eq!(sent[0], stat_bytes([1, 1, 1, 1], 1111));
    let hs = sent.iter().position(|b| b[2] == 0x09).unwrap();
    let session: [u8; 4] = sent[hs][3..7].try_into().unwrap();
    assert_eq!(sent[hs], [&[0xFE, 0xFD, 0x09][..], &session].concat());
    assert_eq!(sent[hs + 1..], [stat_bytes(session, 7)]);
    let (age, _) = memory.stale_after.unwrap();
    assert_eq!(age, Duration::from_secs(40));
    assert_eq!(memory.token.map(|(_, t)| t), Some(7));
}

/// A token at least as old as a learned lifetime is not tried: the poll starts with a
/// handshake, then the stat with the new token (two datagrams, no wait). Past
/// [`RELEARN`] the lifetime is forgotten and an old token is tried again.
#[tokio::test(start_paused = true)]
async fn mcquery_token_past_learned_lifetime_refreshed() {
    let memory = aged_token(0x0101_0101, 1, Duration::from_secs(31)).await;
    let learned = Some((Duration::from_secs(30), Instant::now().into_std()));
    let memory = Memory {
        stale_after: learned,
        ..memory
    };
    let started = Instant::now();
    let McPoll { sent, memory, .. } =
        mcquery_poll(memory, token_server(1), Duration::from_secs(5)).await;
    assert_eq!(Instant::now(), started, "no wait");
    assert_eq!(sent.len(), 2);
    let session: [u8; 4] = sent[0][3..7].try_into().unwrap();
    assert_eq!(sent[0], [&[0xFE, 0xFD, 0x09][..], &session].concat());
    assert_eq!(sent[1], stat_bytes(session, 7));
    assert_eq!(memory.stale_after, learned);

    // Ten minutes on, the same 31 s old token (it is the one the server takes) is tried.
    tokio::time::advance(RELEARN).await;
    let memory = Memory {
        stale_after: memory.stale_after,
        ..aged_token(0x0101_0101, 1, Duration::from_secs(31)).await
    };
    let McPoll { sent, .. } = mcquery_poll(memory, token_server(1), Duration::from_secs(5)).await;
    assert_eq!(sent, [stat_bytes([1, 1, 1, 1], 1)]);
}

fn kick(motd: &str) -> Answer {
    let text = legacy::encode_kick_text(&LegacyStatus {
        protocol: None,
        version: None,
        motd: motd.into(),
        online: 4,
        max: 8,
    });
    let mut out = Vec::new();
    legacy::encode_kick(&text, &mut out);
    Answer::Bytes(out)
}

/// The protocol number announced by a 1.7+ handshake, if `bytes` start with one.
fn handshake_version(bytes: &[u8]) -> Option<i32> {
    let (frame, _) = decode_frame(bytes, 1024).ok()??;
    slp::decode_handshake(&frame)
        .ok()
        .map(|h| h.protocol_version)
}

fn status_frame(json: &str) -> Answer {
    let mut out = Vec::new();
    slp::encode_status_response(json, &mut out);
    Answer::Bytes(out)
}

/// The whole fallback chain: the 1.7+ request meets a close with nothing sent, and so does
/// its retry announcing protocol 47 (not a 1.7+ server), the 1.6 ping is ignored until its
/// share of the time runs out, the 1.4 ping is reset, and the beta ping is answered. Each
/// attempt has a connection of its own.
#[tokio::test(start_paused = true)]
async fn slp_fallback_chain() {
    let req = request(Protocol::Minecraft);
    let mut fake = Fake::<false>::new(|conn, _, bytes| match (conn, legacy::decode_ping(bytes)) {
        (1, _) => {
            assert_eq!(handshake_version(bytes), Some(-1));
            vec![Answer::Close]
        }
        (2, _) => {
            assert_eq!(handshake_version(bytes), Some(slp::PROTOCOL_VERSION_RETRY));
            vec![Answer::Close]
        }
        (3, Ok(Some((legacy::Variant::V16, _)))) => vec![],
        (4, Ok(Some((legacy::Variant::V14, None)))) => vec![Answer::Reset],
        (5, Ok(Some((legacy::Variant::Beta, None)))) => vec![kick("a beta server")],
        other => panic!("unexpected request {other:?}"),
    });
    let started = Instant::now();
    let deadline = started + Duration::from_secs(3);
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(status.name, "a beta server");
    assert_eq!((status.online, status.max), (4, 8));
    assert_eq!(status.extras["legacy"], serde_json::json!("beta"));
    assert_eq!(fake.connections, 5);
    // Streams are never resent: one request per connection.
    let per_connection: Vec<usize> = fake.sent.iter().map(|(c, _)| *c).collect();
    assert_eq!(per_connection, [1, 2, 3, 4, 5]);
    // The silent 1.6 attempt had a third of the time.
    assert!(Instant::now() - started >= Duration::from_secs(1));
}

/// A server that closes on `-1` but knows protocol 47 is polled through the retry, on a
/// second connection, before any legacy ping; the latency comes from its pong.
#[tokio::test(start_paused = true)]
async fn slp_retries_with_concrete_protocol() {
    let req = request(Protocol::Minecraft);
    let mut fake = Fake::<false>::new(|_, n, bytes| match (handshake_version(bytes), n) {
        (Some(slp::PROTOCOL_VERSION_RETRY), 0) => vec![status_frame(
            r#"{"version":{"name":"1.8.9","protocol":47},"players":{"online":3,"max":9},"description":"strict"}"#,
        )],
        (Some(-1), 0) => vec![Answer::Close],
        (None, 1) => {
            // The ping on the retry's connection: the pong echoes it.
            let mut out = Vec::new();
            out.extend_from_slice(bytes);
            vec![Answer::Bytes(out)]
        }
        other => panic!("unexpected request {other:?}"),
    });
    let deadline = deadline();
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(
        (status.name.as_str(), status.online, status.max),
        ("strict", 3, 9)
    );
    assert_eq!(status.version.as_deref(), Some("1.8.9"));
    assert!(status.extras.get("legacy").is_none());
    assert_eq!(fake.connections, 2);
    let versions: Vec<Option<i32>> = fake
        .sent
        .iter()
        .map(|(_, b)| handshake_version(b))
        .collect();
    assert_eq!(versions, [Some(-1), Some(47), None]);
}

/// A server that answers `-1` gets no retry; one that answers the first request with an
/// `FF` kick (a legacy server) goes straight to the legacy pings, without the retry.
#[tokio::test(start_paused = true)]
async fn slp_retry_only_after_a_silent_close() {
    let req = request(Protocol::Minecraft);
    let mut fake = Fake::<false>::new(|_, n, bytes| match n {
        0 => vec![status_frame(
            r#"{"players":{"online":1,"max":2},"description":"v"}"#,
        )],
        _ => vec![Answer::Bytes(bytes.to_vec())],
    });
    let deadline = deadline();
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(fake.connections, 1);
    let mut fake = Fake::<false>::new(|conn, _, bytes| match conn {
        1 => {
            assert_eq!(handshake_version(bytes), Some(-1));
            vec![kick("legacy")]
        }
        _ => {
            assert!(
                matches!(legacy::decode_ping(bytes), Ok(Some(_))),
                "{bytes:?}"
            );
            vec![kick("legacy")]
        }
    });
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(status.name, "legacy");
    assert_eq!(fake.connections, 2);
}

/// When every legacy ping fails too, the reason is the most telling one: a legacy reply that
/// did not decode beats the 1.7+ attempt's close.
#[tokio::test(start_paused = true)]
async fn slp_chain_reports_informative_failure() {
    let req = request(Protocol::Minecraft);
    let mut fake = Fake::<false>::new(|conn, _, _| match conn {
        3 => vec![Answer::Bytes(vec![0xff, 0x00, 0x01, 0x00, b'x'])],
        _ => vec![Answer::Close],
    });
    let deadline = deadline();
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    let err = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap_err();
    assert_eq!(err.reason(), Reason::Malformed, "{err}");
    let mut fake = Fake::<false>::new(|_, _, _| vec![Answer::Close]);
    let mut x = Slp::new(req.params(), "localhost", 25565, deadline.into_std());
    let err = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, Error::Net(NetError::Closed { received: 0 })),
        "{err:?}"
    );
}

const SAMP_HEADER: samp::Header = samp::Header {
    ip: std::net::Ipv4Addr::LOCALHOST,
    port: 7777,
};

fn samp_info() -> Answer {
    let info = samp::Info {
        password: false,
        players: 2,
        max: 50,
        hostname: "in memory".into(),
        gamemode: "freeroam".into(),
        language: "English".into(),
    };
    let mut out = Vec::new();
    samp::encode_info(&SAMP_HEADER, &info, encoding_rs::WINDOWS_1252, &mut out);
    Answer::Bytes(out)
}

/// SA:MP: a server that ignores `d` gets `c` (each with its share of the time); the list
/// comes from `c`, without ids or pings.
#[tokio::test(start_paused = true)]
async fn samp_detailed_falls_back_to_clients() {
    let mut req = request(Protocol::Samp);
    req.players = true;
    let mut fake = Fake::<true>::new(|_, _, bytes| {
        let r = samp::decode_request(bytes).unwrap();
        match r.opcode {
            samp::Opcode::Info => vec![samp_info()],
            samp::Opcode::Detailed => vec![],
            samp::Opcode::Clients => {
                let clients = [samp::Client {
                    name: "carl".into(),
                    score: 9,
                }];
                let mut out = Vec::new();
                samp::encode_clients(&SAMP_HEADER, &clients, encoding_rs::WINDOWS_1252, &mut out);
                vec![Answer::Bytes(out)]
            }
            other => panic!("unexpected request {other:?}"),
        }
    });
    let deadline = deadline();
    let mut x = Samp::new(req.params(), SAMP_HEADER, deadline.into_std());
    let status = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!((status.online, status.max), (2, 50));
    let players = status.players.unwrap();
    assert_eq!(players.len(), 1);
    assert_eq!(
        (players[0].name.as_str(), players[0].score, players[0].ping),
        ("carl", Some(9), None)
    );
    let opcodes: Vec<samp::Opcode> = fake
        .sent
        .iter()
        .map(|(_, b)| samp::decode_request(b).unwrap().opcode)
        .collect();
    assert_eq!(opcodes.first(), Some(&samp::Opcode::Info));
    assert_eq!(opcodes.last(), Some(&samp::Opcode::Clients));
    assert!(opcodes.contains(&samp::Opcode::Detailed));
    assert_eq!(status.extras.get("players_error"), None);
}

/// Mumble: a reply echoing another ident (a late one) is skipped, ours is used; only
/// replies to something else until the deadline is `mismatch`.
#[tokio::test(start_paused = true)]
async fn mumble_skips_foreign_idents() {
    let pong = |ident: [u8; 8], users| {
        let mut out = Vec::new();
        mumble::encode_pong(
            &mumble::Pong {
                version: mumble::Version::from_u32(0x0001_0304),
                ident,
                users,
                max_users: 10,
                bandwidth: 1,
            },
            &mut out,
        );
        Answer::Bytes(out)
    };
    let mut fake = Fake::<true>::new(move |_, _, bytes| {
        let ident: [u8; 8] = bytes[4..12].try_into().unwrap();
        vec![pong([0; 8], 9), pong(ident, 4)]
    });
    let d = deadline();
    let ping = MumblePing {
        ident: [7; 8],
        detail: false,
    };
    let status = drive(
        &mut OneShot::new(ping, d.into_std()),
        &mut fake,
        d,
        Pacing::default(),
        None,
    )
    .await
    .unwrap();
    assert_eq!((status.online, status.max), (4, 10));
    let mut fake = Fake::<true>::new(move |_, _, _| vec![pong([0; 8], 9)]);
    let ping = MumblePing {
        ident: [7; 8],
        detail: false,
    };
    let err = drive(
        &mut OneShot::new(ping, d.into_std()),
        &mut fake,
        d,
        Pacing::default(),
        None,
    )
    .await
    .unwrap_err();
    assert_eq!(err.reason(), Reason::Mismatch, "{err}");
}

/// Bedrock: a pong echoing another time is skipped; a datagram that is not a pong at all
/// fails the poll as `malformed` at once.
#[tokio::test(start_paused = true)]
async fn bedrock_skips_other_times_fails_on_garbage() {
    let pong = |time: i64| {
        let mut out = Vec::new();
        bedrock::encode_pong(time, 1, b"MCPE;m;1;1.0;2;5;1", &mut out);
        Answer::Bytes(out)
    };
    let mut fake = Fake::<true>::new(move |_, _, bytes| {
        let ping = bedrock::decode_ping(bytes).unwrap();
        vec![pong(ping.time.wrapping_add(1)), pong(ping.time)]
    });
    let d = deadline();
    let status = drive(
        &mut OneShot::new(BedrockPing::new(false), d.into_std()),
        &mut fake,
        d,
        Pacing::default(),
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        (status.online, status.max, status.name.as_str()),
        (2, 5, "m")
    );
    let mut fake = Fake::<true>::new(move |_, _, _| vec![Answer::Bytes(vec![0x1d; 40])]);
    let started = Instant::now();
    let err = drive(
        &mut OneShot::new(BedrockPing::new(false), d.into_std()),
        &mut fake,
        d,
        Pacing::default(),
        None,
    )
    .await
    .unwrap_err();
    assert_eq!(err.reason(), Reason::Malformed, "{err}");
    assert_eq!(Instant::now(), started);
}

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever a server answers (any bytes, any number of datagrams or chunks, closes and
    /// resets), every exchange finishes within its deadline without panicking.
    #[test]
    fn exchanges_survive_hostile_answers(
        answers in proptest::collection::vec(
            prop_oneof![
                8 => proptest::collection::vec(any::<u8>(), 0..64)
                    .prop_map(Answer::Bytes),
                1 => Just(Answer::Close),
                1 => Just(Answer::Reset),
            ],
            0..6,
        ),
        every_request in any::<bool>(),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .start_paused(true)
            .build()
            .unwrap();
        rt.block_on(async {
            let script = move |_: usize, n: usize, _: &[u8]| {
                if n == 0 || every_request { answers.clone() } else { vec![] }
            };
            let mut all = request(Protocol::A2s);
            all.players = true;
            all.rules = true;
            all.detail = true;
            let d = deadline();
            let (p, ds) = (all.params(), d.into_std());
            let _ = drive(&mut A2s::new(p, None, ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut Samp::new(p, SAMP_HEADER, ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut McQuery::new(p, Memory::default(), None, ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut OneShot::new(BedrockPing::new(true), ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut OneShot::new(MumblePing { ident: [1; 8], detail: true }, ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut Teeworlds::new(p, None, Tokens { six: 1, seven: 2, browse: 3 }, Duration::from_millis(500), ds), &mut Fake::<true>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut Slp::new(p, "localhost", 25565, ds), &mut Fake::<false>::new(script.clone()), d, Pacing::default(), None).await;
            let secret = || Some(crate::secret::Secret::new("pw"));
            let _ = drive(&mut crate::protocol::nadeo::exchange::Nadeo::new(p, None, 1, ds), &mut Fake::<false>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut crate::protocol::bzflag::exchange::Bzflag::new(p, ds), &mut Fake::<false>::new(script.clone()), d, Pacing::default(), None).await;
            let _ = drive(&mut crate::protocol::factorio::exchange::new(p, secret(), 7, ds), &mut Fake::<false>::new(script), d, Pacing::default(), None).await;
            assert!(Instant::now() <= d + Duration::from_millis(1));
        });
    }
}

/// A2S_PLAYER with challenge `c`, byte for byte: header, 'U', the challenge.
fn player_request(c: [u8; 4]) -> Vec<u8> {
    let mut want = vec![0xFF, 0xFF, 0xFF, 0xFF, 0x55];
    want.extend_from_slice(&c);
    want
}

/// A2S_INFO with challenge `c`, byte for byte: header, 'T', the payload and its NUL, the
/// challenge.
fn info_request(c: Option<[u8; 4]>) -> Vec<u8> {
    let mut want = vec![0xFF, 0xFF, 0xFF, 0xFF, 0x54];
    want.extend_from_slice(b"Source Engine Query\0");
    want.extend_from_slice(c.as_ref().map_or(&[][..], |c| &c[..]));
    want
}

/// Two players, as the server encodes them.
fn player_list() -> Vec<u8> {
    let players = [("ann", 7, 61.5), ("bo", -1, 2.0)].map(|(name, score, duration)| a2s::Player {
        index: 0,
        name: name.into(),
        score,
        duration,
    });
    let mut out = Vec::new();
    a2s::encode_players(&players, &mut out);
    out
}

/// Labels of what the driver sent, in order.
#[derive(Default)]
struct Sends(Vec<&'static str>);

impl super::driver::Observer for Sends {
    fn event(&mut self, _at: Instant, event: super::driver::Event<'_>) {
        use super::driver::Event;
        match event {
            Event::Sent { what, .. } => self.0.push(what),
            Event::Resent { .. } => self.0.push("resent"),
            _ => {}
        }
    }
}

/// One A2S poll with players, from `memory`, over `fake`: the status or error, the memory to
/// keep and the labels of what went out.
async fn a2s_players_poll(
    fake: &mut Fake<true>,
    memory: A2sMemory,
    max_challenges: u8,
) -> (
    Result<crate::status::Status, Error>,
    A2sMemory,
    Vec<&'static str>,
) {
    let mut req = request(Protocol::A2s);
    req.players = true;
    req.limits.max_challenges = max_challenges;
    let deadline = deadline();
    let mut x = A2s::new(req.params(), memory.challenge, deadline.into_std())
        .with_list_challenge(memory.list_challenge);
    let mut sends = Sends::default();
    let result = drive(&mut x, fake, deadline, Pacing::default(), Some(&mut sends)).await;
    let memory = A2sMemory {
        challenge: x.challenge(),
        list_challenge: x.list_challenge(),
    };
    (result, memory, sends.0)
}

fn names(s: &crate::status::Status) -> Vec<&str> {
    s.players
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|p| p.name.as_str())
        .collect()
}

const KNOWN: A2sMemory = A2sMemory {
    challenge: Some([1, 2, 3, 4]),
    list_challenge: None,
};

/// Steady state with the challenge known: A2S_PLAYER goes out ahead of A2S_INFO (one batch),
/// the list comes first, and the info reply ends the poll: two datagrams out, none again, the
/// latency the info round trip.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_list_first() {
    let mut fake = Fake::<true>::new(|_, n, bytes| match n {
        0 => {
            assert_eq!(bytes, player_request([1, 2, 3, 4]));
            vec![Answer::Bytes(player_list())]
        }
        1 => {
            assert_eq!(bytes, info_request(Some([1, 2, 3, 4])));
            vec![Answer::Bytes(info())]
        }
        _ => panic!("a third request"),
    });
    let (result, memory, sends) = a2s_players_poll(&mut fake, KNOWN, 3).await;
    let s = result.unwrap();
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO"]);
    assert_eq!((s.name.as_str(), s.online), ("in memory", 3));
    assert_eq!(names(&s), ["ann", "bo"]);
    assert_eq!(s.players.as_ref().unwrap()[0].score, Some(7));
    assert!(!s.extras.contains_key("players_error"));
    assert_eq!(memory, KNOWN);
}

/// Info first, the list right behind it: the list is taken in the players step (which asks
/// once more, as the sequential dialogue does, before it reads the queued list).
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_info_first() {
    let mut fake = Fake::<true>::new(|_, n, bytes| match n {
        0 => vec![],
        1 => vec![Answer::Bytes(info()), Answer::Bytes(player_list())],
        2 => {
            assert_eq!(bytes, player_request([1, 2, 3, 4]));
            vec![]
        }
        _ => panic!("a fourth request"),
    });
    let (result, _, sends) = a2s_players_poll(&mut fake, KNOWN, 3).await;
    let s = result.unwrap();
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO", "A2S_PLAYER"]);
    assert_eq!(names(&s), ["ann", "bo"]);
}

/// The pipelined list is lost: info alone answers, then players are asked the sequential way
/// and their reply is used.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_list_lost() {
    let mut fake = Fake::<true>::new(|_, n, bytes| match n {
        0 => vec![],
        1 => vec![Answer::Bytes(info())],
        2 => {
            assert_eq!(bytes, player_request([1, 2, 3, 4]));
            vec![Answer::Bytes(player_list())]
        }
        _ => panic!("a fourth request"),
    });
    let (result, _, sends) = a2s_players_poll(&mut fake, KNOWN, 3).await;
    let s = result.unwrap();
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO", "A2S_PLAYER"]);
    assert_eq!(names(&s), ["ann", "bo"]);
    assert!(!s.extras.contains_key("players_error"));
}

/// A server that never lists players: the pipelined request and the players step's own go
/// unanswered, and the poll succeeds with `players_error`, as before pipelining.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_never_answered() {
    let mut fake = Fake::<true>::new(|_, _, bytes| match a2s::decode_request(bytes) {
        Ok(Query::Info { .. }) => vec![Answer::Bytes(info())],
        _ => vec![],
    });
    let (result, _, sends) = a2s_players_poll(&mut fake, KNOWN, 3).await;
    let s = result.unwrap();
    assert_eq!(s.players, None);
    assert_eq!(s.extras["players_error"], "timeout");
    assert_eq!(
        sends[..3],
        ["A2S_PLAYER (pipelined)", "A2S_INFO", "A2S_PLAYER"]
    );
    // Only the players step's own request is resent, never the pipelined one.
    assert!(sends[3..].iter().all(|s| *s == "resent"), "{sends:?}");
}

/// A stale challenge: both pipelined requests are answered with the server's new one. The
/// first is taken as info's, its repeat (the other request's answer) is not a second round
/// (one challenge allowed here), and players follow the sequential way with it.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_stale_challenge() {
    let new = [9, 9, 9, 9];
    let mut fake = Fake::<true>::new(move |_, n, bytes| match n {
        0 => {
            assert_eq!(bytes, player_request([1, 2, 3, 4]));
            vec![challenge(new)]
        }
        1 => {
            assert_eq!(bytes, info_request(Some([1, 2, 3, 4])));
            vec![challenge(new)]
        }
        2 => {
            assert_eq!(bytes, info_request(Some(new)));
            vec![Answer::Bytes(info())]
        }
        3 => {
            assert_eq!(bytes, player_request(new));
            vec![Answer::Bytes(player_list())]
        }
        _ => panic!("a fifth request"),
    });
    let (result, memory, sends) = a2s_players_poll(&mut fake, KNOWN, 1).await;
    let s = result.unwrap();
    assert_eq!(
        sends,
        [
            "A2S_PLAYER (pipelined)",
            "A2S_INFO",
            "A2S_INFO with the new challenge",
            "A2S_PLAYER"
        ]
    );
    assert_eq!(names(&s), ["ann", "bo"]);
    assert_eq!(memory.challenge, Some(new));
}

/// A server that challenges only the lists: the first poll learns the list challenge, the
/// next pipelines with it; when it has gone stale, the challenge answering the pipelined
/// request is the list's (info went without one), and players follow with it.
#[tokio::test(start_paused = true)]
async fn a2s_players_list_challenge_remembered() {
    let current = std::sync::Arc::new(std::sync::Mutex::new([5, 5, 5, 5]));
    let server = current.clone();
    let mut fake = Fake::<true>::new(move |_, _, bytes| {
        let current = *server.lock().unwrap();
        match a2s::decode_request(bytes) {
            Ok(Query::Info { challenge: None }) => vec![Answer::Bytes(info())],
            Ok(Query::Players { challenge: c }) if c == current => {
                vec![Answer::Bytes(player_list())]
            }
            Ok(Query::Players { .. }) => vec![challenge(current)],
            other => panic!("unexpected request {other:?}"),
        }
    });
    // First poll: info, then the list's challenge round (sequential).
    let (result, memory, sends) = a2s_players_poll(&mut fake, A2sMemory::default(), 3).await;
    assert_eq!(names(&result.unwrap()), ["ann", "bo"]);
    assert_eq!(
        sends,
        [
            "A2S_INFO",
            "A2S_PLAYER",
            "A2S_PLAYER with the new challenge"
        ]
    );
    let want = A2sMemory {
        challenge: None,
        list_challenge: Some([5, 5, 5, 5]),
    };
    assert_eq!(memory, want);
    // Second poll: pipelined, one batch.
    fake.sent.clear();
    let (result, memory, sends) = a2s_players_poll(&mut fake, memory, 3).await;
    assert_eq!(names(&result.unwrap()), ["ann", "bo"]);
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO"]);
    assert_eq!(fake.sent[0].1, player_request([5, 5, 5, 5]));
    assert_eq!(fake.sent[1].1, info_request(None));
    assert_eq!(memory, want);
    // The list challenge changes: the pipelined request is rechallenged, info still
    // answers at once, and players follow with the new challenge (one allowed is enough).
    *current.lock().unwrap() = [6, 6, 6, 6];
    fake.sent.clear();
    let (result, memory, sends) = a2s_players_poll(&mut fake, memory, 1).await;
    assert_eq!(names(&result.unwrap()), ["ann", "bo"]);
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO", "A2S_PLAYER"]);
    assert_eq!(fake.sent[2].1, player_request([6, 6, 6, 6]));
    assert_eq!(memory.list_challenge, Some([6, 6, 6, 6]));
}

/// A split list interleaved with the info reply (fragment, info, fragment): reassembly
/// keys by id, so the info reply in between neither breaks the list nor is lost.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_split_list() {
    let fragments = a2s::split::encode_split(
        &player_list(),
        77,
        a2s::split::SplitOptions {
            format: a2s::split::Format::Source { size_field: true },
            fragment_size: 16,
            compress: false,
        },
    );
    assert!(fragments.len() >= 2);
    let mut fake = Fake::<true>::new(move |_, n, _| match n {
        0 => vec![],
        1 => {
            // The last fragment, info, then the others: info is done while the list is
            // still missing fragments.
            let mut answers: Vec<Answer> = fragments.iter().cloned().map(Answer::Bytes).collect();
            let last = answers.pop().unwrap();
            answers.insert(0, Answer::Bytes(info()));
            answers.insert(0, last);
            answers
        }
        2 => vec![],
        _ => panic!("a fourth request"),
    });
    let (result, _, sends) = a2s_players_poll(&mut fake, KNOWN, 3).await;
    let s = result.unwrap();
    assert_eq!(names(&s), ["ann", "bo"]);
    assert_eq!(s.name, "in memory");
    // Info came before the list was whole: the players step asks again, then the queued
    // fragments complete the pipelined list (kept across the step).
    assert_eq!(sends, ["A2S_PLAYER (pipelined)", "A2S_INFO", "A2S_PLAYER"]);
}

/// A pipelined list above the reply cap is the players' failure (`too_large` in extras);
/// info still answers and the poll succeeds, without a players step.
#[tokio::test(start_paused = true)]
async fn a2s_players_pipelined_list_too_large() {
    let mut fake = Fake::<true>::new(|_, n, _| match n {
        // Packet 0 of a list announcing more fragments than the 2 allowed.
        0 => vec![Answer::Bytes(
            a2s::split::encode_split(
                &player_list(),
                5,
                a2s::split::SplitOptions {
                    format: a2s::split::Format::Source { size_field: true },
                    fragment_size: 8,
                    compress: false,
                },
            )
            .swap_remove(0),
        )],
        1 => vec![Answer::Bytes(info())],
        _ => panic!("a third request"),
    });
    let mut req = request(Protocol::A2s);
    req.players = true;
    req.limits.max_split_packets = 2;
    let deadline = deadline();
    let mut x = A2s::new(req.params(), KNOWN.challenge, deadline.into_std());
    let s = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(s.players, None);
    assert_eq!(s.extras["players_error"], "too_large");
    assert_eq!(fake.sent.len(), 2);
}

/// Without players asked for, or without a known challenge, nothing is pipelined.
#[tokio::test(start_paused = true)]
async fn a2s_pipelines_only_with_players_and_a_challenge() {
    let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(info())]);
    let req = request(Protocol::A2s);
    let deadline = deadline();
    let mut x = A2s::new(req.params(), KNOWN.challenge, deadline.into_std());
    drive(&mut x, &mut fake, deadline, Pacing::default(), None)
        .await
        .unwrap();
    assert_eq!(fake.sent.len(), 1);
    assert_eq!(fake.sent[0].1, info_request(KNOWN.challenge));
}
