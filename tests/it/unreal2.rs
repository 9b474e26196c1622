//! The Unreal 2 dialogue against the simulator over real loopback UDP, through the
//! exporter's own poll (registry entry, driver, resends): a friendly UT2004 server, Killing
//! Floor's waves, and every misbehaviour ending in its value or failure reason.

use std::time::Duration;

use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::unreal2::{spawn, Misbehaviour, Unreal2Config};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "UT Sim".into(),
        map: "DM-Rankin".into(),
        game: "xDeathMatch".into(),
        max: 16,
        players: vec![
            ("Malcolm".into(), 25, 0.0),
            ("Brock".into(), 17, 0.0),
            ("Лена".into(), 9, 0.0),
        ],
        rules: (0..6)
            .map(|i| (format!("rule{i}"), i.to_string()))
            .collect(),
        password: true,
        ..WorldState::default()
    })
}

async fn sim(config: Unreal2Config) -> SimServer {
    spawn(world(), config).await.unwrap()
}

fn request(server: &SimServer, players: bool, rules: bool) -> Request {
    let mut req = Request::new(
        Protocol::Unreal2,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.players = players;
    req.rules = rules;
    req.detail = true;
    req
}

fn names(s: &Status) -> Vec<String> {
    let mut n: Vec<String> = s.players.iter().flatten().map(|p| p.name.clone()).collect();
    n.sort();
    n
}

/// A friendly UT2004 server: name without its colour code, map, game type, counts, the
/// password flag, three players over two datagrams (one in UCS-2, in the server's order)
/// and six rules over two; info alone carries no lists.
#[tokio::test]
async fn friendly() {
    let config = Unreal2Config {
        coloured_name: true,
        ..Unreal2Config::default()
    };
    let server = sim(config).await;
    let s = poll(&request(&server, true, true)).await.unwrap();
    assert_eq!(s.name, "UT Sim");
    assert_eq!(s.map.as_deref(), Some("DM-Rankin"));
    assert_eq!(s.game.as_deref(), Some("xDeathMatch"));
    assert_eq!((s.online, s.max, s.password), (3, 16, Some(true)));
    assert_eq!(s.extras["query_version"], json!(0x80));
    assert_eq!(
        s.extras["game_port"],
        json!(i32::from(server.addr.port()) - 1)
    );
    let players = s.players.clone().unwrap();
    let shown: Vec<_> = players.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(shown, ["Malcolm", "Brock", "Лена"]);
    assert_eq!((players[0].score, players[0].ping), (Some(25), Some(20)));
    let rules = s.rules.unwrap();
    assert_eq!(rules.len(), 6);
    assert_eq!(rules[0], ("rule0".into(), "0".into()));

    let s = poll(&request(&server, false, false)).await.unwrap();
    assert_eq!((s.online, s.players, s.rules), (3, None, None));
}

/// Killing Floor's wave counters come through, and the counts around them stay right.
#[tokio::test]
async fn killing_floor() {
    let config = Unreal2Config {
        waves: Some((3, 7)),
        ..Unreal2Config::default()
    };
    let server = sim(config).await;
    let s = poll(&request(&server, false, false)).await.unwrap();
    assert_eq!((s.online, s.max), (3, 16));
    assert_eq!(
        (&s.extras["wave"], &s.extras["waves"]),
        (&json!(3), &json!(7))
    );
}

/// Steady state on the daemon's path: a session polled twice stays up with the same values.
#[tokio::test]
async fn session_polls_again() {
    let server = sim(Unreal2Config::default()).await;
    let req = request(&server, true, false);
    let mut session = Session::default();
    for _ in 0..2 {
        let s = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(names(&s), ["Brock", "Malcolm", "Лена"]);
    }
}

/// Each misbehaviour ends in its failure reason, or in the values a careful reader gets.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Silence, Err(Reason::Timeout)),
        (Misbehaviour::Truncated, Err(Reason::Malformed)),
        (Misbehaviour::WrongType, Err(Reason::Malformed)),
        (Misbehaviour::Oversized, Err(Reason::TooLarge)),
        // Duplicates are dropped, order is the arrival's, garbage is someone else's.
        (Misbehaviour::Duplicated, Ok((3, 16, 3))),
        (Misbehaviour::Reordered, Ok((3, 16, 3))),
        (Misbehaviour::Garbage, Ok((3, 16, 3))),
        // A lost datagram cannot be noticed (no count, no end marker): what arrived.
        (Misbehaviour::MissingPart, Ok((3, 16, 1))),
        // Lies are passed on as told.
        (Misbehaviour::LyingCounts, Ok((1000, 1, 3))),
    ] {
        let config = Unreal2Config {
            misbehaviour: m,
            ..Unreal2Config::default()
        };
        let server = sim(config).await;
        let mut req = request(&server, true, true);
        if m == Misbehaviour::Silence {
            req.timeout = Duration::from_millis(300);
        }
        let got = poll(&req)
            .await
            .map(|s| {
                let listed = s.players.as_ref().map_or(0, Vec::len);
                if listed == 3 {
                    assert_eq!(names(&s), ["Brock", "Malcolm", "Лена"], "{m:?}");
                    assert_eq!(s.rules.as_ref().map(Vec::len), Some(6), "{m:?}");
                }
                (s.online, s.max, listed)
            })
            .map_err(|f| f.reason);
        assert_eq!(got, want, "{m:?}");
    }
}
