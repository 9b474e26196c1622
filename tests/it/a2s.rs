//! The A2S dialogue against the simulator, over real sockets on 127.0.0.1.

use gameserver_exporter::protocol::a2s::exchange::Memory as A2sMemory;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gameserver_exporter::net::udp::UdpMux;
use gameserver_exporter::protocol::a2s::split::{Format, SplitOptions};
use gameserver_exporter::protocol::a2s::Engine;
use gameserver_exporter::query::{poll, poll_with, Request, Session, RESEND_AFTER_MIN};
use gameserver_exporter::simulate::a2s::{
    spawn, A2sConfig, Challenge, Counters, Misbehaviour, STEAM_ID,
};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Player, Reason, Status};
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use serde_json::json;

const SOURCE_SPLIT: SplitOptions = SplitOptions {
    format: Format::Source { size_field: true },
    fragment_size: 40,
    compress: false,
};

fn world() -> World {
    World::new(WorldState {
        name: "Test Server".into(),
        map: "de_inferno".into(),
        game: "Counter-Strike: Source".into(),
        version: "1.0.0.71".into(),
        max: 24,
        bots: 1,
        players: vec![("alice".into(), 10, 120.5), ("bob".into(), -2, 3.0)],
        rules: vec![
            ("mp_friendlyfire".into(), "0".into()),
            ("sv_gravity".into(), "800".into()),
        ],
        password: true,
    })
}

async fn server(config: A2sConfig) -> SimServer {
    spawn(world(), config).await.unwrap()
}

fn request(sim: &SimServer, timeout_ms: u64) -> Request {
    let mut req = Request::new(
        Protocol::A2s,
        Address::parse(&sim.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(timeout_ms);
    // As the `query` command asks: the protocol facts in extras are what these tests check.
    req.detail = true;
    req
}

/// The normalized fields of a friendly Source poll of `world()`.
fn assert_source_status_core(s: &Status) {
    assert_eq!(s.online, 3);
    assert_eq!(s.max, 24);
    assert_eq!(s.bots, Some(1));
    assert_eq!(s.name, "Test Server");
    assert_eq!(s.map.as_deref(), Some("de_inferno"));
    assert_eq!(s.game.as_deref(), Some("Counter-Strike: Source"));
    assert_eq!(s.version.as_deref(), Some("1.0.0.71"));
    assert_eq!(s.password, Some(true));
}

/// The fields every friendly Source poll of `world()` must show.
fn assert_source_status(s: &Status, port: u16) {
    assert_eq!(s.online, 3);
    assert_eq!(s.max, 24);
    assert_eq!(s.bots, Some(1));
    assert_eq!(s.name, "Test Server");
    assert_eq!(s.map.as_deref(), Some("de_inferno"));
    assert_eq!(s.game.as_deref(), Some("Counter-Strike: Source"));
    assert_eq!(s.version.as_deref(), Some("1.0.0.71"));
    assert_eq!(s.password, Some(true));
    assert_eq!(s.extras["engine"], json!("source"));
    assert_eq!(s.extras["protocol"], json!(17));
    assert_eq!(s.extras["folder"], json!("cstrike"));
    assert_eq!(s.extras["app_id"], json!(240));
    assert_eq!(s.extras["server_type"], json!("dedicated"));
    assert_eq!(s.extras["environment"], json!("linux"));
    assert_eq!(s.extras["vac"], json!(true));
    assert_eq!(s.extras["game_port"], json!(port));
    assert_eq!(s.extras["steam_id"], json!(STEAM_ID.to_string()));
    assert_eq!(s.extras["game_id"], json!("240"));
}

/// A friendly server without a challenge answers one A2S_INFO with every field mapped.
#[tokio::test]
async fn info_without_challenge() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let s = poll(&request(&sim, 2000)).await.unwrap();
    assert_source_status(&s, sim.addr.port());
    assert_eq!(s.players, None);
    assert_eq!(s.rules, None);
    assert_eq!(counters.info(), 1);
}

/// A challenge costs one extra round the first time; the second poll of the session sends
/// the remembered challenge and needs one request.
#[tokio::test]
async fn challenge_then_steady_state() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        challenge: Challenge::Fixed([1, 2, 3, 4]),
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let req = request(&sim, 2000);
    let mut session = Session::default();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_source_status(&s, sim.addr.port());
    assert_eq!(counters.info(), 2);
    assert_eq!(
        session.memory.get::<A2sMemory>().challenge,
        Some([1, 2, 3, 4])
    );
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(s.name, "Test Server");
    assert_eq!(counters.info(), 3);
}

/// On a path that loses every other datagram, the unanswered requests are sent again: the
/// poll succeeds (challenge round included), and the latency counts from the answered copy,
/// not from the lost one.
#[tokio::test]
async fn lost_requests_are_resent() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        challenge: Challenge::Fixed([1, 2, 3, 4]),
        misbehaviour: Misbehaviour::LoseEveryOther,
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let mut req = request(&sim, 3000);
    // The daemon's poll: no A2A_PING, whose short wait would not resend and skew the count.
    req.detail = false;
    let mut session = Session::default();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(s.name, "Test Server");
    // No challenge (lost, resent, challenged), then with it (lost, resent, answered).
    assert_eq!(counters.info(), 4);
    assert!(s.latency < RESEND_AFTER_MIN, "{:?}", s.latency);
    // Steady state: one request lost, its copy answered.
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(s.name, "Test Server");
    assert_eq!(counters.info(), 6);
}

/// A rotating challenge makes every remembered one stale; polls still succeed.
#[tokio::test]
async fn rotating_challenge() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        challenge: Challenge::Rotating,
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let req = request(&sim, 2000);
    let mut session = Session::default();
    for _ in 0..2 {
        assert_eq!(poll_with(&req, &mut session).await.unwrap().online, 3);
    }
    assert_eq!(counters.info(), 4);
}

/// A Source split reply sent last fragment first, every fragment twice, with foreign-id
/// fragments around it, reassembles.
#[tokio::test]
async fn source_split_reordered_duplicated_foreign() {
    let sim = server(A2sConfig {
        split: Some(SOURCE_SPLIT),
        reorder: true,
        duplicate: true,
        foreign_fragments: true,
        ..A2sConfig::default()
    })
    .await;
    let mut req = request(&sim, 2000);
    req.rules = true;
    let s = poll(&req).await.unwrap();
    assert_source_status(&s, sim.addr.port());
    assert_eq!(
        s.rules,
        Some(vec![
            ("mp_friendlyfire".into(), "0".into()),
            ("sv_gravity".into(), "800".into())
        ])
    );
}

/// A bzip2-compressed split reply (old 2006 header, no size field) decompresses.
#[tokio::test]
async fn bzip2_split() {
    let sim = server(A2sConfig {
        split: Some(SplitOptions {
            format: Format::Source { size_field: false },
            fragment_size: 30,
            compress: true,
        }),
        reorder: true,
        ..A2sConfig::default()
    })
    .await;
    let s = poll(&request(&sim, 2000)).await.unwrap();
    assert_source_status(&s, sim.addr.port());
}

fn goldsrc_config(split: bool) -> A2sConfig {
    A2sConfig {
        engine: Engine::GoldSrc,
        folder: "valve".into(),
        split: split.then_some(SplitOptions {
            format: Format::GoldSrc,
            fragment_size: 25,
            compress: false,
        }),
        reorder: split,
        ..A2sConfig::default()
    }
}

fn assert_goldsrc_status(s: &Status, sim: &SimServer) {
    assert_eq!((s.online, s.max, s.bots), (3, 24, Some(1)));
    assert_eq!(s.name, "Test Server");
    assert_eq!(s.map.as_deref(), Some("de_inferno"));
    assert_eq!(s.version, None);
    assert_eq!(s.password, Some(true));
    assert_eq!(s.extras["engine"], json!("goldsrc"));
    assert_eq!(s.extras["protocol"], json!(48));
    assert_eq!(s.extras["folder"], json!("valve"));
    assert_eq!(s.extras["address"], json!(sim.addr.to_string()));
    assert_eq!(s.extras.get("app_id"), None);
}

/// A GoldSrc `m` reply maps onto the same Status.
#[tokio::test]
async fn goldsrc_reply() {
    let sim = server(goldsrc_config(false)).await;
    let s = poll(&request(&sim, 2000)).await.unwrap();
    assert_goldsrc_status(&s, &sim);
}

/// A GoldSrc split reply (index and total in one byte), reordered, reassembles.
#[tokio::test]
async fn goldsrc_split() {
    let sim = server(goldsrc_config(true)).await;
    let s = poll(&request(&sim, 2000)).await.unwrap();
    assert_goldsrc_status(&s, &sim);
}

/// A decoy reply from another source port never reaches the decoder: the real one is used.
#[tokio::test]
async fn decoy_from_wrong_port_ignored() {
    let sim = server(A2sConfig {
        decoy: true,
        ..A2sConfig::default()
    })
    .await;
    let s = poll(&request(&sim, 2000)).await.unwrap();
    assert_eq!(s.name, "Test Server");
}

/// On the daemon's shared socket too, a decoy from another source port is ignored.
#[tokio::test]
async fn decoy_ignored_on_shared_socket() {
    let sim = server(A2sConfig {
        decoy: true,
        ..A2sConfig::default()
    })
    .await;
    let mux = Arc::new(UdpMux::new());
    let mut req = request(&sim, 2000);
    req.mux = Some(mux.clone());
    let mut session = Session::default();
    for _ in 0..3 {
        let s = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(s.name, "Test Server");
    }
    assert_eq!(mux.shared_polls(), 2);
}

/// A target's first poll uses a socket of its own, later ones the shared socket; when the
/// server goes away, the shared socket (no ICMP errors) reads `timeout` once, then the next
/// poll, on its own connected socket again, reads `refused`.
#[tokio::test]
async fn shared_socket_only_after_success() {
    let sim = server(A2sConfig::default()).await;
    let mux = Arc::new(UdpMux::new());
    let mut req = request(&sim, 300);
    req.mux = Some(mux.clone());
    let mut session = Session::default();
    poll_with(&req, &mut session).await.unwrap();
    assert_eq!(mux.shared_polls(), 0);
    assert!(session.udp_shared_ok);
    poll_with(&req, &mut session).await.unwrap();
    assert_eq!(mux.shared_polls(), 1);

    let addr = sim.addr;
    drop(sim);
    // The simulator's tasks (and its socket) go away once the runtime runs them again: wait
    // until its port is free.
    let deadline = std::time::Instant::now() + crate::support::daemon::DEADLINE;
    while std::net::UdpSocket::bind(addr).is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "the simulator kept its socket"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let f = poll_with(&req, &mut session).await.unwrap_err();
    assert_eq!(f.reason, Reason::Timeout);
    assert_eq!(mux.shared_polls(), 2);
    assert!(!session.udp_shared_ok);
    let f = poll_with(&req, &mut session).await.unwrap_err();
    assert_eq!(f.reason, Reason::Refused);
    assert_eq!(mux.shared_polls(), 2);
}

/// Players (bots included) and rules are fetched with a challenge, and Rust-style keywords
/// override the counts.
#[tokio::test]
async fn players_and_rules() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        challenge: Challenge::Fixed([9, 9, 9, 9]),
        keywords: Some("cp300,mp400,biweekly".into()),
        split: Some(SplitOptions {
            fragment_size: 60,
            ..SOURCE_SPLIT
        }),
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let mut req = request(&sim, 2000);
    req.players = true;
    req.rules = true;
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (300, 400));
    assert_eq!(s.extras["keywords"], json!("cp300,mp400,biweekly"));
    let player = |name: &str, score: i64, duration: f32| Player {
        name: name.into(),
        id: None,
        score: Some(score),
        duration: Some(duration),
        ping: None,
    };
    assert_eq!(
        s.players,
        Some(vec![
            player("alice", 10, 120.5),
            player("bob", -2, 3.0),
            player("Bot 1", 0, 0.0)
        ])
    );
    assert_eq!(
        s.rules,
        Some(vec![
            ("mp_friendlyfire".into(), "0".into()),
            ("sv_gravity".into(), "800".into())
        ])
    );
    assert_eq!(s.extras.get("players_error"), None);
    // The info challenge was reused: no -1 round for players or rules.
    assert_eq!(
        (counters.info(), counters.players(), counters.rules()),
        (2, 1, 1)
    );
}

/// A server that never answers A2S_PLAYER still yields a Status, with the failure noted.
#[tokio::test]
async fn players_silent_poll_succeeds() {
    let sim = server(A2sConfig {
        answer_players: false,
        ..A2sConfig::default()
    })
    .await;
    let mut req = request(&sim, 600);
    req.players = true;
    req.rules = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.name, "Test Server");
    assert_eq!(s.players, None);
    assert_eq!(s.extras["players_error"], json!("timeout"));
    assert_eq!(s.rules.as_ref().map(Vec::len), Some(2));
}

/// With detail, an answered A2A_PING lands in extras; an ignored one is only noted.
#[tokio::test]
async fn ping_in_detail() {
    let sim = server(A2sConfig::default()).await;
    let mut req = request(&sim, 2000);
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert!(s.extras["ping_seconds"].is_f64());
    let sim = server(A2sConfig {
        answer_ping: false,
        ..A2sConfig::default()
    })
    .await;
    let mut req = request(&sim, 2000);
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_eq!(s.extras["ping_error"], json!("timeout"));
    assert_eq!(s.name, "Test Server");
}

/// A closed port is `refused` (ICMP port unreachable), well before the timeout.
#[tokio::test]
async fn closed_port_refused() {
    let port = {
        let s = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
        s.local_addr().unwrap().port()
    };
    let mut req = Request::new(
        Protocol::A2s,
        Address::parse(&format!("127.0.0.1:{port}")).unwrap(),
    );
    req.timeout = Duration::from_millis(2000);
    let start = Instant::now();
    let f = poll(&req).await.unwrap_err();
    assert_eq!(f.reason, Reason::Refused);
    assert!(start.elapsed() < req.timeout);
}

async fn failure(misbehaviour: Misbehaviour, timeout_ms: u64) -> Reason {
    let sim = server(A2sConfig {
        misbehaviour,
        ..A2sConfig::default()
    })
    .await;
    poll(&request(&sim, timeout_ms)).await.unwrap_err().reason
}

/// Silence is a timeout.
#[tokio::test]
async fn silence_times_out() {
    assert_eq!(failure(Misbehaviour::Silence, 300).await, Reason::Timeout);
}

/// A server issuing a new challenge every time fails with `challenge`.
#[tokio::test]
async fn challenge_loop() {
    let counters = Arc::new(Counters::default());
    let sim = server(A2sConfig {
        misbehaviour: Misbehaviour::ChallengeLoop,
        counters: counters.clone(),
        ..A2sConfig::default()
    })
    .await;
    let f = poll(&request(&sim, 2000)).await.unwrap_err();
    assert_eq!(f.reason, Reason::Challenge);
    // The first request plus max_challenges (3) retries.
    assert_eq!(counters.info(), 4);
}

/// A compression bomb is `too_large`, whether it announces its size or understates it.
#[tokio::test]
async fn compression_bomb() {
    assert_eq!(
        failure(Misbehaviour::CompressionBomb, 2000).await,
        Reason::TooLarge
    );
    assert_eq!(
        failure(Misbehaviour::CompressionBombUnderstated, 2000).await,
        Reason::TooLarge
    );
}

/// A truncated reply is skipped as garbage; at the deadline the poll is `malformed`.
#[tokio::test]
async fn truncated_is_malformed() {
    assert_eq!(
        failure(Misbehaviour::Truncated, 300).await,
        Reason::Malformed
    );
}

/// Strings running past the datagram, zeros and junk floods are `malformed` too.
#[tokio::test]
async fn garbage_is_malformed() {
    for m in [
        Misbehaviour::LengthBeyondDatagram,
        Misbehaviour::Zeros,
        Misbehaviour::JunkFlood,
    ] {
        assert_eq!(failure(m, 300).await, Reason::Malformed, "{m:?}");
    }
}

/// A split reply that never completes ends as `incomplete` at the deadline.
#[tokio::test]
async fn endless_split_incomplete() {
    assert_eq!(
        failure(Misbehaviour::EndlessSplit, 300).await,
        Reason::Incomplete
    );
}

/// The daemon's polls (no `detail`) carry the normalized fields but build no extras map.
#[tokio::test]
async fn daemon_polls_build_no_extras() {
    let sim = server(A2sConfig::default()).await;
    let mut req = request(&sim, 2000);
    req.detail = false;
    let s = poll(&req).await.unwrap();
    assert_source_status_core(&s);
    assert!(s.extras.is_empty(), "{:?}", s.extras);
}

/// Steady polls with players pipeline A2S_PLAYER with A2S_INFO: after the first poll (which
/// learns the challenge), each poll sends exactly one request of each and gets both replies,
/// on the shared socket, with a decoy from another port ignored. Both for a server that
/// challenges info (the list takes the same challenge) and one that challenges only lists
/// (whose list challenge is remembered: without that, two list requests per poll). The
/// order on the wire is pinned by the sans-IO tests (`query::tests::a2s_players_*`).
#[tokio::test]
async fn players_pipelined_in_steady_state() {
    for challenge in [Challenge::Fixed([1, 2, 3, 4]), Challenge::None] {
        let counters = Arc::new(Counters::default());
        let sim = server(A2sConfig {
            challenge,
            decoy: true,
            counters: counters.clone(),
            ..A2sConfig::default()
        })
        .await;
        let mux = Arc::new(UdpMux::new());
        let mut req = request(&sim, 2000);
        req.players = true;
        req.mux = Some(mux.clone());
        let mut session = Session::default();
        let names = |s: &Status| -> Vec<String> {
            let list = s.players.as_deref().unwrap_or_default();
            list.iter().map(|p| p.name.clone()).collect()
        };
        let first = names(&poll_with(&req, &mut session).await.unwrap());
        assert!(
            first.len() >= 2 && first[..2] == ["alice", "bob"],
            "{first:?}"
        );
        let (info, players) = (counters.info(), counters.players());
        for n in 1..=3 {
            let s = poll_with(&req, &mut session).await.unwrap();
            assert_eq!(s.name, "Test Server");
            assert_eq!(names(&s), first, "{challenge:?}");
            assert!(!s.extras.contains_key("players_error"));
            assert_eq!(
                (counters.info(), counters.players()),
                (info + n, players + n),
                "{challenge:?}: one request of each per poll"
            );
        }
        assert_eq!(mux.shared_polls(), 3);
    }
}
