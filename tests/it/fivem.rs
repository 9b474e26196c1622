//! FiveM dialogue against the simulator on 127.0.0.1, through the exporter's own poll
//! (registry entry, driver, minimum gap), every misbehaviour ending in its reason.

use crate::support::patience;
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
        req.timeout = patience::timeout_for(reason);
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

mod players_json {
    use gameserver_exporter::simulate::fivem::PlayersJson;

    use super::*;

    async fn with_list(list: PlayersJson) -> SimServer {
        let config = FivemConfig {
            players_json: list,
            ..FivemConfig::default()
        };
        spawn(world(), config).await.unwrap()
    }

    /// With players asked, `/players.json` over TCP names them (pings too); the counts are
    /// still `getinfo`'s.
    #[tokio::test]
    async fn listed() {
        let s = with_list(PlayersJson::Listed).await;
        let mut req = request(&s);
        req.players = true;
        let st = poll(&req).await.unwrap();
        assert_eq!((st.online, st.max), (2, 48));
        let players = st.players.unwrap();
        let names: Vec<(&str, Option<u32>)> =
            players.iter().map(|p| (p.name.as_str(), p.ping)).collect();
        assert_eq!(names, [("a", Some(40)), ("b", Some(40))]);
    }

    /// A hidden list (`[]` with clients on), junk, a 404 or no TCP side at all never take
    /// the server down nor its counts: no player list, the reason in the extras.
    #[tokio::test]
    async fn best_effort() {
        for (list, key, value) in [
            (PlayersJson::Hidden, "players_hidden", json!(true)),
            (PlayersJson::BadJson, "players_error", json!("malformed")),
            (PlayersJson::Missing, "players_error", json!("malformed")),
        ] {
            let s = with_list(list).await;
            let mut req = request(&s);
            req.players = true;
            let st = poll(&req).await.unwrap();
            assert_eq!((st.online, st.max, st.players.is_none()), (2, 48, true));
            assert_eq!(st.extras[key], value, "{list:?}");
        }
        // The UDP side alone (nothing listens on TCP): refused, noted, still up.
        let udp = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let addr = udp.local_addr().unwrap();
        let w = world();
        let answer = tokio::spawn(async move {
            let mut buf = [0u8; 2048];
            for _ in 0..4 {
                let (n, from) = udp.recv_from(&mut buf).await.unwrap();
                let challenge = gameserver_exporter::protocol::fivem::decode_request(&buf[..n])
                    .unwrap()
                    .unwrap_or_default();
                let mut out = Vec::new();
                let vars = gameserver_exporter::simulate::fivem::vars(&w.snapshot(), &challenge);
                gameserver_exporter::protocol::fivem::encode_reply(&vars, &mut out);
                udp.send_to(&out, from).await.unwrap();
            }
        });
        let mut req = Request::new(Protocol::Fivem, Address::parse(&addr.to_string()).unwrap());
        req.timeout = Duration::from_secs(2);
        req.players = true;
        let st = poll(&req).await.unwrap();
        assert_eq!((st.online, st.players.is_none()), (2, true));
        assert_eq!(st.extras["players_error"], json!("refused"));
        answer.abort();
    }

    /// Without `players`, nothing is asked over TCP.
    #[tokio::test]
    async fn not_asked() {
        let s = with_list(PlayersJson::Listed).await;
        let st = poll(&request(&s)).await.unwrap();
        assert_eq!(st.players, None);
        assert!(st.extras.get("players_error").is_none());
    }
}
