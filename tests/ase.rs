//! The ASE codec against the simulator over a real loopback UDP socket: a friendly Multi
//! Theft Auto-style server and every misbehaviour, each ending in a value or a typed error
//! within the wait.

use std::net::SocketAddr;
use std::time::Duration;

use gameserver_exporter::protocol::ase::{self, to_status, Reply, Want};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::ase::{spawn, AseConfig, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

fn world() -> World {
    World::new(WorldState {
        name: "Sim MTA".into(),
        map: "None".into(),
        game: "Freeroam".into(),
        version: "1.6".into(),
        max: 32,
        players: vec![("#FF0000alice".into(), 4, 0.0), ("bob".into(), 9, 0.0)],
        rules: vec![("weather".into(), "1".into())],
        ..WorldState::default()
    })
}

#[derive(Debug, PartialEq)]
enum Outcome {
    Reply(Box<Reply>),
    Bad(DecodeError),
    Silent,
}

/// Sends `s` and decodes the first datagram that comes within the wait.
async fn query(server: SocketAddr) -> Outcome {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    sock.send(ase::REQUEST).await.unwrap();
    let mut buf = vec![0u8; 65_536];
    match tokio::time::timeout(Duration::from_millis(500), sock.recv(&mut buf)).await {
        Err(_) => Outcome::Silent,
        Ok(n) => match ase::decode_reply(&buf[..n.unwrap()]) {
            Ok(r) => Outcome::Reply(Box::new(r)),
            Err(e) => Outcome::Bad(e),
        },
    }
}

async fn against(misbehaviour: Misbehaviour) -> Outcome {
    let config = AseConfig {
        game_port: 22003,
        misbehaviour,
    };
    let server = spawn(world(), config).await.unwrap();
    query(server.addr).await
}

/// Name, map, counts and players exactly; MTA colour codes gone from names.
#[tokio::test]
async fn friendly_server() {
    let Outcome::Reply(reply) = against(Misbehaviour::None).await else {
        panic!("no reply");
    };
    assert_eq!(reply.port, "22003");
    let s = to_status(
        &reply,
        Want {
            players: true,
            rules: true,
            ..Want::default()
        },
        Duration::ZERO,
    );
    assert_eq!(s.name, "Sim MTA");
    assert_eq!(s.map.as_deref(), Some("None"));
    assert_eq!((s.online, s.max), (2, 32));
    let players = s.players.unwrap();
    let names: Vec<_> = players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(players[1].score, Some(9));
    assert_eq!(
        s.rules.unwrap(),
        vec![("weather".to_string(), "1".to_string())]
    );
}

/// The reply names the game port: by default the ASE port - 123, as Multi Theft Auto.
#[tokio::test]
async fn game_port_is_ase_port_minus_123() {
    let server = spawn(world(), AseConfig::default()).await.unwrap();
    let Outcome::Reply(reply) = query(server.addr).await else {
        panic!("no reply");
    };
    assert_eq!(reply.port, server.addr.port().wrapping_sub(123).to_string());
}

#[tokio::test]
async fn misbehaviours() {
    assert_eq!(against(Misbehaviour::Silence).await, Outcome::Silent);
    let Outcome::Reply(r) = against(Misbehaviour::Duplicated).await else {
        panic!("duplicated: no reply");
    };
    assert_eq!(r.players.len(), 2);
    let Outcome::Reply(r) = against(Misbehaviour::LyingCounts).await else {
        panic!("lying: no reply");
    };
    let s = to_status(&r, Want::default(), Duration::ZERO);
    assert_eq!((s.online, s.max), (1000, 1));
    let got = against(Misbehaviour::Truncated).await;
    assert!(
        matches!(got, Outcome::Bad(DecodeError::Truncated { .. })),
        "{got:?}"
    );
    let got = against(Misbehaviour::LengthOverrun).await;
    assert!(
        matches!(got, Outcome::Bad(DecodeError::Truncated { .. })),
        "{got:?}"
    );
    let got = against(Misbehaviour::Oversized).await;
    assert!(
        matches!(
            got,
            Outcome::Bad(DecodeError::TooLarge {
                what: "ASE players",
                ..
            })
        ),
        "{got:?}"
    );
    let got = against(Misbehaviour::Garbage).await;
    assert!(matches!(got, Outcome::Bad(_)), "{got:?}");
    let got = against(Misbehaviour::WrongMagic).await;
    assert_eq!(got, Outcome::Bad(DecodeError::Mismatch("ASE reply magic")));
}
