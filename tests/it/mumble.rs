//! The Mumble codec against the simulator over a real loopback UDP socket: a friendly server
//! and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::mumble::{self, Pong, Version};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::mumble::{spawn, Misbehaviour, MumbleConfig};
use gameserver_exporter::simulate::SimServer;
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use tokio::net::UdpSocket;

use crate::support::daemon as harness;
use harness::{start, target, wait_for};

fn world() -> World {
    World::new(WorldState {
        max: 50,
        bots: 1,
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

/// What one ping got: the decoded reply, the decode error of the last datagram, or nothing.
#[derive(Debug)]
enum Outcome {
    Pong(Pong, Duration),
    Bad(DecodeError),
    Silent,
}

async fn ping(server: SocketAddr, request: &[u8], ident: [u8; 8]) -> Outcome {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let sent = Instant::now();
    sock.send(request).await.unwrap();
    let mut buf = vec![0u8; 2048];
    match tokio::time::timeout(Duration::from_millis(300), sock.recv(&mut buf)).await {
        Err(_) => Outcome::Silent,
        Ok(n) => match mumble::decode_pong(&buf[..n.unwrap()], ident) {
            Ok(p) => Outcome::Pong(p, sent.elapsed()),
            Err(e) => Outcome::Bad(e),
        },
    }
}

fn request(ident: [u8; 8]) -> Vec<u8> {
    let mut out = Vec::new();
    mumble::encode_ping(ident, &mut out);
    out
}

/// A friendly server echoes the ident and reports its users, maximum, version and bandwidth.
#[tokio::test]
async fn friendly() {
    let config = MumbleConfig {
        bandwidth: 72_000,
        ..MumbleConfig::default()
    };
    let sim = spawn(world(), config).await.unwrap();
    let ident = *b"p1-ident";
    let Outcome::Pong(pong, rtt) = ping(sim.addr, &request(ident), ident).await else {
        panic!("no pong");
    };
    assert_eq!(
        pong,
        Pong {
            version: Version {
                major: 1,
                minor: 3,
                patch: 4
            },
            ident,
            users: 3,
            max_users: 50,
            bandwidth: 72_000,
        }
    );
    let s = mumble::to_status(&pong, rtt, true);
    assert_eq!((s.online, s.max, s.name.as_str()), (3, 50, ""));
    assert_eq!(s.version.as_deref(), Some("1.3.4"));
}

/// As Murmur, the simulator ignores requests of another length or type.
#[tokio::test]
async fn odd_requests_ignored() {
    let sim = spawn(world(), MumbleConfig::default()).await.unwrap();
    let ident = [7; 8];
    let mut long = request(ident);
    long.push(0);
    assert!(matches!(
        ping(sim.addr, &long, ident).await,
        Outcome::Silent
    ));
    let mut typed = request(ident);
    typed[3] = 1;
    assert!(matches!(
        ping(sim.addr, &typed, ident).await,
        Outcome::Silent
    ));
}

/// Each misbehaviour ends in the outcome (and failure reason) the exporter must report.
#[tokio::test]
async fn misbehaviours() {
    let ident = [0x42; 8];
    for m in [
        Misbehaviour::Silence,
        Misbehaviour::Short,
        Misbehaviour::WrongIdent,
        Misbehaviour::LyingCounts,
    ] {
        let config = MumbleConfig {
            misbehaviour: m,
            ..MumbleConfig::default()
        };
        let sim = spawn(world(), config).await.unwrap();
        let outcome = ping(sim.addr, &request(ident), ident).await;
        match (m, &outcome) {
            (Misbehaviour::Silence, Outcome::Silent) => {}
            (Misbehaviour::Short, Outcome::Bad(e)) => {
                assert!(matches!(e, DecodeError::Truncated { .. }), "{e}");
                assert_eq!(query::Error::from(e.clone()).reason(), Reason::Malformed);
            }
            (Misbehaviour::WrongIdent, Outcome::Bad(e)) => {
                assert_eq!(query::Error::from(e.clone()).reason(), Reason::Mismatch)
            }
            // Lies are passed on as told: no overflow, no panic.
            (Misbehaviour::LyingCounts, Outcome::Pong(p, _)) => {
                assert_eq!((p.users, p.max_users), (u32::MAX, 1))
            }
            _ => panic!("{m:?}: {outcome:?}"),
        }
    }
}

async fn sim(misbehaviour: Misbehaviour) -> SimServer {
    let config = MumbleConfig {
        bandwidth: 72_000,
        misbehaviour,
        ..MumbleConfig::default()
    };
    spawn(world(), config).await.unwrap()
}

fn poll_request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Mumble,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(800);
    req.detail = true;
    req
}

/// The dialogue: users, maximum, version, bandwidth in extras, no name.
#[tokio::test]
async fn dialogue_polls() {
    let server = sim(Misbehaviour::None).await;
    let s = query::poll(&poll_request(&server)).await.unwrap();
    assert_eq!((s.online, s.max, s.bots), (3, 50, None));
    assert_eq!((s.name.as_str(), s.map.as_deref()), ("", None));
    assert_eq!(s.version.as_deref(), Some("1.3.4"));
    assert_eq!(s.extras["bandwidth"], 72_000);
    assert!(s.latency > Duration::ZERO && s.latency < Duration::from_millis(800));
    // 4,294,967,295 users is no count a server reports: never published.
    let liar = sim(Misbehaviour::LyingCounts).await;
    let f = query::poll(&poll_request(&liar)).await.unwrap_err();
    assert_eq!(f.reason, gameserver_exporter::status::Reason::Malformed);
    assert!(f.detail.starts_with("online 4294967295 "), "{}", f.detail);
}

/// Every hostile reply fails the dialogue with its reason, within the deadline.
#[tokio::test]
async fn dialogue_misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::WrongIdent, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let server = sim(m).await;
        let started = Instant::now();
        let f = query::poll(&poll_request(&server)).await.unwrap_err();
        assert_eq!(f.reason, want, "{m:?}: {}", f.detail);
        assert!(started.elapsed() < Duration::from_secs(2), "{m:?}");
    }
}

/// `query mumble HOST:PORT --json` exits 0 with the true counts and version.
#[test]
fn query_command() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(sim(Misbehaviour::None));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .args(["query", "mumble", &server.addr.to_string(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["online"].as_u64(), v["max"].as_u64()),
        (Some(3), Some(50))
    );
    assert_eq!(
        (v["name"].as_str(), v["version"].as_str()),
        (Some(""), Some("1.3.4"))
    );
    assert_eq!(v["extras"]["bandwidth"], 72_000);
    drop(server);
}

/// The daemon publishes a Mumble server's gauges, and `up 0` with the reason for a short
/// reply.
#[tokio::test]
async fn daemon_gauges() {
    let ok = sim(Misbehaviour::None).await;
    let bad = sim(Misbehaviour::Short).await;
    let text = format!(
        "[exporter]\ninterval = \"300ms\"\ntimeout = \"250ms\"\n{}{}",
        target("voice", "mumble", &ok.addr.to_string(), ""),
        target("bad", "mumble", &bad.addr.to_string(), ""),
    );
    let d = start(&text, std::sync::Arc::new(QueryProber)).await;
    let body = wait_for(
        d.addr,
        &[
            "gameserver_up{target=\"voice\",protocol=\"mumble\"} 1",
            "gameserver_players_online{target=\"voice\",protocol=\"mumble\"} 3",
            "gameserver_players_max{target=\"voice\",protocol=\"mumble\"} 50",
            "gameserver_info{target=\"voice\",protocol=\"mumble\",name=\"\",map=\"\",game=\"\",version=\"1.3.4\"} 1",
            "gameserver_up{target=\"bad\",protocol=\"mumble\"} 0",
            "gameserver_query_failures_total{target=\"bad\",protocol=\"mumble\",reason=\"malformed\"} ",
        ],
    )
    .await;
    assert!(
        body.contains("gameserver_latency_seconds{target=\"voice\",protocol=\"mumble\"} "),
        "{body}"
    );
    d.stop().await;
}
