//! GameSpy 2 against the simulator on 127.0.0.1, through the exporter's own poll (registry
//! entry, driver, resends): a friendly server with and without count bytes (America's Army),
//! and every misbehaviour of the simulator's hostile catalogue ending as it says.

use std::time::Duration;

use crate::support::{catalogue, patience, poll_sim};
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::gamespy2::{hostile, spawn, Gamespy2Config, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Protocol;
use serde_json::json;

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

/// Patient: every case that fails sets its own timeout (`patience`).
fn request(server: &SimServer) -> Request {
    poll_sim::request(Protocol::Gamespy2, server, None)
}

fn full(server: &SimServer) -> Request {
    let mut req = request(server);
    req.players = true;
    req.rules = true;
    req.detail = true;
    req
}

async fn with(config: Gamespy2Config) -> SimServer {
    spawn(world(), config).await.unwrap()
}

fn misbehaving(m: Misbehaviour) -> Gamespy2Config {
    Gamespy2Config {
        misbehaviour: m,
        ..Gamespy2Config::default()
    }
}

fn check_world(s: &Status) {
    assert_eq!(s.name, "Saigon Café");
    assert_eq!(s.map.as_deref(), Some("Hue 1968"));
    assert_eq!((s.online, s.max), (31, 64));
    assert_eq!(s.game.as_deref(), Some("conquest"));
    assert_eq!(s.version.as_deref(), Some("v1.21"));
    assert_eq!(s.password, Some(false));
    let players = s.players.as_ref().unwrap();
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
        let server = with(Gamespy2Config {
            omit_counts,
            ..Gamespy2Config::default()
        })
        .await;
        let s = poll(&full(&server)).await.unwrap();
        check_world(&s);
        assert!(s.latency > Duration::ZERO);
        assert_eq!(s.extras.get("gamename"), Some(&json!("bfvietnam")));
        assert_eq!(
            s.extras.get("player_count_byte"),
            omit_counts.then(|| json!("missing")).as_ref(),
            "{omit_counts}"
        );
        let rules = s.rules.unwrap();
        assert_eq!(rules[0], ("hostname".into(), "Saigon Café".into()));
    }
}

/// A daemon poll (no players, rules or detail) has the counts and nothing bulky.
#[tokio::test]
async fn daemon_poll() {
    let server = with(Gamespy2Config::default()).await;
    let s = poll(&request(&server)).await.unwrap();
    assert_eq!((s.name.as_str(), s.online, s.max), ("Saigon Café", 31, 64));
    assert_eq!((s.players, s.rules), (None, None));
    assert!(s.extras.is_empty());
}

/// A repeated reply, or another request's reply first, still gives the right one.
#[tokio::test]
async fn duplicated_and_foreign_first() {
    for m in [Misbehaviour::Duplicated, Misbehaviour::WrongIdFirst] {
        let server = with(misbehaving(m)).await;
        check_world(&poll(&full(&server)).await.unwrap());
    }
}

/// Each misbehaviour's failure reason with the player table asked for too.
#[tokio::test]
async fn failure_reasons() {
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::WrongId, Reason::Mismatch),
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Garbage, Reason::Malformed),
    ] {
        let server = with(misbehaving(m)).await;
        let mut req = full(&server);
        req.timeout = patience::timeout_for(reason);
        let f = poll(&req).await.unwrap_err();
        assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
    }
    // Lying counts: 4294967295 online is no count a server reports: never published.
    let server = with(misbehaving(Misbehaviour::LyingCounts)).await;
    let f = poll(&request(&server)).await.unwrap_err();
    assert_eq!(f.reason, Reason::Malformed);
    assert!(f.detail.starts_with("online 4294967295 "), "{}", f.detail);
}

/// Every hostile server of the catalogue ends as the catalogue says.
#[tokio::test]
async fn hostile_catalogue() {
    let fleet = hostile();
    assert_eq!(fleet.len(), 10);
    catalogue::assert_catalogue(Protocol::Gamespy2, fleet).await;
}
