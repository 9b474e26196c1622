//! The Teeworlds dialogue (`query::poll`, the real driver and sockets) against the simulator
//! on 127.0.0.1, each flavour and each misbehaviour, with exact values.

use std::sync::Arc;
use std::time::{Duration, Instant};

use gameserver_exporter::net::udp::UdpMux;
use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::teeworlds::{spawn, Misbehaviour, SimFlavour, TeeworldsConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Sim Tee".into(),
        map: "ctf5".into(),
        game: "CTF".into(),
        version: "0.6.4, 16.4".into(),
        max: 32,
        bots: 0,
        players: vec![("alpha".into(), 12, 0.0), ("beta".into(), -3, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Teeworlds,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(3);
    req
}

fn with_list(server: &SimServer) -> Request {
    let mut req = request(server);
    req.players = true;
    req.detail = true;
    req
}

async fn served(flavour: SimFlavour, misbehaviour: Misbehaviour) -> SimServer {
    let config = TeeworldsConfig {
        flavour,
        misbehaviour,
        ..TeeworldsConfig::default()
    };
    spawn(world(), config).await.unwrap()
}

const FLAVOURS: [SimFlavour; 3] = [SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven];

fn names(s: &Status) -> Vec<(String, Option<i64>)> {
    s.players
        .iter()
        .flatten()
        .map(|p| (p.name.clone(), p.score))
        .collect()
}

/// DDNet: one extended round trip gives name, map, game, version and every client, the
/// spectator counted online. A daemon poll (no players, no detail) carries neither.
#[tokio::test]
async fn ddnet_flavour() {
    let config = TeeworldsConfig {
        spectators: vec!["watcher".into()],
        ..TeeworldsConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let s = poll(&with_list(&server)).await.unwrap();
    assert_eq!((s.online, s.max, s.bots), (3, 32, None));
    assert_eq!(s.name, "Sim Tee");
    assert_eq!(s.map.as_deref(), Some("ctf5"));
    assert_eq!(s.game.as_deref(), Some("CTF"));
    assert_eq!(s.version.as_deref(), Some("0.6.4, 16.4"));
    assert_eq!(s.password, Some(false));
    assert!(s.latency > Duration::ZERO);
    assert_eq!(
        names(&s),
        [
            ("alpha".to_string(), Some(12)),
            ("beta".to_string(), Some(-3)),
            ("watcher".to_string(), Some(0))
        ]
    );
    assert_eq!(s.extras["spectators"], json!(1));
    assert_eq!(s.extras["flavour"], json!("ddnet"));
    assert_eq!(s.extras["complete"], json!(true));

    let s = poll(&request(&server)).await.unwrap();
    assert_eq!((s.online, s.max), (3, 32));
    assert_eq!(s.players, None);
    assert!(s.extras.is_empty(), "{:?}", s.extras);
}

/// 150 clients in 400-byte packets: reassembled in order, complete.
#[tokio::test]
async fn ddnet_multi_packet() {
    let w = world();
    w.update(|w| {
        w.max = 200;
        w.players = (0..150).map(|i| (format!("tee{i}"), i, 0.0)).collect();
    });
    let config = TeeworldsConfig {
        max_datagram: 400,
        ..TeeworldsConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let s = poll(&with_list(&server)).await.unwrap();
    assert_eq!((s.online, s.max), (150, 200));
    assert_eq!(s.extras["complete"], json!(true));
    let got: Vec<String> = names(&s).into_iter().map(|(n, _)| n).collect();
    let want: Vec<String> = (0..150).map(|i| format!("tee{i}")).collect();
    assert_eq!(got, want);
}

/// Plain 0.6 answers the extended request with `inf3`: the true count, at most 16 listed.
#[tokio::test]
async fn vanilla_flavour() {
    let w = world();
    w.update(|w| w.players = (0..20).map(|i| (format!("p{i}"), i, 0.0)).collect());
    let config = TeeworldsConfig {
        flavour: SimFlavour::Vanilla06,
        ..TeeworldsConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let s = poll(&with_list(&server)).await.unwrap();
    assert_eq!(s.extras["flavour"], json!("0.6"));
    assert_eq!((s.online, s.players.as_ref().map(Vec::len)), (20, Some(16)));
}

/// 0.7: found by the fallback on the first poll; the session remembers the dialect, so the
/// second poll skips the wait. Bots are told apart.
#[tokio::test]
async fn seven_flavour_remembered() {
    let w = world();
    w.update(|w| w.bots = 2);
    let config = TeeworldsConfig {
        flavour: SimFlavour::Seven,
        ..TeeworldsConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let req = request(&server);
    let mut session = Session::default();
    let started = Instant::now();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "after the fallback"
    );
    assert_eq!((s.online, s.max, s.bots), (4, 32, Some(2)));
    assert_eq!(s.name, "Sim Tee");

    let started = Instant::now();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "no fallback wait"
    );
    assert_eq!((s.online, s.max, s.bots), (4, 32, Some(2)));
}

/// The daemon's shared socket: after a first poll on a socket of its own, polls of a 0.7
/// server (two requests, a token tied to the client's address) run on the shared one.
#[tokio::test]
async fn shared_socket() {
    let server = served(SimFlavour::Seven, Misbehaviour::None).await;
    let mux = Arc::new(UdpMux::new());
    let mut req = request(&server);
    req.mux = Some(mux.clone());
    let mut session = Session::default();
    for _ in 0..3 {
        let s = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(s.name, "Sim Tee");
    }
    assert_eq!(mux.shared_polls(), 2);
}

/// Silence is a `timeout`; a closed port is `refused`, well within the timeout.
#[tokio::test]
async fn silence_and_closed_port() {
    let server = served(SimFlavour::Ddnet, Misbehaviour::Silence).await;
    let mut req = request(&server);
    req.timeout = Duration::from_millis(700);
    assert_eq!(poll(&req).await.unwrap_err().reason, Reason::Timeout);

    let socket = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    let addr = socket.local_addr().unwrap();
    drop(socket);
    let mut req = Request::new(
        Protocol::Teeworlds,
        Address::parse(&addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    let err = poll(&req).await.unwrap_err();
    // Refused, not Timeout: the ICMP error ended the poll before its 2 s timeout, which
    // is what a wall-clock bound here would have tried to show.
    assert_eq!(err.reason, Reason::Refused, "{err}");
}

/// Truncated replies and counts that contradict themselves are malformed, in every flavour.
#[tokio::test]
async fn truncated_and_lying_counts_are_malformed() {
    for m in [Misbehaviour::Truncated, Misbehaviour::LyingCounts] {
        for flavour in FLAVOURS {
            let server = served(flavour, m).await;
            let err = poll(&with_list(&server)).await.unwrap_err();
            assert_eq!(err.reason, Reason::Malformed, "{m:?} {flavour:?}: {err}");
        }
    }
}

/// A 10,000-client list is refused as too large, whether counted and spread over DDNet
/// packets or packed into one datagram under a modest count; with or without a list asked.
#[tokio::test]
async fn player_bomb_is_capped() {
    for flavour in FLAVOURS {
        let server = served(flavour, Misbehaviour::PlayerBomb).await;
        let err = poll(&with_list(&server)).await.unwrap_err();
        assert_eq!(err.reason, Reason::TooLarge, "{flavour:?}: {err}");
        let err = poll(&request(&server)).await.unwrap_err();
        assert_eq!(err.reason, Reason::TooLarge, "{flavour:?}: {err}");
    }
}

/// Odd strings (control bytes, invalid UTF-8, 300-byte names) decode as they came; cleaning
/// is the exposition's job.
#[tokio::test]
async fn odd_strings_decode() {
    for flavour in FLAVOURS {
        let server = served(flavour, Misbehaviour::OddStrings).await;
        let s = poll(&with_list(&server)).await.unwrap();
        assert!(
            s.name.contains("\u{1}Tee\u{7f}\u{1b}[31m^1red"),
            "{flavour:?}"
        );
        assert!(s.name.ends_with(&"~".repeat(300)));
        let version = s.version.clone().unwrap_or_default();
        assert!(version.contains('\u{fffd}') || s.name.contains('\u{fffd}'));
        assert_eq!(names(&s)[0].0, "alpha\u{3}\u{e9}");
    }
}

/// A flood-protected server drops a request that comes within 800 ms of the last one of its
/// kind. Polled back to back, the second poll's first request is dropped and its resend,
/// spaced by the machine, is answered. (Plain 0.6: the 0.7 fallback cannot answer instead.)
#[tokio::test]
async fn flood_protected_answers_spaced_resend() {
    let config = TeeworldsConfig {
        flavour: SimFlavour::Vanilla06,
        misbehaviour: Misbehaviour::FloodProtected(Duration::from_millis(800)),
        ..TeeworldsConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let req = request(&server);
    let mut session = Session::default();
    poll_with(&req, &mut session).await.unwrap();
    let started = Instant::now();
    let s = poll_with(&req, &mut session).await.unwrap();
    assert_eq!(s.name, "Sim Tee");
    assert!(
        started.elapsed() >= Duration::from_millis(800),
        "answered only after the resend"
    );
}
