//! FiveM dialogue against the simulator on 127.0.0.1, through the exporter's own poll
//! (registry entry, driver, minimum gap), every misbehaviour ending in its reason.

use std::time::Duration;

use gameserver_exporter::query::{poll, poll_with, Request, Session};
use gameserver_exporter::simulate::fivem::{spawn, FivemConfig, Misbehaviour, RateLimit, IV};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "^1Los ^7Santos ^5RP".into(),
        map: "fivem-map-skater".into(),
        game: "Freeroam".into(),
        max: 48,
        players: vec![("a".into(), 0, 0.0), ("b".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::Fivem,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req
}

async fn server(m: Misbehaviour) -> (SimServer, FivemConfig) {
    let config = FivemConfig {
        misbehaviour: m,
        ..FivemConfig::default()
    };
    (spawn(world(), config.clone()).await.unwrap(), config)
}

/// Counts from `clients` and `sv_maxclients`, colours stripped, extras with detail.
#[tokio::test]
async fn getinfo_fields() {
    let (s, _) = server(Misbehaviour::None).await;
    let mut req = request(&s);
    req.detail = true;
    req.rules = true;
    let st = poll(&req).await.unwrap();
    assert_eq!((st.online, st.max), (2, 48));
    assert_eq!(st.name, "Los Santos RP");
    assert_eq!(st.map.as_deref(), Some("fivem-map-skater"));
    assert_eq!(st.game.as_deref(), Some("Freeroam"));
    assert_eq!(st.players, None);
    assert_eq!(st.extras["iv"], json!(IV));
    assert_eq!(st.extras["gamename"], json!("CitizenFX"));
    let rules = st.rules.unwrap();
    assert!(rules.contains(&("protocol".into(), "4".into())));
    assert!(rules.iter().all(|(k, _)| k != "challenge"));
}

/// A stale reply first is skipped; the right one is taken.
#[tokio::test]
async fn stale_reply_skipped() {
    let (s, _) = server(Misbehaviour::StaleFirst).await;
    let st = poll(&request(&s)).await.unwrap();
    assert_eq!(st.online, 2);
}

/// Each misbehaviour ends in its reason.
#[tokio::test]
async fn misbehaviours() {
    for (m, reason) in [
        (Misbehaviour::Silence, Reason::Timeout),
        (Misbehaviour::WrongChallenge, Reason::Mismatch),
        (Misbehaviour::Broken, Reason::Malformed),
    ] {
        let (s, _) = server(m).await;
        let mut req = request(&s);
        req.timeout = Duration::from_millis(1500);
        let f = poll(&req).await.unwrap_err();
        assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
    }
}

/// Polls back to back (an interval shorter than the server's rate limit allows) on one
/// session keep the registry's gap: a server allowing one request per 500 ms without a
/// burst drops none of them, and every poll answers.
#[tokio::test]
async fn polls_keep_the_rate_limit() {
    let config = FivemConfig {
        rate_limit: Some(RateLimit {
            burst: 1.0,
            per_second: 2.0,
        }),
        ..FivemConfig::default()
    };
    let s = spawn(world(), config.clone()).await.unwrap();
    let req = request(&s);
    let mut session = Session::default();
    for _ in 0..4 {
        let st = poll_with(&req, &mut session).await.unwrap();
        assert_eq!(st.online, 2);
    }
    assert_eq!(
        (config.counters.answered(), config.counters.limited()),
        (4, 0)
    );
}
