//! GameSpy 1 against the simulator on 127.0.0.1, through the exporter's own poll (registry
//! entry, driver, resends): a friendly server in every datagram layout, and every
//! misbehaviour of the simulator's hostile catalogue ending as it says.

use std::time::Duration;

use crate::support::{catalogue, patience, poll_sim};
use gameserver_exporter::protocol::gamespy1::Style;
use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::gamespy1::{hostile, spawn, Gamespy1Config, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Protocol;
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Deck Sixteen Café".into(),
        map: "DM-Deck16][".into(),
        game: "DeathMatchPlus".into(),
        version: "451".into(),
        max: 12,
        bots: 1,
        players: (0..20).map(|i| (format!("player{i}"), i, 0.0)).collect(),
        rules: vec![("fraglimit".into(), "30".into())],
        ..WorldState::default()
    })
}

/// Patient: every case that fails sets its own timeout (`patience`).
fn request(server: &SimServer) -> Request {
    poll_sim::request(Protocol::Gamespy1, server, None)
}

fn full(server: &SimServer) -> Request {
    let mut req = request(server);
    req.players = true;
    req.rules = true;
    req.detail = true;
    req
}

async fn with(config: Gamespy1Config) -> SimServer {
    spawn(world(), config).await.unwrap()
}

/// In every layout, `\status\` reassembles to the world: the name (UTF-8 kept), the map, 21
/// online (a bot included), 12 max, every player in order with score and ping, every rule.
#[tokio::test]
async fn friendly_in_every_layout() {
    for style in [Style::Unreal, Style::QueryIdFirst, Style::Bare] {
        let server = with(Gamespy1Config {
            style,
            ..Gamespy1Config::default()
        })
        .await;
        let s = poll(&full(&server)).await.unwrap();
        assert_eq!(s.name, "Deck Sixteen Café", "{style:?}");
        assert_eq!(s.map.as_deref(), Some("DM-Deck16]["));
        assert_eq!((s.online, s.max), (21, 12));
        assert_eq!(s.game.as_deref(), Some("DeathMatchPlus"));
        assert_eq!(s.version.as_deref(), Some("451"));
        assert_eq!(s.password, Some(false));
        assert!(s.latency > Duration::ZERO);
        let players = s.players.unwrap();
        assert_eq!(players.len(), 21);
        assert_eq!(
            (players[7].name.as_str(), players[7].score, players[7].ping),
            ("player7", Some(7), Some(50))
        );
        assert_eq!(players[20].name, "Bot 0");
        let rules = s.rules.unwrap();
        assert_eq!(rules[0], ("gamename".into(), "ut".into()));
        assert!(rules.contains(&("fraglimit".into(), "30".into())));
        assert_eq!(s.extras.get("gamename"), Some(&json!("ut")));
    }
}

/// A daemon poll (no players, rules or detail) publishes the counts and nothing bulky; the
/// same session polls again.
#[tokio::test]
async fn daemon_poll() {
    let server = with(Gamespy1Config::default()).await;
    let mut session = Session::default();
    for _ in 0..2 {
        let s = poll_with(&request(&server), &mut session).await.unwrap();
        assert_eq!(
            (s.name.as_str(), s.online, s.max),
            ("Deck Sixteen Café", 21, 12)
        );
        assert_eq!((s.players, s.rules), (None, None));
        assert!(s.extras.is_empty());
    }
}

/// The target's `max_reply_bytes` caps the whole reply, all parts together.
#[tokio::test]
async fn reply_cap_from_the_target() {
    let server = with(Gamespy1Config::default()).await;
    let mut req = request(&server);
    req.limits.max_reply_bytes = 300;
    let f = poll(&req).await.unwrap_err();
    assert_eq!(f.reason, Reason::TooLarge, "{}", f.detail);
}

/// Every hostile server of the catalogue ends as the catalogue says, each within its poll's
/// deadline.
#[tokio::test]
async fn hostile_catalogue() {
    let fleet = hostile();
    assert_eq!(fleet.len(), 10);
    catalogue::assert_catalogue(Protocol::Gamespy1, fleet).await;
}

/// The misbehaviours' details: the garbage names the bad part number, a cut-off reply is
/// incomplete, and silence is a timeout.
#[tokio::test]
async fn failure_details() {
    let garbage = with(Gamespy1Config {
        misbehaviour: Misbehaviour::Garbage,
        ..Gamespy1Config::default()
    })
    .await;
    let f = poll(&request(&garbage)).await.unwrap_err();
    assert_eq!(f.reason, Reason::Malformed);
    assert!(f.detail.contains("queryid part number"), "{}", f.detail);
    for (m, reason) in [
        (Misbehaviour::Truncated, Reason::Incomplete),
        (Misbehaviour::MissingPart, Reason::Incomplete),
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::Oversized, Reason::TooLarge),
    ] {
        let server = with(Gamespy1Config {
            misbehaviour: m,
            ..Gamespy1Config::default()
        })
        .await;
        let mut req = request(&server);
        req.timeout = patience::timeout_for_parts(reason);
        let f = poll(&req).await.unwrap_err();
        assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
    }
}
