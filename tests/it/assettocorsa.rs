//! Assetto Corsa's HTTP lobby pages against the simulator through the real poll path (hyper's
//! client over loopback): `/INFO`, the entry list with `players`, Kunos's server without a
//! version, every broken page ending in its reason, and `/probe?module=assettocorsa`.

use std::time::Duration;

use crate::support::json_page::{catalogue_holds, world};
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::assettocorsa::{spawn, AcConfig};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

async fn poll(config: AcConfig, players: bool) -> Result<Status, Reason> {
    let server = spawn(world("Sim AC | MX-5 Cup"), config).await.unwrap();
    let mut req = Request::new(
        Protocol::Assettocorsa,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.players = players;
    query::poll(&req).await.map_err(|f| f.reason)
}

/// Name, track, counts, version; the connected drivers only when asked for.
#[tokio::test]
async fn info_and_drivers() {
    let s = poll(AcConfig::default(), false).await.unwrap();
    assert_eq!((s.online, s.max), (2, 16));
    assert_eq!(s.name, "Sim AC | MX-5 Cup");
    assert_eq!(s.map.as_deref(), Some("interop-map"));
    assert_eq!(s.version.as_deref(), Some("1.0"));
    assert_eq!(s.game.as_deref(), Some("Assetto Corsa"));
    assert_eq!(s.password, Some(false));
    assert_eq!(s.players, None);
    let s = poll(AcConfig::default(), true).await.unwrap();
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
    let kunos = AcConfig {
        kunos: true,
        ..AcConfig::default()
    };
    let s = poll(kunos, false).await.unwrap();
    assert_eq!((s.online, s.version), (2, None));
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Assettocorsa).await;
}
