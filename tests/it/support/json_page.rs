//! What the suites of the single-game JSON pages (Assetto Corsa, Eco, Build and Shoot,
//! ElDewrito, DarkMultiPlayer...) share: `/probe?module=<game id>` for every preset of the protocol against its
//! simulator, and its hostile catalogue polled through the real poll path.

use super::daemon::start;
use super::http::plain;
use super::patience;
use gameserver_exporter::games::list::GAMES;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::hostile::{self, Outcome};
use gameserver_exporter::simulate::{simulator, World, WorldState};
use gameserver_exporter::target::{Address, Protocol};
use std::sync::Arc;

const CONFIG: &str = r#"
[exporter]
interval = "24h"
timeout = "2s"
probe_allowed_networks = ["127.0.0.0/8"]
"#;

/// Two players of 16 slots.
pub fn world(name: &str) -> World {
    World::new(WorldState {
        name: name.into(),
        map: "interop-map".into(),
        version: "1.0".into(),
        max: 16,
        players: vec![("alice".into(), 3, 60.0), ("bob".into(), 2, 30.0)],
        rules: Vec::new(),
        ..WorldState::default()
    })
}

/// Every preset id and alias of `protocol` as a `/probe` module against its simulator: up,
/// with the simulator's two players. Returns how many modules were probed.
pub async fn every_preset_probes(protocol: Protocol) -> usize {
    let sim = (simulator(protocol).spawn)(world("probe")).await.unwrap();
    let d = start(CONFIG, Arc::new(QueryProber)).await;
    let a = sim.addr;
    let mut probed = 0;
    for g in GAMES.iter().filter(|g| g.protocol == protocol) {
        for id in std::iter::once(g.id).chain(g.aliases.iter().copied()) {
            let path = format!("/probe?module={id}&target={a}");
            let r = plain(d.addr, "GET", &path, "")
                .await
                .expect("an HTTP reply");
            assert_eq!(r.status, 200, "{path}: {}", r.text());
            for want in [
                format!("gameserver_up{{target=\"{a}\",protocol=\"{protocol}\"}} 1\n"),
                format!("gameserver_players_online{{target=\"{a}\",protocol=\"{protocol}\"}} 2\n"),
            ] {
                assert!(
                    r.text().contains(&want),
                    "{path}: no {want} in\n{}",
                    r.text()
                );
            }
            probed += 1;
        }
    }
    d.stop().await;
    probed
}

/// The protocol's hostile catalogue: each server ends as its entry says, with its reason.
pub async fn catalogue_holds(protocol: Protocol) {
    let list = (simulator(protocol).hostile)();
    assert!(list.iter().any(|h| matches!(h.outcome, Outcome::Up { .. })));
    assert!(
        list.len() >= 7,
        "{protocol}: {} hostile servers",
        list.len()
    );
    for h in list {
        let server = (h.start)(hostile::world(&format!("{protocol}-{}", h.name)))
            .await
            .unwrap();
        let mut req = Request::new(protocol, Address::parse(&server.addr.to_string()).unwrap());
        // A short wait only for the cases built never to finish (support::patience).
        req.timeout = match h.outcome {
            Outcome::Up { .. } => patience::ANSWERED,
            Outcome::Down(reason) => patience::timeout_for_label(reason),
        };
        let got = query::poll(&req).await;
        match h.outcome {
            Outcome::Up { online, max, .. } => {
                let s = got.unwrap();
                assert_eq!((s.online, s.max), (online, max), "{protocol}-{}", h.name);
                assert_eq!(s.name, format!("{protocol}-{}", h.name));
            }
            Outcome::Down(reason) => {
                let f = got.unwrap_err();
                assert_eq!(f.reason.as_str(), reason, "{protocol}-{}: {f:?}", h.name)
            }
        }
    }
}
