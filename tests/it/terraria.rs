//! TShock's REST API against the simulator through the real poll path (hyper's client over
//! loopback): the status, the player list, TLS verified, pinned and insecure, and every
//! misbehaviour ending in its failure reason.

use std::time::Duration;

use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::terraria::{spawn, TerrariaConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol, Tls};

use crate::support::{rest_api, tls_sim};

fn world() -> World {
    World::new(WorldState {
        name: "Sim TShock".into(),
        map: "Forest".into(),
        version: "v1.4.4.9".into(),
        max: 8,
        players: vec![("Alice".into(), 0, 0.0), ("Bob".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(addr: std::net::SocketAddr) -> Request {
    let mut req = Request::new(
        Protocol::Terraria,
        Address::parse(&addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn poll(config: TerrariaConfig, edit: impl FnOnce(&mut Request)) -> Result<Status, Reason> {
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(server.addr);
    edit(&mut req);
    query::poll(&req).await.map_err(|f| f.reason)
}

/// Name, world, counts and version; the list only when asked for.
#[tokio::test]
async fn status_and_players() {
    let s = poll(TerrariaConfig::default(), |_| {}).await.unwrap();
    assert_eq!((s.online, s.max), (2, 8));
    assert_eq!(s.name, "Sim TShock");
    assert_eq!(s.map.as_deref(), Some("Forest"));
    assert_eq!(s.version.as_deref(), Some("v1.4.4.9"));
    assert_eq!(s.players, None);
    let s = poll(TerrariaConfig::default(), |r| r.players = true)
        .await
        .unwrap();
    let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Alice", "Bob"]);
}

/// HTTPS: a pinned certificate is accepted, another pin and the built-in roots refuse it,
/// and `tls_insecure` reads it without checking; plain HTTP to a TLS port fails.
#[tokio::test]
async fn tls_pinned_verified_insecure() {
    let (tls, _, digest) = tls_sim::self_signed();
    let config = || TerrariaConfig {
        tls: Some(tls.clone()),
        ..TerrariaConfig::default()
    };
    let s = poll(config(), |r| r.tls = Tls::Pinned(Box::new(digest)))
        .await
        .unwrap();
    assert_eq!(s.online, 2);
    let mut other = digest;
    other[0] ^= 1;
    let e = poll(config(), |r| r.tls = Tls::Pinned(Box::new(other))).await;
    assert_eq!(e.unwrap_err(), Reason::Network);
    assert_eq!(
        poll(config(), |r| r.tls = Tls::Verify).await.unwrap_err(),
        Reason::Network
    );
    assert_eq!(
        poll(config(), |r| r.tls = Tls::Insecure)
            .await
            .unwrap()
            .online,
        2
    );
    assert!(poll(config(), |_| {}).await.is_err());
}

/// Every misbehaviour ends in its reason; the cap holds a 2 MB body at 64 KiB.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in rest_api::MISBEHAVIOURS {
        let config = TerrariaConfig {
            misbehaviour: m,
            ..TerrariaConfig::default()
        };
        let got = poll(config, rest_api::tight(want)).await;
        assert_eq!(got.unwrap_err(), want, "{m:?}");
    }
}

/// A server that wants a token refuses a poll without one.
#[tokio::test]
async fn token_required() {
    let config = TerrariaConfig {
        token: Some("hunter2".into()),
        ..TerrariaConfig::default()
    };
    assert_eq!(poll(config, |_| {}).await.unwrap_err(), Reason::AuthRefused);
}
