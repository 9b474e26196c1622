//! Tribes 1's query against the simulator on 127.0.0.1, through the exporter's own poll: the
//! fields and players, every misbehaviour's reason, and `/probe?module=t1s`.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::tribes1::{spawn, Misbehaviour, Tribes1Config};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

use crate::support::patience;

pub fn world() -> World {
    World::new(WorldState {
        name: "Broadside".into(),
        map: "Raindance".into(),
        max: 32,
        bots: 0,
        password: true,
        players: vec![("alice".into(), 12, 60.0), ("bob".into(), -3, 9.0)],
        ..WorldState::default()
    })
}

pub fn request(protocol: Protocol, server: &SimServer, want: Reason) -> Request {
    let mut req = Request::new(protocol, Address::parse(&server.addr.to_string()).unwrap());
    req.timeout = patience::timeout_for(want);
    req
}

pub async fn server(misbehaviour: Misbehaviour) -> SimServer {
    spawn(world(), Tribes1Config { misbehaviour })
        .await
        .unwrap()
}

#[tokio::test]
async fn fields_and_players() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(Protocol::Tribes1, &s, Reason::Malformed);
    req.detail = true;
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Broadside");
    assert_eq!(st.map.as_deref(), Some("Raindance"));
    assert_eq!((st.online, st.max), (2, 32));
    assert_eq!(st.game.as_deref(), Some("base"));
    assert_eq!(st.version.as_deref(), Some("1.11"));
    assert_eq!(st.password, Some(true));
    let players: Vec<_> = st
        .players
        .unwrap()
        .into_iter()
        .map(|p| (p.name, p.score, p.ping))
        .collect();
    assert_eq!(
        players,
        [
            ("alice".to_string(), Some(12), Some(40)),
            ("bob".to_string(), Some(-3), Some(44))
        ]
    );
    assert_eq!(st.extras["mission_type"], json!("CTF"));
    assert_eq!(st.extras["teams"], json!(["Blood Eagle", "Diamond Sword"]));
}

/// Every misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::LyingCount, Reason::Malformed),
        (Misbehaviour::LyingLength, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::WrongKey, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let e = poll(&request(Protocol::Tribes1, &s, reason))
            .await
            .unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
