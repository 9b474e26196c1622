//! The Unreal 2 codec and its poll state machine against the simulator over real loopback
//! UDP: a friendly UT2004 server, Killing Floor's waves, and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::unreal2::{self, ExchangeError, Outcome, Poll, Step, Want};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::query;
use gameserver_exporter::simulate::unreal2::{spawn, Misbehaviour, Unreal2Config};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::Reason;
use tokio::net::UdpSocket;

const GAP: Duration = Duration::from_millis(100);
const BUDGET: Duration = Duration::from_secs(2);

fn world() -> World {
    World::new(WorldState {
        name: "UT Sim".into(),
        map: "DM-Rankin".into(),
        game: "xDeathMatch".into(),
        max: 16,
        players: vec![
            ("Malcolm".into(), 25, 0.0),
            ("Brock".into(), 17, 0.0),
            ("Лена".into(), 9, 0.0),
        ],
        rules: (0..6)
            .map(|i| (format!("rule{i}"), i.to_string()))
            .collect(),
        password: true,
        ..WorldState::default()
    })
}

/// Runs one poll to its end; every wait is bounded by the poll's own deadline.
async fn poll(server: SocketAddr, want: Want) -> Result<Outcome, ExchangeError> {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let start = Instant::now();
    let (mut poll, requests) = Poll::start(want, start, start + BUDGET, GAP);
    for r in requests {
        sock.send(&r).await.unwrap();
    }
    let mut buf = vec![0u8; 65_536];
    loop {
        let now = Instant::now();
        match poll.step(now) {
            Step::Done(o) => return Ok(*o),
            Step::Failed(e) => return Err(e),
            Step::Wait(until) => {
                let wait = until.saturating_duration_since(now);
                if let Ok(Ok(n)) = tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    poll.receive(&buf[..n], Instant::now());
                }
            }
        }
    }
}

async fn sim(config: Unreal2Config) -> gameserver_exporter::simulate::SimServer {
    spawn(world(), config).await.unwrap()
}

const ALL: Want = Want {
    rules: true,
    players: true,
};

/// A friendly UT2004 server: name without its colour code, map, game type, counts, the
/// password flag, three players over two datagrams (one in UCS-2) and six rules over two.
#[tokio::test]
async fn friendly() {
    let config = Unreal2Config {
        coloured_name: true,
        ..Unreal2Config::default()
    };
    let server = sim(config).await;
    let o = poll(server.addr, ALL).await.unwrap();
    assert_eq!(o.version, 0x80);
    assert_eq!(o.info.query_port, i32::from(server.addr.port()));
    let s = unreal2::to_status(&o, Duration::from_millis(1), true);
    assert_eq!(s.name, "UT Sim");
    assert_eq!(s.map.as_deref(), Some("DM-Rankin"));
    assert_eq!(s.game.as_deref(), Some("xDeathMatch"));
    assert_eq!((s.online, s.max, s.password), (3, 16, Some(true)));
    let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Malcolm", "Brock", "Лена"]);
    assert_eq!(s.rules.unwrap().len(), 6);
    // Info alone ends with the info reply.
    let o = poll(server.addr, Want::default()).await.unwrap();
    assert_eq!((o.info.players, o.players, o.rules), (3, None, None));
}

/// Killing Floor's wave counters come through, and the counts around them stay right.
#[tokio::test]
async fn killing_floor() {
    let config = Unreal2Config {
        waves: Some((3, 7)),
        ..Unreal2Config::default()
    };
    let server = sim(config).await;
    let o = poll(server.addr, Want::default()).await.unwrap();
    assert_eq!(o.info.waves, Some((3, 7)));
    assert_eq!((o.info.players, o.info.max_players), (3, 16));
    let s = unreal2::to_status(&o, Duration::ZERO, true);
    assert_eq!(
        (s.extras["wave"].as_i64(), s.extras["waves"].as_i64()),
        (Some(3), Some(7))
    );
}

/// Each misbehaviour ends in the right typed error (and failure reason) or a correct
/// result, within the poll's budget.
#[tokio::test]
async fn misbehaviours() {
    for m in [
        Misbehaviour::Silence,
        Misbehaviour::Truncated,
        Misbehaviour::Duplicated,
        Misbehaviour::Reordered,
        Misbehaviour::MissingPart,
        Misbehaviour::LyingCounts,
        Misbehaviour::Oversized,
        Misbehaviour::Garbage,
        Misbehaviour::WrongType,
    ] {
        let config = Unreal2Config {
            misbehaviour: m,
            ..Unreal2Config::default()
        };
        let server = sim(config).await;
        let started = Instant::now();
        let result = poll(server.addr, ALL).await;
        assert!(
            started.elapsed() <= BUDGET + Duration::from_millis(500),
            "{m:?}"
        );
        let names = |o: &Outcome| {
            let mut n: Vec<_> = o.players.iter().flatten().map(|p| p.name.clone()).collect();
            n.sort();
            n
        };
        let reason = |e: &ExchangeError| match e {
            ExchangeError::Timeout => Reason::Timeout,
            ExchangeError::Decode(d) => query::Error::from(d.clone()).reason(),
        };
        match (m, &result) {
            (Misbehaviour::Silence, Err(e)) => assert_eq!(e, &ExchangeError::Timeout),
            (Misbehaviour::Truncated, Err(e)) => {
                assert!(
                    matches!(e, ExchangeError::Decode(DecodeError::Overrun { .. })),
                    "{e}"
                );
                assert_eq!(reason(e), Reason::Malformed);
            }
            (Misbehaviour::WrongType, Err(e)) => assert_eq!(reason(e), Reason::Malformed),
            (Misbehaviour::Oversized, Err(e)) => assert_eq!(reason(e), Reason::TooLarge),
            // Duplicates are dropped, order is the arrival's, garbage is someone else's.
            (Misbehaviour::Duplicated | Misbehaviour::Reordered | Misbehaviour::Garbage, Ok(o)) => {
                assert_eq!(names(o), ["Brock", "Malcolm", "Лена"], "{m:?}");
                assert_eq!(o.rules.as_ref().map(Vec::len), Some(6), "{m:?}");
            }
            // A lost datagram cannot be noticed (no count, no end marker): what arrived.
            (Misbehaviour::MissingPart, Ok(o)) => assert_eq!(names(o), ["Лена"]),
            // Lies are passed on as told.
            (Misbehaviour::LyingCounts, Ok(o)) => {
                let s = unreal2::to_status(o, Duration::ZERO, false);
                assert_eq!((s.online, s.max), (1000, 1));
            }
            _ => panic!("{m:?}: {result:?}"),
        }
    }
}
