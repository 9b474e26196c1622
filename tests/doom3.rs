//! The id Tech 4 codec and its poll against the simulator over real loopback UDP: each
//! game's layout, and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::doom3::{self, Dialect, ExchangeError, Poll, Reply, Step};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::query;
use gameserver_exporter::simulate::doom3::{spawn, Doom3Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::Reason;
use tokio::net::UdpSocket;

const BUDGET: Duration = Duration::from_millis(800);

fn world() -> World {
    World::new(WorldState {
        name: "^1Red ^7Sim".into(),
        map: "game/mp/d3dm1".into(),
        game: "Tourney".into(),
        version: "DOOM 1.3.1".into(),
        max: 8,
        bots: 1,
        players: vec![("^2Marine".into(), 0, 0.0), ("Imp".into(), 0, 0.0)],
        rules: vec![("si_fragLimit".into(), "10".into())],
        password: true,
    })
}

async fn poll(server: SocketAddr, dialect: Dialect) -> Result<Reply, ExchangeError> {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let (mut poll, request) = Poll::start(dialect, 0xC0FF_EE00, Instant::now() + BUDGET);
    sock.send(&request).await.unwrap();
    let mut buf = vec![0u8; 65_536];
    loop {
        let now = Instant::now();
        match poll.step(now) {
            Step::Done(r) => return Ok(*r),
            Step::Failed(e) => return Err(e),
            Step::Wait(until) => {
                let wait = until.saturating_duration_since(now);
                if let Ok(Ok(n)) = tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    poll.receive(&buf[..n]);
                }
            }
        }
    }
}

/// Every layout reads back the world: name without colours, map, game, counts; bots
/// flagged where the layout flags them.
#[tokio::test]
async fn every_dialect() {
    for d in [
        Dialect::Doom3,
        Dialect::Quake4,
        Dialect::Etqw,
        Dialect::Wolfenstein,
    ] {
        let config = Doom3Config {
            dialect: d,
            ..Doom3Config::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let r = poll(server.addr, d).await.unwrap();
        let s = doom3::to_status(&r, d, Duration::ZERO, true);
        assert_eq!(s.name, "Red Sim", "{d:?}");
        assert_eq!(s.map.as_deref(), Some("game/mp/d3dm1"), "{d:?}");
        assert_eq!(s.game.as_deref(), Some("Tourney"), "{d:?}");
        assert_eq!((s.online, s.max, s.password), (3, 8, Some(true)), "{d:?}");
        let bots = matches!(d, Dialect::Etqw | Dialect::Wolfenstein).then_some(1);
        assert_eq!(s.bots, bots, "{d:?}");
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Marine", "Imp", "bot0"], "{d:?}");
    }
}

/// Each misbehaviour ends in the right typed error (and reason) or a correct result.
#[tokio::test]
async fn misbehaviours() {
    for m in [
        Misbehaviour::Silence,
        Misbehaviour::Truncated,
        Misbehaviour::WrongChallenge,
        Misbehaviour::Duplicated,
        Misbehaviour::NoEndMarker,
        Misbehaviour::LyingCounts,
        Misbehaviour::Oversized,
        Misbehaviour::Garbage,
    ] {
        let config = Doom3Config {
            misbehaviour: m,
            ..Doom3Config::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let started = Instant::now();
        let result = poll(server.addr, Dialect::Doom3).await;
        assert!(
            started.elapsed() <= BUDGET + Duration::from_millis(500),
            "{m:?}"
        );
        let reason = |e: &ExchangeError| match e {
            ExchangeError::Timeout => Reason::Timeout,
            ExchangeError::Decode(d) => query::Error::from(d.clone()).reason(),
        };
        match (m, &result) {
            (Misbehaviour::Silence, Err(e)) => assert_eq!(e, &ExchangeError::Timeout),
            (Misbehaviour::Truncated, Err(e)) => {
                assert!(
                    matches!(e, ExchangeError::Decode(DecodeError::Unterminated { .. })),
                    "{e}"
                );
                assert_eq!(reason(e), Reason::Malformed);
            }
            (Misbehaviour::WrongChallenge, Err(e)) => assert_eq!(reason(e), Reason::Mismatch),
            (Misbehaviour::Oversized, Err(e)) => assert_eq!(reason(e), Reason::TooLarge),
            (
                Misbehaviour::Duplicated | Misbehaviour::Garbage | Misbehaviour::NoEndMarker,
                Ok(r),
            ) => {
                assert_eq!(r.players.len(), 3, "{m:?}");
                assert_eq!(r.os_mask, Some(1), "{m:?}");
            }
            (Misbehaviour::LyingCounts, Ok(r)) => {
                let s = doom3::to_status(r, Dialect::Doom3, Duration::ZERO, false);
                assert_eq!((s.online, s.max), (3, 1));
            }
            _ => panic!("{m:?}: {result:?}"),
        }
    }
}
