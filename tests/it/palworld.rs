//! Palworld's REST API against the simulator through the real poll path: info and metrics
//! (server health), the player list only when asked for, every misbehaviour ending in its
//! failure reason.

use std::time::Duration;

use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::palworld::{spawn, PalworldConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

use crate::support::rest_api;

fn world() -> World {
    World::new(WorldState {
        name: "Sim Palworld".into(),
        version: "v0.3.11.0".into(),
        max: 32,
        players: vec![("Zoe".into(), 12, 0.0), ("Marcus".into(), 7, 0.0)],
        ..WorldState::default()
    })
}

async fn poll(config: PalworldConfig, edit: impl FnOnce(&mut Request)) -> Result<Status, Reason> {
    let server = spawn(world(), config).await.unwrap();
    let mut req = Request::new(
        Protocol::Palworld,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    edit(&mut req);
    query::poll(&req).await.map_err(|f| f.reason)
}

/// Name, version, counts and the server's FPS and frame time; players only when asked.
#[tokio::test]
async fn info_metrics_players() {
    let s = poll(PalworldConfig::default(), |_| {}).await.unwrap();
    assert_eq!((s.online, s.max), (2, 32));
    assert_eq!(s.name, "Sim Palworld");
    assert_eq!(s.version.as_deref(), Some("v0.3.11.0"));
    let health = s.health.unwrap();
    assert_eq!(health.tick_rate_hertz, Some(58.0));
    assert_eq!(health.tick_duration_seconds, Some(0.01725));
    assert_eq!(s.players, None);
    let s = poll(PalworldConfig::default(), |r| r.players = true)
        .await
        .unwrap();
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "Zoe");
    assert_eq!(players[0].score, Some(12));
    assert_eq!(players[1].ping, Some(31));
}

/// Every misbehaviour ends in its reason (a redirect too, as for TShock); a password the
/// target does not have is refused.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in rest_api::MISBEHAVIOURS {
        let config = PalworldConfig {
            misbehaviour: m,
            ..PalworldConfig::default()
        };
        let got = poll(config, rest_api::tight(want)).await;
        assert_eq!(got.unwrap_err(), want, "{m:?}");
    }
    let config = PalworldConfig {
        password: Some("hunter2".into()),
        ..PalworldConfig::default()
    };
    assert_eq!(poll(config, |_| {}).await.unwrap_err(), Reason::AuthRefused);
}
