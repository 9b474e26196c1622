//! Savage 2's query against the simulator on 127.0.0.1, through the exporter's own poll: the
//! fields, every misbehaviour's reason, and `/probe?module=s2ats`.

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::savage2::{spawn, Misbehaviour, Savage2Config};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

use crate::support::patience;

fn world() -> World {
    World::new(WorldState {
        name: "Newerth Front".into(),
        map: "eden2".into(),
        max: 32,
        bots: 1,
        players: vec![("alice".into(), 3, 60.0), ("bob".into(), 1, 9.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer, want: Reason) -> Request {
    let mut req = Request::new(
        Protocol::Savage2,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = patience::timeout_for(want);
    req
}

async fn server(misbehaviour: Misbehaviour) -> SimServer {
    spawn(world(), Savage2Config { misbehaviour })
        .await
        .unwrap()
}

#[tokio::test]
async fn fields() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(&s, Reason::Malformed);
    req.detail = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Newerth Front");
    assert_eq!(st.map.as_deref(), Some("eden2"));
    assert_eq!((st.online, st.max), (3, 32));
    assert_eq!(st.game.as_deref(), Some("RTSS"));
    assert_eq!(st.version.as_deref(), Some("2.1.0.0"));
    assert_eq!(st.extras["raw_name"], json!("^rNewerth Front"));
    assert_eq!(st.extras["next_map"], json!("crossroads"));
}

/// Every misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::Unterminated, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let e = poll(&request(&s, reason)).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
