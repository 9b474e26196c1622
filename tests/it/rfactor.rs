//! rFactor's query against the simulator on 127.0.0.1, through the exporter's own poll: the
//! fields, AI as bots, every misbehaviour's reason, and `/probe?module=rfactor` and
//! `module=asr08` (Arca Sim Racing '08's preset).

use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::rfactor::{spawn, Misbehaviour, RfactorConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Club Night".into(),
        map: "Mills Metropark".into(),
        version: "1255".into(),
        max: 20,
        bots: 3,
        password: true,
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Rfactor,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(misbehaviour: Misbehaviour) -> SimServer {
    let config = RfactorConfig {
        misbehaviour,
        ..RfactorConfig::default()
    };
    spawn(world(), config).await.unwrap()
}

#[tokio::test]
async fn fields() {
    let s = server(Misbehaviour::None).await;
    let mut req = request(&s);
    req.detail = true;
    req.players = true;
    let st = poll(&req).await.unwrap();
    assert_eq!(st.name, "Club Night");
    assert_eq!(st.map.as_deref(), Some("Mills Metropark"));
    assert_eq!((st.online, st.max, st.bots), (2, 20, Some(3)));
    assert_eq!(st.version.as_deref(), Some("1255"));
    assert_eq!(st.game.as_deref(), Some("rFactor"));
    assert_eq!(st.password, Some(true));
    assert_eq!(st.players, None);
    assert_eq!(st.extras["vehicles"], json!("F1|GT"));
    assert_eq!(st.extras["laps"], json!(10.0));
}

/// Every misbehaviour ends in its reason; an unterminated vehicles string still reads.
#[tokio::test]
async fn misbehaviours() {
    let s = server(Misbehaviour::Unterminated).await;
    assert_eq!(poll(&request(&s)).await.unwrap().online, 2);
    for (m, reason) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::Oversized, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let s = server(m).await;
        let mut req = request(&s);
        req.timeout = Duration::from_millis(600);
        let e = poll(&req).await.unwrap_err();
        assert_eq!(e.reason, reason, "{m:?}: {e:?}");
    }
}
