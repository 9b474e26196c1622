//! Eco's web API against the simulator through the real poll path (hyper's client over
//! loopback): the frontpage's name without rich text, counts without a capacity, the names
//! with `players`, every broken page ending in its reason, and `/probe?module=eco`.

use std::time::Duration;

use crate::support::json_page::{catalogue_holds, world};
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::eco::{spawn, LEFT};
use gameserver_exporter::simulate::json_page::Misbehaviour;
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn frontpage() {
    let server = spawn(world("Eco via Sirens"), Misbehaviour::None)
        .await
        .unwrap();
    let mut req = Request::new(
        Protocol::Eco,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 0));
    assert_eq!(s.name, "Eco via Sirens");
    assert_eq!(s.version.as_deref(), Some("1.0"));
    assert_eq!(s.extras["total_players"], 2 + LEFT as u64);
    assert_eq!(s.players, None);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Eco).await;
}
