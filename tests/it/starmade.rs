//! StarMade's status query against the simulator through the real poll path: name, counts,
//! version, description and start time, every broken server ending in its reason, and
//! `/probe?module=starmade`.

use crate::support::json_page::{catalogue_holds, world};
use crate::support::patience;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::starmade::{spawn, Misbehaviour, START_TIME};
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn status() {
    let w = world("Orbital Station");
    w.update(|w| w.version = "0.199".into());
    let server = spawn(w.clone(), Misbehaviour::None).await.unwrap();
    let mut req = Request::new(
        Protocol::Starmade,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::ANSWERED;
    req.detail = true;
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 16));
    assert_eq!(s.name, "Orbital Station");
    assert_eq!(s.version.as_deref(), Some("0.199"));
    assert_eq!(s.extras["description"], "A simulated StarMade universe");
    assert_eq!(s.extras["start_time_ms"], START_TIME);
    // No player list in this protocol.
    assert_eq!(s.players, None);
    w.update(|w| w.players.clear());
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (0, 16));
}

#[tokio::test]
async fn hostile_servers() {
    catalogue_holds(Protocol::Starmade).await;
}
