//! Farming Simulator's stats feed against the simulator through the real poll path (hyper's
//! client over loopback): the feed, the players, the code (sent, required, refused) and
//! every misbehaviour ending in its failure reason.

use crate::support::patience;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::protocol::credentials::Credentials;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::farmingsimulator::{
    spawn, FarmingSimulatorConfig, Misbehaviour,
};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

fn world() -> World {
    World::new(WorldState {
        name: "Tom & Jerry's <farm>".into(),
        map: "Elmcreek".into(),
        game: "Farming Simulator 22".into(),
        version: "1.14.0.0".into(),
        max: 6,
        players: vec![("Alice".into(), 0, 750.0), ("Bob".into(), 0, 59.0)],
        ..WorldState::default()
    })
}

fn request(addr: std::net::SocketAddr, code: Option<&str>) -> Request {
    let mut req = Request::new(
        Protocol::Farmingsimulator,
        Address::parse(&addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.credentials = code.map(|c| {
        Arc::new(Credentials {
            code: Some(Secret::new(c)),
            ..Credentials::default()
        })
    });
    req
}

async fn poll(
    config: FarmingSimulatorConfig,
    code: Option<&str>,
    edit: impl FnOnce(&mut Request),
) -> Result<Status, Reason> {
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(server.addr, code);
    edit(&mut req);
    query::poll(&req).await.map_err(|f| f.reason)
}

/// Name (unescaped), map, game, version, counts, admins and mods; the players with their
/// minutes as seconds only when asked for.
#[tokio::test]
async fn feed_and_players() {
    let s = poll(FarmingSimulatorConfig::default(), None, |_| {})
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (2, 6));
    assert_eq!(s.name, "Tom & Jerry's <farm>");
    assert_eq!(s.map.as_deref(), Some("Elmcreek"));
    assert_eq!(s.game.as_deref(), Some("Farming Simulator 22"));
    assert_eq!(s.version.as_deref(), Some("1.14.0.0"));
    assert_eq!(s.extras["admins"], 1);
    assert_eq!(s.extras["mods"], 2);
    assert_eq!(s.players, None);
    let s = poll(FarmingSimulatorConfig::default(), None, |r| {
        r.players = true
    })
    .await
    .unwrap();
    let players: Vec<(String, Option<f32>)> = s
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.duration))
        .collect();
    assert_eq!(
        players,
        [("Alice".into(), Some(720.0)), ("Bob".into(), Some(0.0))]
    );
}

/// A server that wants a code reads it from the query (percent-encoded on the way) and
/// refuses a poll without it or with another one.
#[tokio::test]
async fn code_sent_and_required() {
    let config = || FarmingSimulatorConfig {
        code: Some("Ab3&x y".into()),
        ..FarmingSimulatorConfig::default()
    };
    let s = poll(config(), Some("Ab3&x y"), |_| {}).await.unwrap();
    assert_eq!(s.online, 2);
    assert_eq!(
        poll(config(), None, |_| {}).await.unwrap_err(),
        Reason::AuthRefused
    );
    assert_eq!(
        poll(config(), Some("wrong"), |_| {}).await.unwrap_err(),
        Reason::AuthRefused
    );
}

/// Every misbehaviour ends in its reason; the cap holds a 3 MB feed at 64 KiB.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Truncated, Reason::Malformed),
        (Misbehaviour::Huge, Reason::TooLarge),
        (Misbehaviour::Drip, Reason::Timeout),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::Html, Reason::Malformed),
        (Misbehaviour::Unavailable, Reason::Refused),
    ] {
        let config = FarmingSimulatorConfig {
            misbehaviour: m,
            ..FarmingSimulatorConfig::default()
        };
        let got = poll(config, None, |r| {
            r.timeout = patience::timeout_for(want);
            r.limits.max_reply_bytes = 64 * 1024;
        })
        .await;
        assert_eq!(got.unwrap_err(), want, "{m:?}");
    }
}
