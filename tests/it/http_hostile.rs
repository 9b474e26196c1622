//! The HTTP APIs' hostile catalogues (`simulate::simulator(p).hostile`) polled through the
//! real poll path: each server ends as its catalogue entry says, with its exact reason.

use crate::support::patience;

use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::hostile::Outcome;
use gameserver_exporter::simulate::{simulator, World, WorldState};
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn catalogues_hold() {
    for p in [Protocol::Terraria, Protocol::Palworld] {
        let list = (simulator(p).hostile)();
        assert!(list.iter().any(|h| matches!(h.outcome, Outcome::Up { .. })));
        for h in list {
            let world = World::new(WorldState {
                name: format!("{p}-{}", h.name),
                max: 24,
                players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
                ..WorldState::default()
            });
            let server = (h.start)(world).await.unwrap();
            let mut req = Request::new(p, Address::parse(&server.addr.to_string()).unwrap());
            req.timeout = match h.outcome {
                Outcome::Down(reason) => patience::timeout_for_label(reason),
                Outcome::Up { .. } => patience::ANSWERED,
            };
            let got = query::poll(&req).await;
            match h.outcome {
                Outcome::Up { online, max, .. } => {
                    let s = got.unwrap();
                    assert_eq!((s.online, s.max), (online, max), "{p}-{}", h.name);
                    assert_eq!(s.name, format!("{p}-{}", h.name));
                }
                Outcome::Down(reason) => {
                    assert_eq!(got.unwrap_err().reason.as_str(), reason, "{p}-{}", h.name)
                }
            }
        }
    }
}
