//! The GameSpy 3 exchange against the simulator over a real loopback UDP socket: a friendly
//! server (with and without a challenge, split into many parts) and every misbehaviour. Each
//! run ends within the exchange's own deadline: every wait has one.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy3::{
    to_status, Error, Exchange, Options, Reply, Step, Want, MAX_CHALLENGES,
};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::simulate::gamespy3::{spawn, Gs3Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

fn world(players: usize) -> World {
    World::new(WorldState {
        name: "Sim BF2".into(),
        map: "Strike At Karkand".into(),
        game: "battlefield2".into(),
        version: "1.5.3153-802.0".into(),
        max: 64,
        players: (0..players)
            .map(|i| (format!("soldier number {i}"), i as i32, 0.0))
            .collect(),
        ..WorldState::default()
    })
}

/// Runs one exchange against `server`: the test's own little driver (send, receive until
/// the step's instant, feed, poll again). Returns the result and how many requests went out.
async fn run(server: SocketAddr, options: Options) -> (Result<Reply, Error>, Vec<&'static str>) {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let mut ex = Exchange::new(0x1020_3040, options, Instant::now());
    let mut out = Vec::new();
    let mut sent = Vec::new();
    let mut buf = vec![0u8; 65_536];
    loop {
        match ex.poll(Instant::now(), &mut out) {
            Step::Send(label) => {
                sent.push(label);
                sock.send(&out).await.unwrap();
            }
            Step::Wait(until) => {
                let until = tokio::time::Instant::from_std(until);
                if let Ok(Ok(n)) = tokio::time::timeout_at(until, sock.recv(&mut buf)).await {
                    ex.handle(Instant::now(), &buf[..n]);
                }
            }
            Step::Done(reply) => return (Ok(reply), sent),
            Step::Failed(e) => return (Err(e), sent),
        }
    }
}

fn options(timeout_ms: u64) -> Options {
    Options {
        timeout: Duration::from_millis(timeout_ms),
        ..Options::default()
    }
}

async fn against(
    players: usize,
    config: Gs3Config,
    timeout_ms: u64,
) -> (Result<Reply, Error>, Vec<&'static str>) {
    let server = spawn(world(players), config).await.unwrap();
    run(server.addr, options(timeout_ms)).await
}

fn mis(misbehaviour: Misbehaviour) -> Gs3Config {
    Gs3Config {
        misbehaviour,
        part_len: 300,
    }
}

/// Name, map, counts and every player, from a reply in many parts.
#[tokio::test]
async fn friendly_server_split_reply() {
    let (reply, sent) = against(40, mis(Misbehaviour::None), 3000).await;
    let reply = reply.unwrap();
    assert_eq!(sent, ["handshake", "request with challenge"]);
    let s = to_status(
        &reply,
        Want {
            players: true,
            ..Want::default()
        },
        Duration::ZERO,
    );
    assert_eq!(s.name, "Sim BF2");
    assert_eq!(s.map.as_deref(), Some("Strike At Karkand"));
    assert_eq!((s.online, s.max), (40, 64));
    let players = s.players.unwrap();
    assert_eq!(players.len(), 40);
    assert_eq!(players[39].name, "soldier number 39");
    assert_eq!(players[39].score, Some(39));
}

/// Duplicated and reordered parts give the same reply.
#[tokio::test]
async fn duplicated_and_reordered_parts() {
    let (want, _) = against(40, mis(Misbehaviour::None), 3000).await;
    let want = want.unwrap();
    for m in [Misbehaviour::Duplicated, Misbehaviour::Reordered] {
        let (got, _) = against(40, mis(m), 3000).await;
        assert_eq!(got.as_ref(), Ok(&want), "{m:?}");
    }
}

/// Challenge 0: the request goes without challenge bytes. No answer to the handshake
/// (Battlefield 2): the same, after a third of the budget.
#[tokio::test]
async fn without_challenge() {
    let (got, sent) = against(2, mis(Misbehaviour::ChallengeZero), 3000).await;
    assert_eq!(
        to_status(&got.unwrap(), Want::default(), Duration::ZERO).online,
        2
    );
    assert_eq!(sent, ["handshake", "request without challenge"]);
    let (got, sent) = against(2, mis(Misbehaviour::NoHandshake), 900).await;
    assert_eq!(
        to_status(&got.unwrap(), Want::default(), Duration::ZERO).name,
        "Sim BF2"
    );
    assert_eq!(sent, ["handshake", "request without challenge"]);
}

/// Counts are reported as the server says them.
#[tokio::test]
async fn lying_counts_are_reported() {
    let (got, _) = against(2, mis(Misbehaviour::LyingCounts), 3000).await;
    let s = to_status(&got.unwrap(), Want::default(), Duration::ZERO);
    assert_eq!((s.online, s.max), (1000, 1));
}

/// Every hostile server ends in its typed error before the deadline.
#[tokio::test]
async fn misbehaviours_end_in_typed_errors() {
    let (got, _) = against(2, mis(Misbehaviour::Silence), 600).await;
    assert_eq!(got, Err(Error::Timeout));
    let (got, _) = against(40, mis(Misbehaviour::MissingPart), 600).await;
    assert!(
        matches!(got, Err(Error::Incomplete { have, total: Some(t) }) if have + 1 == usize::from(t)),
        "{got:?}"
    );
    let (got, _) = against(40, mis(Misbehaviour::Oversized), 600).await;
    assert!(
        matches!(got, Err(Error::Decode(DecodeError::TooLarge { .. }))),
        "{got:?}"
    );
    let (got, _) = against(2, mis(Misbehaviour::Garbage), 600).await;
    assert!(
        matches!(got, Err(Error::Decode(DecodeError::Unterminated { .. }))),
        "{got:?}"
    );
    let (got, _) = against(2, mis(Misbehaviour::Truncated), 600).await;
    assert!(matches!(got, Err(Error::Decode(_))), "{got:?}");
    let (got, sent) = against(2, mis(Misbehaviour::EndlessChallenges), 600).await;
    assert_eq!(
        got,
        Err(Error::Challenge {
            limit: MAX_CHALLENGES
        })
    );
    assert_eq!(sent.len(), 1 + usize::from(MAX_CHALLENGES));
}
