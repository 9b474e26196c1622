//! NetQuake's control query against the simulator on 127.0.0.1, through the exporter's own
//! poll: server info, the player list one request per player, the rule chain, and every
//! misbehaviour's reason.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::netquake::{spawn, Misbehaviour, NetQuakeConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        name: "Slipgate".into(),
        map: "e1m1".into(),
        max: 16,
        bots: 0,
        players: vec![("Ranger".into(), 12, 60.0), ("Shambler".into(), -1, 9.0)],
        // None: the simulator then sends QuakeSpasm's seven.
        rules: Vec::new(),
        ..WorldState::default()
    })
}

fn request(server: &SimServer, want: Reason) -> Request {
    let mut req = Request::new(
        Protocol::Netquake,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::timeout_for(want);
    req
}

async fn server(misbehaviour: Misbehaviour) -> SimServer {
    spawn(world(), NetQuakeConfig { misbehaviour })
        .await
        .unwrap()
}

#[tokio::test]
async fn fields_players_and_rules() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(&s, Reason::Malformed);
    req.detail = true;
    req.players = true;
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Slipgate");
    assert_eq!(st.map.as_deref(), Some("e1m1"));
    assert_eq!((st.online, st.max), (2, 16));
    assert_eq!(st.extras["net_protocol"], json!(3));
    let players: Vec<_> = st
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score, p.duration))
        .collect();
    assert_eq!(
        players,
        [
            ("Ranger".to_string(), Some(12), Some(60.0)),
            ("Shambler".to_string(), Some(-1), Some(9.0))
        ]
    );
    let rules = st.rules.unwrap();
    assert_eq!(rules.len(), 7);
    assert_eq!(rules[3], ("sv_gravity".to_string(), "800".to_string()));
}

/// Every misbehaviour of the server info ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::LyingLength, Reason::Malformed),
        (Misbehaviour::NeverEnding, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::NotControl, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let e = poll(&request(&s, reason)).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}

/// Best-effort steps that go wrong leave the server up, with a note: a player reply for
/// another index is never taken, and an endless rule chain stops at the cap.
#[tokio::test]
async fn broken_lists_stay_bounded() {
    let s = server(Misbehaviour::WrongIndex).await;
    let mut req = request(&s, Reason::Timeout);
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.players.unwrap(), []);
    assert!(st.extras.contains_key("players_note"), "{:?}", st.extras);

    let s = server(Misbehaviour::EndlessRules).await;
    let mut req = request(&s, Reason::Malformed);
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.rules.unwrap().len(), 64);
    assert!(st.extras.contains_key("rules_note"), "{:?}", st.extras);
}
