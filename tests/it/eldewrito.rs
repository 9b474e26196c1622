//! ElDewrito's info server against the simulator through the real poll path: counts, map,
//! version, the list with `players`, a password hiding the list, every broken page ending in
//! its reason, and `/probe?module=eldewrito`.

use std::time::Duration;

use crate::support::json_page::{catalogue_holds, world};
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::eldewrito::spawn;
use gameserver_exporter::simulate::json_page::Misbehaviour;
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn info_page() {
    let w = world("Slayer 24/7");
    let server = spawn(w.clone(), Misbehaviour::None).await.unwrap();
    let mut req = Request::new(
        Protocol::Eldewrito,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.password), (2, 16, Some(false)));
    assert_eq!(s.name, "Slayer 24/7");
    assert_eq!(s.map.as_deref(), Some("interop-map"));
    assert_eq!(s.version.as_deref(), Some("1.0"));
    let p = s.players.unwrap();
    assert_eq!((p[0].name.as_str(), p[0].score), ("alice", Some(3)));
    assert_eq!(p[1].name, "bob");
    // Behind a password: counts, no list.
    w.update(|w| w.password = true);
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.password), (2, 16, Some(true)));
    assert_eq!(s.players, None);
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Eldewrito).await;
}
