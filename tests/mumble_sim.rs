//! The Mumble codec against the simulator over a real loopback UDP socket: a friendly server
//! and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::mumble::{self, Pong, Version};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::query;
use gameserver_exporter::simulate::mumble::{spawn, Misbehaviour, MumbleConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::Reason;
use tokio::net::UdpSocket;

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
