//! ASE through the exporter's own poll (registry entry, shared driver, resends) against the
//! simulator on 127.0.0.1: a friendly Multi Theft Auto-style server, and every misbehaviour
//! ending in its value or failure reason within the timeout.

use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::ase::{spawn, AseConfig, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

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

fn request(server: &SimServer, timeout_ms: u64) -> Request {
    let mut req = Request::new(
        Protocol::Ase,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(timeout_ms);
    req.players = true;
    req.rules = true;
    req.detail = true;
    req
}

async fn against(game_port: u16, misbehaviour: Misbehaviour) -> Result<Status, Reason> {
    let config = AseConfig {
        game_port,
        misbehaviour,
    };
    let server = spawn(world(), config).await.unwrap();
    poll(&request(&server, 800)).await.map_err(|f| f.reason)
}

/// Name, map, counts, players and rules exactly; MTA colour codes gone from names.
#[tokio::test]
async fn friendly_server() {
    let s = against(22003, Misbehaviour::None).await.unwrap();
    assert_eq!(s.name, "Sim MTA");
    assert_eq!(s.map.as_deref(), Some("None"));
    assert_eq!(s.game.as_deref(), Some("mta"));
    assert_eq!(s.version.as_deref(), Some("1.6"));
    assert_eq!((s.online, s.max, s.password), (2, 32, Some(false)));
    assert!(s.latency > Duration::ZERO);
    let players = s.players.unwrap();
    let names: Vec<_> = players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!((players[1].score, players[1].ping), (Some(9), Some(50)));
    assert_eq!(
        s.rules.unwrap(),
        vec![("weather".to_string(), "1".to_string())]
    );
    assert_eq!(s.extras.get("gametype"), Some(&json!("Freeroam")));
    assert_eq!(s.extras.get("port"), Some(&json!(22003)));
}

/// The reply names the game port: by default the ASE port - 123, as Multi Theft Auto.
#[tokio::test]
async fn game_port_is_ase_port_minus_123() {
    let server = spawn(world(), AseConfig::default()).await.unwrap();
    let s = poll(&request(&server, 800)).await.unwrap();
    let game_port = server.addr.port().wrapping_sub(123);
    assert_eq!(s.extras.get("port"), Some(&json!(game_port)));
}

/// Duplicates and lies are values; every hostile reply ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    let s = against(22003, Misbehaviour::Duplicated).await.unwrap();
    assert_eq!(s.players.map(|p| p.len()), Some(2));
    let s = against(22003, Misbehaviour::LyingCounts).await.unwrap();
    assert_eq!((s.online, s.max), (1000, 1));
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::LengthOverrun, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Garbage, Reason::Malformed),
        (Misbehaviour::WrongMagic, Reason::Mismatch),
    ] {
        let got = against(22003, m).await.map(|s| s.name);
        assert_eq!(got, Err(reason), "{m:?}");
    }
}
