//! The GameSpy 2 codec against the simulator over real loopback UDP sockets: the exchange
//! state machine driven by real datagrams and `Instant::now()`, a friendly server with and
//! without count bytes, and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy2::{
    to_status, Exchange, ExchangeError, Reply, Request, Sections, Step, Want,
};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::gamespy2::{spawn, Gamespy2Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

const TIMEOUT: Duration = Duration::from_millis(800);
const ID: [u8; 4] = *b"\x10\x20\x30\x40";

fn world() -> World {
    World::new(WorldState {
        name: "Saigon Café".into(),
        map: "Hue 1968".into(),
        game: "conquest".into(),
        version: "v1.21".into(),
        max: 64,
        bots: 1,
        players: (0..30).map(|i| (format!("grunt{i}"), i, 0.0)).collect(),
        ..WorldState::default()
    })
}

/// Runs one exchange against `server` to its end.
async fn poll(server: SocketAddr) -> Result<Reply, ExchangeError> {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let request = Request {
        id: ID,
        sections: Sections::ALL,
    };
    let mut x = Exchange::new(request, TIMEOUT);
    let mut step = x.start(Instant::now());
    let mut buf = vec![0u8; 65_536];
    loop {
        step = match step {
            Step::Send(bytes) => {
                sock.send(&bytes).await.unwrap();
                x.on_tick(Instant::now())
            }
            Step::WaitUntil(at) => {
                let wait = at.saturating_duration_since(Instant::now());
                match tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    Ok(Ok(n)) => x.on_datagram(&buf[..n], Instant::now()),
                    Ok(Err(e)) => panic!("recv: {e}"),
                    Err(_) => x.on_tick(Instant::now()),
                }
            }
            Step::Done(reply) => return Ok(reply),
            Step::Failed(e) => return Err(e),
        }
    }
}

async fn with(config: Gamespy2Config) -> Result<Reply, ExchangeError> {
    let server = spawn(world(), config).await.unwrap();
    poll(server.addr).await
}

fn misbehaving(m: Misbehaviour) -> Gamespy2Config {
    Gamespy2Config {
        misbehaviour: m,
        ..Gamespy2Config::default()
    }
}

fn check_world(reply: &Reply) {
    let want = Want {
        players: true,
        rules: true,
        detail: true,
    };
    let s = to_status(reply, want, Duration::ZERO);
    assert_eq!(s.name, "Saigon Café");
    assert_eq!(s.map.as_deref(), Some("Hue 1968"));
    assert_eq!((s.online, s.max), (31, 64));
    assert_eq!(s.game.as_deref(), Some("conquest"));
    assert_eq!(s.version.as_deref(), Some("v1.21"));
    assert_eq!(s.password, Some(false));
    let players = s.players.unwrap();
    assert_eq!(players.len(), 31);
    assert_eq!(
        (players[7].name.as_str(), players[7].score, players[7].ping),
        ("grunt7", Some(7), Some(60))
    );
    assert_eq!(players[30].name, "Bot 0");
}

/// With count bytes and without (America's Army), the reply decodes to the world.
#[tokio::test]
async fn friendly() {
    for omit_counts in [false, true] {
        let config = Gamespy2Config {
            omit_counts,
            ..Gamespy2Config::default()
        };
        let reply = with(config).await.unwrap();
        assert_eq!(
            reply.players.as_ref().unwrap().declared.is_none(),
            omit_counts
        );
        check_world(&reply);
    }
}

/// A repeated reply, or another request's reply first, still gives the right one.
#[tokio::test]
async fn duplicated_and_foreign_first() {
    for m in [Misbehaviour::Duplicated, Misbehaviour::WrongIdFirst] {
        check_world(&with(misbehaving(m)).await.unwrap());
    }
}

/// Every hostile server ends in its typed error, none hangs past the deadline.
#[tokio::test]
async fn hostile_servers() {
    assert_eq!(
        with(misbehaving(Misbehaviour::Silence)).await,
        Err(ExchangeError::Timeout { mismatched: 0 })
    );
    assert_eq!(
        with(misbehaving(Misbehaviour::WrongId)).await,
        Err(ExchangeError::Timeout { mismatched: 1 })
    );
    assert!(matches!(
        with(misbehaving(Misbehaviour::Truncated)).await,
        Err(ExchangeError::Decode(DecodeError::Unterminated { .. }))
    ));
    assert!(matches!(
        with(misbehaving(Misbehaviour::Oversized)).await,
        Err(ExchangeError::Decode(DecodeError::TooLarge {
            what: "info pairs",
            ..
        }))
    ));
    assert!(matches!(
        with(misbehaving(Misbehaviour::Garbage)).await,
        Err(ExchangeError::Decode(DecodeError::UnexpectedType {
            found: 1,
            ..
        }))
    ));
    // Lying counts decode; the rows are what they are and the mapping clamps.
    let reply = with(misbehaving(Misbehaviour::LyingCounts)).await.unwrap();
    assert_eq!(
        reply.players.as_ref().map(|p| (p.declared, p.rows.len())),
        Some((Some(255), 31))
    );
    let s = to_status(&reply, Want::default(), Duration::ZERO);
    assert_eq!((s.online, s.max), (u32::MAX, 64));
}
