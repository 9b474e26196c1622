//! What the suites of the single-game JSON pages (Assetto Corsa, Eco, Build and Shoot,
//! ElDewrito, DarkMultiPlayer, Hytale...) share: their world, and the hostile catalogue polled through the real poll
//! path. (`/probe?module=` for every preset is `probe_module::every_preset_probes_its_simulator`.)

use super::patience;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::hostile::{self, Outcome};
use gameserver_exporter::simulate::{simulator, World, WorldState};
use gameserver_exporter::target::{Address, Protocol};

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
        req.timeout = match h.outcome {
            Outcome::Down(reason) => patience::timeout_for_label(reason),
            Outcome::Up { .. } => patience::ANSWERED,
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
