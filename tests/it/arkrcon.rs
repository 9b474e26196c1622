//! ARK: Survival Ascended over RCON (`arkrcon`) against the simulator on 127.0.0.1, through
//! the public `poll`: the count and names from `ListPlayers`, the capacity from the target's
//! `max_players`, an empty server, and each misbehaviour's reason with the password absent.

use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::arkrcon;
use gameserver_exporter::simulate::rcon::{Misbehaviour, RconConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Credentials, Protocol};

fn world(players: &[&str]) -> World {
    World::new(WorldState {
        players: players.iter().map(|n| (n.to_string(), 0, 0.0)).collect(),
        ..WorldState::default()
    })
}

fn request(port: u16, password: &str) -> Request {
    let address = Address::parse(&format!("127.0.0.1:{port}")).unwrap();
    let mut req = Request::new(Protocol::Arkrcon, address);
    req.timeout = Duration::from_millis(1500);
    req.credentials = Some(Arc::new(Credentials::password(password)));
    req
}

#[tokio::test]
async fn list_players_counts_and_names() {
    let sim = arkrcon::spawn(world(&["Alice", "Bob, the Builder"]), arkrcon::config())
        .await
        .unwrap();
    let mut req = request(sim.addr.port(), arkrcon::PASSWORD);
    req.players = true;
    req.max_players = Some(70);
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 70));
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Alice", "Bob, the Builder"]);
    assert_eq!(s.game.as_deref(), Some("ARK: Survival Ascended"));
    // Without `max_players` the capacity is unknown: 0, as the server says nothing.
    req.max_players = None;
    req.players = false;
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.players), (2, 0, None));
}

#[tokio::test]
async fn empty_server() {
    let sim = arkrcon::spawn(world(&[]), arkrcon::config()).await.unwrap();
    let s = poll(&request(sim.addr.port(), arkrcon::PASSWORD))
        .await
        .unwrap();
    assert_eq!(s.online, 0);
}

/// Every misbehaviour ends in its reason, and the password is in no failure.
#[tokio::test]
async fn misbehaviours() {
    let with = |m| RconConfig {
        misbehaviour: m,
        ..arkrcon::config()
    };
    let cases = [
        (
            with(Misbehaviour::Silence),
            arkrcon::PASSWORD,
            Reason::Timeout,
        ),
        (
            with(Misbehaviour::Oversized),
            arkrcon::PASSWORD,
            Reason::TooLarge,
        ),
        (
            with(Misbehaviour::Flood),
            arkrcon::PASSWORD,
            Reason::Mismatch,
        ),
        (arkrcon::config(), "pl4nted-wrong-ark", Reason::AuthRefused),
        (
            RconConfig {
                respond: |_, _| "Server received, But no response!! \n".into(),
                ..arkrcon::config()
            },
            arkrcon::PASSWORD,
            Reason::Malformed,
        ),
    ];
    for (config, password, reason) in cases {
        let sim = arkrcon::spawn(world(&["Alice"]), config).await.unwrap();
        let e = poll(&request(sim.addr.port(), password)).await.unwrap_err();
        assert_eq!(e.reason, reason, "{e:?}");
        let shown = format!("{e:?} {e}");
        assert!(!shown.contains(password) && !shown.contains(arkrcon::PASSWORD));
    }
    // Split into 1-byte packets or 1-byte TCP segments, a reply still reads whole.
    for m in [Misbehaviour::Split(1), Misbehaviour::Drip] {
        let sim = arkrcon::spawn(world(&["Alice"]), with(m)).await.unwrap();
        let mut req = request(sim.addr.port(), arkrcon::PASSWORD);
        req.players = true;
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 1, "{m:?}");
        let shown = format!("{s:?}\n{}", serde_json::to_string(&s).unwrap());
        assert!(!shown.contains(arkrcon::PASSWORD), "{m:?}: {shown}");
    }
}
