//! The Cube 2 server-info ping against the simulator on 127.0.0.1, through the exporter's own
//! poll: both dialects' fields (Sauerbraten's extinfo player list too) and every
//! misbehaviour's reason.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::cube2::{spawn, Cube2Config, Dialect, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        name: "Eclipse Üb".into(),
        map: "keystone2k".into(),
        max: 16,
        bots: 3,
        players: vec![("alice".into(), 3, 60.0), ("bob".into(), 1, 9.0)],
        password: true,
        ..WorldState::default()
    })
}

fn request(server: &SimServer, want: Reason) -> Request {
    let mut req = Request::new(
        Protocol::Cube2,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::timeout_for(want);
    req
}

async fn server(dialect: Dialect, misbehaviour: Misbehaviour) -> SimServer {
    spawn(
        world(),
        Cube2Config {
            dialect,
            misbehaviour,
        },
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn red_eclipse_fields() {
    let s = server(Dialect::RedEclipse, Misbehaviour::None).await;
    let mut req = request(&s, Reason::Malformed);
    req.detail = true;
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Eclipse Üb");
    assert_eq!(st.map.as_deref(), Some("keystone2k"));
    // Bots are not in Red Eclipse's query.
    assert_eq!((st.online, st.max), (2, 16));
    assert_eq!(st.game.as_deref(), Some("deathmatch"));
    assert_eq!(st.version.as_deref(), Some("1.6.0"));
    assert_eq!(st.password, Some(true));
    let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["alice", "bob"]);
    assert_eq!(st.extras["raw_description"], json!("\u{c}gEclipse Üb"));
    assert_eq!(st.extras["dialect"], json!("redeclipse"));
}

#[tokio::test]
async fn sauerbraten_fields() {
    let s = server(Dialect::Sauerbraten, Misbehaviour::None).await;
    let mut req = request(&s, Reason::Malformed);
    req.detail = true;
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Eclipse Üb");
    assert_eq!((st.online, st.max), (2, 16));
    assert_eq!(st.game.as_deref(), Some("ffa"));
    assert_eq!(st.version, None);
    assert_eq!(st.password, Some(true));
    // Its extinfo list: the players, then the bots (which the info count leaves out).
    let players = st.players.unwrap();
    let got: Vec<_> = players
        .iter()
        .map(|p| (p.name.as_str(), p.id.as_deref(), p.score, p.ping))
        .collect();
    assert_eq!(
        got,
        [
            ("alice", Some("0"), Some(3), Some(20)),
            ("bob", Some("1"), Some(1), Some(20)),
            ("bot0", Some("128"), Some(0), Some(20)),
            ("bot1", Some("129"), Some(0), Some(20)),
            ("bot2", Some("130"), Some(0), Some(20)),
        ]
    );
    // Bots are the clients numbered from 128 in the header.
    assert_eq!(st.bots, Some(3));
    assert_eq!(st.extras["extinfo_missing"], json!(0));
    assert_eq!(st.extras["protocol"], json!(260));
}

/// Without `players`, Sauerbraten is the ping alone: no list.
#[tokio::test]
async fn sauerbraten_without_players() {
    let s = server(Dialect::Sauerbraten, Misbehaviour::None).await;
    let st = poll(&request(&s, Reason::Malformed)).await.unwrap();
    assert_eq!((st.online, st.players), (2, None));
}

/// A header listing a client whose record never comes, or records for clients it never
/// listed: the poll waits out its deadline and is up with the records that matched.
#[tokio::test]
async fn sauerbraten_extinfo_missing_records() {
    for (m, want) in [
        (Misbehaviour::ExtLyingIds, 5),
        (Misbehaviour::ExtEndless, 0),
    ] {
        let s = server(Dialect::Sauerbraten, m).await;
        let mut req = request(&s, Reason::Timeout);
        req.players = true;
        req.detail = true;
        let st = poll(&req).await.unwrap();
        assert_eq!(st.online, 2, "{m:?}");
        assert_eq!(st.players.unwrap().len(), want, "{m:?}");
        assert_eq!(
            st.extras["extinfo_missing"],
            json!(if want == 5 { 1 } else { 5 })
        );
    }
}

/// Extinfo datagrams that are not what the server sends fail the poll.
#[tokio::test]
async fn sauerbraten_extinfo_misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::ExtManyIds, Reason::TooLarge),
        (Misbehaviour::ExtOversized, Reason::TooLarge),
        (Misbehaviour::ExtError, Reason::Malformed),
    ] {
        let s = server(Dialect::Sauerbraten, m).await;
        let mut req = request(&s, reason);
        req.players = true;
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// Every misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::Unterminated, Reason::Malformed),
        (Misbehaviour::LyingPlayers, Reason::Malformed),
        (Misbehaviour::ManyAttrs, Reason::TooLarge),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::WrongEcho, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(Dialect::RedEclipse, m).await;
        let e = poll(&request(&s, reason)).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
