//! The Source RCON dialogue over loopback against the simulator's three server families
//! (SRCDS, vanilla Minecraft, Factorio) and its misbehaviours, through the real driver.

use std::time::Duration;

use gameserver_exporter::protocol::exchange::{Error, Params};
use gameserver_exporter::protocol::rcon::exchange::{Rcon, Script};
use gameserver_exporter::query::driver::{drive, Event, Observer, Pacing};
use gameserver_exporter::query::transport::TcpLink;
use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::rcon::{self, Flavour, Misbehaviour, RconConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use tokio::time::Instant;

const PASSWORD: &str = "pl4nted-rcon-pw";

/// Asks each command in turn; the result's name is every reply joined with `|`.
struct Ask(Vec<&'static str>);

impl Script for Ask {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        self.0.get(replies.len()).map(|c| c.to_string())
    }

    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        Ok(Status {
            name: replies.join("|"),
            latency,
            ..Status::default()
        })
    }
}

/// A long reply (longer than one Minecraft packet), a short one, and Factorio's count.
fn respond(state: &WorldState, command: &str) -> String {
    match command {
        "long" => (0..3000).map(|i| format!("{}", i % 10)).collect(),
        "short" => "ok".into(),
        other => rcon::factorio(state, other),
    }
}

fn long() -> String {
    (0..3000).map(|i| format!("{}", i % 10)).collect()
}

/// Every byte the driver reported, as text.
#[derive(Default)]
struct Seen(Vec<String>);

impl Observer for Seen {
    fn event(&mut self, _at: Instant, event: Event<'_>) {
        let line = match event {
            Event::Sent { bytes, what } => {
                format!("sent {what} {}", String::from_utf8_lossy(bytes))
            }
            Event::SentSecret { len, what } => format!("sent {what} <redacted {len} bytes>"),
            Event::Received { bytes } => format!("received {}", String::from_utf8_lossy(bytes)),
            other => format!("{other:?}"),
        };
        self.0.push(line);
    }
}

async fn run(
    flavour: Flavour,
    misbehaviour: Misbehaviour,
    password: &str,
    commands: Vec<&'static str>,
) -> (Result<Status, Error>, Vec<String>) {
    let world = World::new(WorldState {
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        ..WorldState::default()
    });
    let config = RconConfig {
        flavour,
        password: PASSWORD.into(),
        respond,
        misbehaviour,
    };
    let sim = rcon::spawn(world, config).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut x = Rcon::new(
        Ask(commands),
        Secret::new(password),
        Params::default(),
        17,
        deadline.into_std(),
    );
    let mut link = TcpLink::new(sim.addr);
    let mut seen = Seen::default();
    let r = drive(
        &mut x,
        &mut link,
        deadline,
        Pacing::default(),
        Some(&mut seen),
    )
    .await;
    (r, seen.0)
}

const FLAVOURS: [Flavour; 3] = [Flavour::Srcds, Flavour::Minecraft, Factorio];
use Flavour::Factorio;

/// Each family: the login, a reply split over several packets (joined without adding
/// anything), then another command on the same connection.
#[tokio::test]
async fn every_flavour_reads_whole_replies() {
    for flavour in FLAVOURS {
        let (r, seen) = run(flavour, Misbehaviour::None, PASSWORD, vec!["long", "short"]).await;
        let s = r.unwrap_or_else(|e| panic!("{flavour:?}: {e}"));
        assert_eq!(s.name, format!("{}|ok", long()), "{flavour:?}");
        assert!(seen
            .iter()
            .any(|l| l.starts_with("sent RCON login <redacted")));
        assert!(seen.iter().all(|l| !l.contains(PASSWORD)), "{flavour:?}");
    }
}

/// A wrong password is `auth_refused`, never a crash, in every family.
#[tokio::test]
async fn wrong_password_is_auth_refused() {
    for flavour in FLAVOURS {
        let (r, seen) = run(flavour, Misbehaviour::None, "wrong", vec!["short"]).await;
        let e = r.unwrap_err();
        assert_eq!(e.reason(), Reason::AuthRefused, "{flavour:?}: {e}");
        assert!(!e.to_string().contains("wrong"));
        assert!(seen.iter().all(|l| !l.contains("wrong")));
    }
}

/// Replies cut into tiny packets, and foreign packets interleaved, read the same.
#[tokio::test]
async fn split_and_interleaved_replies() {
    for flavour in FLAVOURS {
        for m in [Misbehaviour::Split(7), Misbehaviour::Interleave] {
            let (r, _) = run(flavour, m, PASSWORD, vec!["long", "/players online count"]).await;
            let s = r.unwrap_or_else(|e| panic!("{flavour:?} {m:?}: {e}"));
            assert_eq!(
                s.name,
                format!("{}|Online players (2):", long()),
                "{flavour:?} {m:?}"
            );
        }
    }
}

/// Silence is a timeout, a huge packet `too_large`, a flood of foreign packets `mismatch`.
#[tokio::test]
async fn hostile_servers_fail_typed() {
    for (m, want) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Flood, Reason::Mismatch),
    ] {
        let (r, _) = run(Flavour::Srcds, m, PASSWORD, vec!["short"]).await;
        assert_eq!(r.unwrap_err().reason(), want, "{m:?}");
    }
}

/// A `factorio` request as a configured target sends it: the RCON address, and the target's
/// `password_file` (`None`: a target without one).
fn factorio_request(
    addr: std::net::SocketAddr,
    password: Option<&str>,
    players: bool,
) -> gameserver_exporter::query::Request {
    use gameserver_exporter::target::{Address, Credentials, Protocol};
    let address = Address::parse(&addr.to_string()).unwrap();
    let mut req = gameserver_exporter::query::Request::new(Protocol::Factorio, address);
    req.players = players;
    req.credentials = password.map(|p| {
        std::sync::Arc::new(Credentials {
            password: Some(Secret::new(p)),
            ..Credentials::default()
        })
    });
    req
}

/// The `factorio` protocol through the registry and the real poll path, against the
/// Factorio-dressed simulator: the count, the names with `players`, nothing else claimed.
#[tokio::test]
async fn factorio_target_polls_count_and_names() {
    use gameserver_exporter::simulate::factorio;
    let world = World::new(WorldState {
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        ..WorldState::default()
    });
    let sim = factorio::spawn(world, factorio::config()).await.unwrap();
    let req = factorio_request(sim.addr, Some(factorio::PASSWORD), false);
    let s = gameserver_exporter::query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.name.as_str()), (2, 0, ""));
    assert_eq!(s.game.as_deref(), Some("Factorio"));
    assert_eq!(s.players, None);
    let req = factorio_request(sim.addr, Some(factorio::PASSWORD), true);
    let s = gameserver_exporter::query::poll(&req).await.unwrap();
    let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!((s.online, names), (2, vec!["alice".into(), "bob".into()]));
}

/// A wrong password is `auth_refused`; no password at all is `auth_refused` too, at once,
/// without a connection (the simulator counts none: it would have to answer a login).
#[tokio::test]
async fn factorio_without_the_right_password_is_auth_refused() {
    use gameserver_exporter::simulate::factorio;
    let sim = factorio::spawn(World::default(), factorio::config())
        .await
        .unwrap();
    let req = factorio_request(sim.addr, Some("wrong-pw"), false);
    let e = gameserver_exporter::query::poll(&req).await.unwrap_err();
    assert_eq!(e.reason, Reason::AuthRefused, "{}", e.detail);
    assert!(!e.detail.contains("wrong-pw"));
    // Nothing listens here: a connection attempt would read `refused`.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = closed.local_addr().unwrap();
    drop(closed);
    let e = gameserver_exporter::query::poll(&factorio_request(addr, None, false))
        .await
        .unwrap_err();
    assert_eq!(e.reason, Reason::AuthRefused, "{}", e.detail);
    assert!(e.detail.contains("password_file"), "{}", e.detail);
}
