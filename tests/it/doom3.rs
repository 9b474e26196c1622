//! The id Tech 4 dialogue against the simulator over real loopback UDP, through the
//! exporter's own poll (registry entry, driver, resends): each game's layout, read from the
//! reply itself, and every misbehaviour ending in its value or failure reason.

use std::time::Duration;

use gameserver_exporter::protocol::doom3::{Dialect, Version};
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::doom3::{spawn, Doom3Config, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "^1Red ^7Sim".into(),
        map: "game/mp/d3dm1".into(),
        game: "Tourney".into(),
        version: "DOOM 1.3.1".into(),
        max: 8,
        bots: 1,
        players: vec![("^2Marine".into(), 0, 0.0), ("Imp".into(), 0, 0.0)],
        rules: vec![("si_fragLimit".into(), "10".into())],
        password: true,
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Doom3,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.players = true;
    req.rules = true;
    req.detail = true;
    req
}

/// Every layout, told apart by the reply alone, reads back the world: name without
/// colours, map, game, counts, the protocol version; bots flagged where the layout flags
/// them. Prey (protocol 3.x) reads in Doom 3's layout.
#[tokio::test]
async fn every_dialect() {
    for (d, version, protocol) in [
        (Dialect::Doom3, None, "1.41"),
        (Dialect::Doom3, Some((3, 1)), "3.1"),
        (Dialect::Quake4, None, "2.86"),
        (Dialect::Etqw, None, "10.19"),
        (Dialect::Wolfenstein, None, "10.17"),
    ] {
        let config = Doom3Config {
            dialect: d,
            version: version.map(|(major, minor)| Version { major, minor }),
            ..Doom3Config::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let s = poll(&request(&server)).await.unwrap();
        assert_eq!(s.name, "Red Sim", "{d:?}");
        assert_eq!(s.map.as_deref(), Some("game/mp/d3dm1"), "{d:?}");
        assert_eq!(s.game.as_deref(), Some("Tourney"), "{d:?}");
        assert_eq!(s.version.as_deref(), Some("DOOM 1.3.1"), "{d:?}");
        assert_eq!((s.online, s.max, s.password), (3, 8, Some(true)), "{d:?}");
        assert_eq!(s.extras["protocol"], json!(protocol), "{d:?}");
        let bots = matches!(d, Dialect::Etqw | Dialect::Wolfenstein).then_some(1);
        assert_eq!(s.bots, bots, "{d:?}");
        let names: Vec<_> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["Marine", "Imp", "bot0"], "{d:?}");
        let rules = s.rules.unwrap();
        assert!(
            rules.contains(&("si_fragLimit".into(), "10".into())),
            "{d:?}"
        );
    }
}

/// Without players and rules asked for, the count still comes from the list, and neither
/// is kept.
#[tokio::test]
async fn counts_without_lists() {
    let server = spawn(world(), Doom3Config::default()).await.unwrap();
    let mut req = request(&server);
    (req.players, req.rules) = (false, false);
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.players, s.rules), (3, None, None));
}

/// Each misbehaviour ends in its failure reason, or in the values a careful reader gets.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Err(Reason::Timeout)),
        (Misbehaviour::Truncated, Err(Reason::Malformed)),
        (Misbehaviour::WrongChallenge, Err(Reason::Mismatch)),
        (Misbehaviour::Oversized, Err(Reason::TooLarge)),
        (Misbehaviour::Duplicated, Ok((3, 8))),
        // Foreign datagrams before the reply are someone else's.
        (Misbehaviour::Garbage, Ok((3, 8))),
        // Like qstat, a list that runs into the OS mask ends there.
        (Misbehaviour::NoEndMarker, Ok((3, 8))),
        // Lies are passed on as told.
        (Misbehaviour::LyingCounts, Ok((3, 1))),
    ] {
        let config = Doom3Config {
            misbehaviour: m,
            ..Doom3Config::default()
        };
        let server = spawn(world(), config).await.unwrap();
        let mut req = request(&server);
        if matches!(m, Misbehaviour::Silence | Misbehaviour::WrongChallenge) {
            req.timeout = Duration::from_millis(300);
        }
        let got = poll(&req)
            .await
            .map(|s| {
                assert_eq!(s.players.as_ref().map(Vec::len), Some(3), "{m:?}");
                (s.online, s.max)
            })
            .map_err(|f| f.reason);
        assert_eq!(got, want, "{m:?}");
    }
}
