//! DarkMultiPlayer's status page (Kerbal Space Program) against the simulator through the real
//! poll path: name and counts, game and warp mode, the `", "`-joined names with `players`,
//! every broken page ending in its reason, and `/probe?module=kspd` (and its alias).

use crate::support::json_page::{catalogue_holds, world};
use crate::support::patience;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::json_page::Misbehaviour;
use gameserver_exporter::simulate::kspdmp::spawn;
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn status_page() {
    let w = world("Kerbin Space Center");
    let server = spawn(w.clone(), Misbehaviour::None).await.unwrap();
    let mut req = Request::new(
        Protocol::Kspdmp,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::ANSWERED;
    req.detail = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 16));
    assert_eq!(s.name, "Kerbin Space Center");
    assert_eq!(s.version.as_deref(), Some("1.0"));
    assert_eq!(s.extras["game_mode"], "SANDBOX");
    assert_eq!(s.extras["warp_mode"], "SUBSPACE");
    assert_eq!(s.extras["game_port"], 6702);
    assert_eq!(s.players, None);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
    // Everyone gone: an empty string, an empty list.
    w.update(|w| w.players.clear());
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.players.map(|p| p.len())), (0, Some(0)));
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Kspdmp).await;
}
