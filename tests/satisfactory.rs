//! Satisfactory Lightweight Query against the simulator on 127.0.0.1, through the exporter's
//! own poll, every misbehaviour ending in its reason.

use std::time::Duration;

use gameserver_exporter::protocol::satisfactory::ServerState;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::satisfactory::{spawn, Misbehaviour, SatisfactoryConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "Ficsit Factory".into(),
        version: "412345".into(),
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Satisfactory,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(1500);
    req
}

async fn server(state: ServerState, m: Misbehaviour) -> SimServer {
    let config = SatisfactoryConfig {
        state,
        flags: 1,
        misbehaviour: m,
        ..SatisfactoryConfig::default()
    };
    spawn(world(), config).await.unwrap()
}

/// Name, build number, and the state as a rule and an extra, for each state.
#[tokio::test]
async fn states() {
    for (state, word) in [
        (ServerState::Idle, "idle"),
        (ServerState::Loading, "loading"),
        (ServerState::Playing, "playing"),
    ] {
        let s = server(state, Misbehaviour::None).await;
        let mut req = request(&s);
        req.detail = true;
        let st = poll(&req).await.unwrap();
        assert_eq!(st.name, "Ficsit Factory");
        assert_eq!(st.version.as_deref(), Some("412345"));
        assert_eq!((st.online, st.max), (0, 0));
        let rules = st.rules.unwrap();
        assert_eq!(rules[0], ("server_state".into(), word.into()));
        assert_eq!(st.extras["server_state"], json!(word));
        assert_eq!(st.extras["modded"], json!(true));
        assert_eq!(st.extras["substates"].as_array().map(Vec::len), Some(4));
    }
}

/// A stale reply first is skipped.
#[tokio::test]
async fn stale_first() {
    let s = server(ServerState::Playing, Misbehaviour::StaleFirst).await;
    assert_eq!(poll(&request(&s)).await.unwrap().name, "Ficsit Factory");
}

/// Each misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::WrongCookie, Reason::Mismatch),
        (Misbehaviour::OtherVersion, Reason::Malformed),
        (Misbehaviour::NameOverrun, Reason::Malformed),
        (Misbehaviour::NoTerminator, Reason::Malformed),
    ] {
        let s = server(ServerState::Playing, m).await;
        let f = poll(&request(&s)).await.unwrap_err();
        assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
    }
}
