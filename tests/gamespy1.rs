//! The GameSpy 1 codec against the simulator over real loopback UDP sockets: the exchange
//! state machine driven by real datagrams and `Instant::now()`, a friendly server in every
//! layout, and every misbehaviour.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy1::{
    to_status, Exchange, ExchangeError, Limits, Query, Reply, Step, Style, Want,
};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::gamespy1::{spawn, Gamespy1Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

const TIMEOUT: Duration = Duration::from_millis(800);

fn world() -> World {
    World::new(WorldState {
        name: "Deck Sixteen Café".into(),
        map: "DM-Deck16][".into(),
        game: "DeathMatchPlus".into(),
        version: "451".into(),
        max: 12,
        bots: 1,
        players: (0..20).map(|i| (format!("player{i}"), i, 0.0)).collect(),
        ..WorldState::default()
    })
}

/// Runs one exchange against `server` to its end.
async fn poll(server: SocketAddr, query: Query) -> Result<Reply, ExchangeError> {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let mut x = Exchange::new(query, TIMEOUT, Limits::default());
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

async fn with(config: Gamespy1Config, query: Query) -> Result<Reply, ExchangeError> {
    let server = spawn(world(), config).await.unwrap();
    poll(server.addr, query).await
}

fn misbehaving(m: Misbehaviour) -> Gamespy1Config {
    Gamespy1Config {
        misbehaviour: m,
        ..Gamespy1Config::default()
    }
}

/// In every layout, `\status\` reassembles to the world: the name (UTF-8 kept), the map,
/// 21 online (a bot included), 12 max, and every player in order.
#[tokio::test]
async fn friendly_in_every_layout() {
    for style in [Style::Unreal, Style::QueryIdFirst, Style::Bare] {
        let config = Gamespy1Config {
            style,
            ..Gamespy1Config::default()
        };
        let reply = with(config, Query::Status).await.unwrap();
        let want = Want {
            players: true,
            rules: true,
            detail: true,
        };
        let s = to_status(&reply, want, Duration::ZERO);
        assert_eq!(s.name, "Deck Sixteen Café", "{style:?}");
        assert_eq!(s.map.as_deref(), Some("DM-Deck16]["));
        assert_eq!((s.online, s.max), (21, 12));
        assert_eq!(s.game.as_deref(), Some("DeathMatchPlus"));
        assert_eq!(s.version.as_deref(), Some("451"));
        assert_eq!(s.password, Some(false));
        let players = s.players.unwrap();
        assert_eq!(players.len(), 21);
        assert_eq!(
            (players[7].name.as_str(), players[7].score, players[7].ping),
            ("player7", Some(7), Some(50))
        );
        assert_eq!(players[20].name, "Bot 0");
    }
}

/// The partial queries answer their part only.
#[tokio::test]
async fn partial_queries() {
    let info = with(Gamespy1Config::default(), Query::Info).await.unwrap();
    assert_eq!(info.get("hostname"), Some("Deck Sixteen Café"));
    assert!(info.players.is_empty() && info.get("gamever").is_none());
    let players = with(Gamespy1Config::default(), Query::Players)
        .await
        .unwrap();
    assert_eq!(players.players.len(), 21);
    assert!(players.get("hostname").is_none());
}

/// Repeated and reordered parts still make the whole reply.
#[tokio::test]
async fn duplicated_and_reordered() {
    for m in [Misbehaviour::Duplicated, Misbehaviour::Reordered] {
        let reply = with(misbehaving(m), Query::Status).await.unwrap();
        let s = to_status(&reply, Want::default(), Duration::ZERO);
        assert_eq!(
            (s.name.as_str(), s.online, s.max),
            ("Deck Sixteen Café", 21, 12),
            "{m:?}"
        );
    }
}

/// Every hostile server ends in its typed error, none hangs past the deadline.
#[tokio::test]
async fn hostile_servers() {
    assert_eq!(
        with(misbehaving(Misbehaviour::Silence), Query::Status).await,
        Err(ExchangeError::Timeout)
    );
    // The truncated last part lost `\final\`: the other parts came, the reply never ends.
    assert!(matches!(
        with(misbehaving(Misbehaviour::Truncated), Query::Status).await,
        Err(ExchangeError::Incomplete {
            final_part: None,
            ..
        })
    ));
    match with(misbehaving(Misbehaviour::MissingPart), Query::Status).await {
        Err(ExchangeError::Incomplete {
            received,
            final_part: Some(last),
        }) => {
            assert_eq!(received as u32 + 1, last)
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        with(misbehaving(Misbehaviour::Oversized), Query::Status).await,
        Err(ExchangeError::Decode(DecodeError::TooLarge { .. }))
    ));
    assert_eq!(
        with(misbehaving(Misbehaviour::Garbage), Query::Status).await,
        Err(ExchangeError::Decode(DecodeError::Invalid(
            "queryid part number"
        )))
    );
    // Lying counts decode; the mapping clamps them.
    let reply = with(misbehaving(Misbehaviour::LyingCounts), Query::Status)
        .await
        .unwrap();
    let s = to_status(&reply, Want::default(), Duration::ZERO);
    assert_eq!((s.online, s.max), (u32::MAX, 0));
}
