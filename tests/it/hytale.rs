//! The Nitrado Query plugin's page (Hytale) against the simulator through the real poll path:
//! name, counts, version, default world, the list with `players`, the other shapes servers
//! give (only `Basic`, the first releases' players keyed by UUID), 401 for an anonymous user
//! without permissions, every broken page ending in its reason, and `/probe?module=hytale`.

use crate::support::json_page::{catalogue_holds, world};
use crate::support::{patience, tls_sim};
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::hytale::{spawn, spawn_tls, spawn_with, Sections};
use gameserver_exporter::simulate::json_page::Misbehaviour;
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol, Tls};

fn request(addr: std::net::SocketAddr) -> Request {
    let mut req = Request::new(Protocol::Hytale, Address::parse(&addr.to_string()).unwrap());
    req.timeout = patience::ANSWERED;
    req
}

#[tokio::test]
async fn query_page() {
    let server = spawn(world("Orbis Survival"), Misbehaviour::None)
        .await
        .unwrap();
    let mut req = request(server.addr);
    req.detail = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 16));
    assert_eq!(s.name, "Orbis Survival");
    assert_eq!(s.version.as_deref(), Some("1.0"));
    assert_eq!(s.map.as_deref(), Some("interop-map"));
    assert_eq!(s.extras["patchline"], "release");
    assert_eq!(s.extras["protocol_version"], 1);
    assert_eq!(s.players, None);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    let p = s.players.unwrap();
    let names: Vec<&str> = p.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(
        p[0].id.as_deref(),
        Some("00000000-0000-4000-8000-000000000001")
    );
}

/// Only `Basic`: name, counts and version, no world, no list.
#[tokio::test]
async fn basic_only() {
    let w = world("Basic Orbis");
    let server = spawn_with(w, Sections::BasicOnly, Misbehaviour::None)
        .await
        .unwrap();
    let mut req = request(server.addr);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.name.as_str()), (2, 16, "Basic Orbis"));
    assert_eq!(s.version.as_deref(), Some("1.0"));
    assert_eq!((s.map, s.players), (None, None));
}

/// The first releases: players keyed by UUID.
#[tokio::test]
async fn first_release() {
    let server = spawn_with(world("Early"), Sections::FirstRelease, Misbehaviour::None)
        .await
        .unwrap();
    let mut req = request(server.addr);
    req.players = true;
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 16));
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
}

/// The WebServer plugin's default, TLS with a self-signed certificate: read when pinned or
/// with `tls_insecure`; the built-in roots refuse it; plain HTTP to it fails.
#[tokio::test]
async fn tls_self_signed() {
    let (tls, _, digest) = tls_sim::self_signed();
    let server = spawn_tls(world("Secure Orbis"), tls).await.unwrap();
    let mut req = request(server.addr);
    req.tls = Tls::Pinned(Box::new(digest));
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.online, s.max, s.name.as_str()), (2, 16, "Secure Orbis"));
    req.tls = Tls::Insecure;
    assert_eq!(query::poll(&req).await.unwrap().online, 2);
    req.tls = Tls::Verify;
    assert_eq!(query::poll(&req).await.unwrap_err().reason, Reason::Network);
    req.tls = Tls::Off;
    assert!(query::poll(&req).await.is_err());
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Hytale).await;
}
