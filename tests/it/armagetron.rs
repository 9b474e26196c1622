//! Armagetron Advanced browser query against the simulator on 127.0.0.1, through the
//! exporter's own poll (spec, driver, shared UDP socket): the query window a
//! `small_request` opens, players with colour codes, and every misbehaviour ending in its
//! reason.

use crate::support::patience;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::armagetron::{spawn, ArmagetronConfig, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};

fn world() -> World {
    World::new(WorldState {
        name: "0xff0000Red 0xffffffFortress".into(),
        version: "0.2.9.2.3 unix dedicated".into(),
        max: 16,
        players: vec![("0x00ff00alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Armagetron,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(master: bool, misbehaviour: Misbehaviour) -> SimServer {
    spawn(
        world(),
        ArmagetronConfig {
            master,
            misbehaviour,
        },
    )
    .await
    .unwrap()
}

/// A server that answers only inside the window (the real 0.2.9 without a master) and one
/// that reports to a master read the same, poll after poll.
#[tokio::test]
async fn window_and_master_read_the_same() {
    for master in [false, true] {
        let s = server(master, Misbehaviour::None).await;
        for _ in 0..12 {
            let mut req = request(&s);
            req.players = true;
            req.rules = true;
            let st = poll(&req).await.unwrap();
            assert_eq!(st.name, "Red Fortress");
            assert_eq!((st.online, st.max), (2, 16));
            assert_eq!(st.version.as_deref(), Some("0.2.9.2.3 unix dedicated"));
            let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
            assert_eq!(names, ["alice", "bob"]);
            let rules = st.rules.unwrap();
            assert!(rules.contains(&("protocol_max".into(), "20".into())));
        }
    }
}

#[tokio::test]
async fn misbehaviours_fail_with_their_reason() {
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::SmallOnly, Reason::Mismatch),
        (Misbehaviour::LyingLength, Reason::Malformed),
        (Misbehaviour::LyingString, Reason::Malformed),
        (Misbehaviour::LyingCount, Reason::TooLarge),
        (Misbehaviour::Oversized, Reason::TooLarge),
    ] {
        let s = server(false, m).await;
        let mut req = request(&s);
        req.timeout = patience::timeout_for(reason);
        let e = match poll(&req).await {
            Ok(st) => panic!("{m:?} was up: {st:?}"),
            Err(e) => e,
        };
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
