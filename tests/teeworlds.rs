//! The Teeworlds exchange against the simulator over real loopback UDP, each flavour and each
//! misbehaviour, with exact values.

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::teeworlds::exchange::Outcome;
use gameserver_exporter::protocol::teeworlds::{
    to_status, ClientKind, Exchange, ExchangeConfig, Flavour, Poll, Tokens,
};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::teeworlds::{spawn, Misbehaviour, SimFlavour, TeeworldsConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use tokio::net::UdpSocket;

const TOKENS: Tokens = Tokens {
    six: 0x00ab_cdef,
    seven: 0x0102_0304,
    browse: 77,
};

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

/// How a poll ended: an outcome, a decode error, or nothing by the deadline (with whether a
/// reply was under way).
#[derive(Debug)]
enum End {
    Done(Box<Result<Outcome, DecodeError>>),
    Timeout { pending: bool },
}

/// A minimal driver: the loop `query` will run, on its own connected socket.
async fn drive(sock: &UdpSocket, x: &mut Exchange, budget: Duration) -> End {
    let end = Instant::now() + budget;
    let mut buf = vec![0u8; 65_536];
    loop {
        let now = Instant::now();
        match x.poll(now) {
            Poll::Transmit(d) => {
                sock.send(&d).await.unwrap();
            }
            Poll::Done(r) => return End::Done(Box::new(r)),
            Poll::Wait(t) => {
                if now >= end {
                    return End::Timeout {
                        pending: x.is_pending(),
                    };
                }
                let until = tokio::time::Instant::from_std(t.min(end));
                if let Ok(Ok(n)) = tokio::time::timeout_at(until, sock.recv(&mut buf)).await {
                    x.handle_datagram(Instant::now(), &buf[..n]);
                }
            }
        }
    }
}

async fn socket(server: &SimServer) -> UdpSocket {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server.addr).await.unwrap();
    sock
}

async fn poll(server: &SimServer, config: ExchangeConfig) -> End {
    let sock = socket(server).await;
    let mut x = Exchange::new(Instant::now(), TOKENS, config);
    drive(&sock, &mut x, Duration::from_secs(3)).await
}

fn with_list() -> ExchangeConfig {
    ExchangeConfig {
        want_clients: true,
        ..ExchangeConfig::default()
    }
}

fn outcome(end: End) -> Outcome {
    match end {
        End::Done(r) if r.is_ok() => r.unwrap(),
        other => panic!("expected an outcome, got {other:?}"),
    }
}

fn failure(end: End) -> Reason {
    match end {
        End::Done(r) if r.is_err() => r.unwrap_err().reason(),
        other => panic!("expected a decode failure, got {other:?}"),
    }
}

/// DDNet: one extended round trip gives name, map, game, version and every client, the
/// spectator counted online.
#[tokio::test]
async fn ddnet_flavour() {
    let config = TeeworldsConfig {
        spectators: vec!["watcher".into()],
        ..TeeworldsConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let o = outcome(poll(&server, with_list()).await);
    assert_eq!(o.info.flavour, Flavour::Ddnet);
    assert!(o.complete);
    assert!(o.rtt > Duration::ZERO);
    let s = to_status(o.info, true, true);
    assert_eq!((s.online, s.max, s.bots), (3, 32, None));
    assert_eq!(s.name, "Sim Tee");
    assert_eq!(s.map.as_deref(), Some("ctf5"));
    assert_eq!(s.game.as_deref(), Some("CTF"));
    assert_eq!(s.version.as_deref(), Some("0.6.4, 16.4"));
    assert_eq!(s.password, Some(false));
    let names: Vec<_> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score))
        .collect();
    assert_eq!(
        names,
        [
            ("alpha".to_string(), Some(12)),
            ("beta".to_string(), Some(-3)),
            ("watcher".to_string(), Some(0))
        ]
    );
    assert_eq!(s.extras["spectators"], serde_json::json!(1));
    assert_eq!(s.extras["flavour"], serde_json::json!("ddnet"));
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
    let o = outcome(poll(&server, with_list()).await);
    assert!(o.complete);
    assert_eq!(o.info.num_clients, 150);
    let names: Vec<String> = o.info.clients.iter().map(|c| c.name.clone()).collect();
    let want: Vec<String> = (0..150).map(|i| format!("tee{i}")).collect();
    assert_eq!(names, want);
}

/// Plain 0.6 answers the extended request with `inf3`: at most 16 listed.
#[tokio::test]
async fn vanilla_flavour() {
    let w = world();
    w.update(|w| w.players = (0..20).map(|i| (format!("p{i}"), i, 0.0)).collect());
    let config = TeeworldsConfig {
        flavour: SimFlavour::Vanilla06,
        ..TeeworldsConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let o = outcome(poll(&server, with_list()).await);
    assert_eq!(o.info.flavour, Flavour::Vanilla06);
    assert_eq!((o.info.num_clients, o.info.clients.len()), (20, 16));
}

/// 0.7: found by the fallback, then at once with the hint; bots are told apart.
#[tokio::test]
async fn seven_flavour() {
    let w = world();
    w.update(|w| w.bots = 2);
    let config = TeeworldsConfig {
        flavour: SimFlavour::Seven,
        ..TeeworldsConfig::default()
    };
    let server = spawn(w, config).await.unwrap();
    let started = Instant::now();
    let o = outcome(poll(&server, with_list()).await);
    assert!(
        started.elapsed() >= Duration::from_millis(500),
        "after the fallback"
    );
    assert_eq!(o.info.flavour, Flavour::Seven);
    assert_eq!(
        o.info
            .clients
            .iter()
            .filter(|c| c.kind == ClientKind::Bot)
            .count(),
        2
    );
    let s = to_status(o.info, false, false);
    assert_eq!((s.online, s.max, s.bots), (4, 32, Some(2)));

    let hinted = ExchangeConfig {
        hint: Some(Flavour::Seven),
        ..ExchangeConfig::default()
    };
    let started = Instant::now();
    let o = outcome(poll(&server, hinted).await);
    assert_eq!(o.info.name, "Sim Tee");
    assert!(
        started.elapsed() < Duration::from_millis(500),
        "no fallback wait"
    );
}

/// Silence: nothing by the deadline, and nothing was under way.
#[tokio::test]
async fn silence_times_out() {
    let config = TeeworldsConfig {
        misbehaviour: Misbehaviour::Silence,
        ..TeeworldsConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let sock = socket(&server).await;
    let mut x = Exchange::new(Instant::now(), TOKENS, ExchangeConfig::default());
    match drive(&sock, &mut x, Duration::from_millis(800)).await {
        End::Timeout { pending } => assert!(!pending),
        other => panic!("{other:?}"),
    }
}

/// Truncated replies are malformed, in every flavour.
#[tokio::test]
async fn truncated_is_malformed() {
    for flavour in [SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven] {
        let config = TeeworldsConfig {
            flavour,
            misbehaviour: Misbehaviour::Truncated,
            ..TeeworldsConfig::default()
        };
        let server = spawn(world(), config).await.unwrap();
        assert_eq!(
            failure(poll(&server, with_list()).await),
            Reason::Malformed,
            "{flavour:?}"
        );
    }
}

/// Counts that contradict themselves are malformed, in every flavour.
#[tokio::test]
async fn lying_counts_are_malformed() {
    for flavour in [SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven] {
        let config = TeeworldsConfig {
            flavour,
            misbehaviour: Misbehaviour::LyingCounts,
            ..TeeworldsConfig::default()
        };
        let server = spawn(world(), config).await.unwrap();
        assert_eq!(
            failure(poll(&server, with_list()).await),
            Reason::Malformed,
            "{flavour:?}"
        );
    }
}

/// A 10,000-client list is refused as too large, whether counted and spread over DDNet
/// packets or packed into one datagram under a modest count.
#[tokio::test]
async fn player_bomb_is_capped() {
    for flavour in [SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven] {
        let config = TeeworldsConfig {
            flavour,
            misbehaviour: Misbehaviour::PlayerBomb,
            ..TeeworldsConfig::default()
        };
        let server = spawn(world(), config).await.unwrap();
        assert_eq!(
            failure(poll(&server, with_list()).await),
            Reason::TooLarge,
            "{flavour:?}"
        );
    }
}

/// Odd strings (control bytes, invalid UTF-8, 300-byte names) decode without failing.
#[tokio::test]
async fn odd_strings_decode() {
    for flavour in [SimFlavour::Ddnet, SimFlavour::Vanilla06, SimFlavour::Seven] {
        let config = TeeworldsConfig {
            flavour,
            misbehaviour: Misbehaviour::OddStrings,
            ..TeeworldsConfig::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let o = outcome(poll(&server, with_list()).await);
        assert!(
            o.info.name.contains("\u{1}Tee\u{7f}\u{1b}[31m^1red"),
            "{flavour:?}"
        );
        assert!(o.info.name.ends_with(&"~".repeat(300)));
        assert!(o.info.version.contains('\u{fffd}') || o.info.name.contains('\u{fffd}'));
        assert_eq!(o.info.clients[0].name, "alpha\u{3}\u{e9}");
    }
}

/// A flood-protected server drops the second poll's first request (too soon after the
/// first poll's); the resend, spaced by the minimum gap, is answered.
#[tokio::test]
async fn flood_protected_answers_spaced_resend() {
    let config = TeeworldsConfig {
        misbehaviour: Misbehaviour::FloodProtected(Duration::from_millis(800)),
        ..TeeworldsConfig::default()
    };
    let server = spawn(world(), config).await.unwrap();
    let sock = socket(&server).await;
    // No 0.7 fallback: this shows the resend, not the other dialect, getting through.
    let config = ExchangeConfig {
        fallback_after: Duration::from_secs(10),
        min_gap: Duration::from_millis(900),
        resend_after: Duration::from_millis(900),
        ..ExchangeConfig::default()
    };
    let mut first = Exchange::new(Instant::now(), TOKENS, config);
    assert!(
        matches!(drive(&sock, &mut first, Duration::from_secs(2)).await, End::Done(r) if r.is_ok())
    );
    let started = Instant::now();
    let mut second = Exchange::new(started, TOKENS, config);
    let o = outcome(drive(&sock, &mut second, Duration::from_secs(3)).await);
    assert_eq!(o.info.name, "Sim Tee");
    assert!(
        started.elapsed() >= Duration::from_millis(900),
        "answered only after the resend"
    );
}
