//! Frontlines: Fuel of War's query against the simulator on 127.0.0.1, through the
//! exporter's own poll: the fields, every misbehaviour's reason, and
//! `/probe?module=ffow`.

use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::ffow::{spawn, FfowConfig, Misbehaviour};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Frontline Ops".into(),
        map: "FL-Village".into(),
        max: 50,
        bots: 0,
        password: true,
        players: vec![("alice".into(), 3, 60.0), ("bob".into(), 1, 9.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Ffow,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(misbehaviour: Misbehaviour) -> SimServer {
    spawn(world(), FfowConfig { misbehaviour }).await.unwrap()
}

#[tokio::test]
async fn fields() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(&s);
    req.detail = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Frontline Ops");
    assert_eq!(st.map.as_deref(), Some("FL-Village"));
    assert_eq!((st.online, st.max), (2, 50));
    assert_eq!(st.game.as_deref(), Some("ffow"));
    assert_eq!(st.version.as_deref(), Some("1.0.3"));
    assert_eq!(st.password, Some(true));
    assert_eq!(st.extras["game_port"], json!(5476));
    assert_eq!(st.extras["seconds_left"], json!(600));
}

/// Every misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::ChallengeOnly, Reason::Mismatch),
        (Misbehaviour::SplitHeader, Reason::Mismatch),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let mut req = request(&s);
        req.timeout = Duration::from_millis(600);
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
