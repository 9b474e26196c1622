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

use crate::support::tls_sim;

mod https_api {
    use std::sync::Arc;

    use gameserver_exporter::secret::Secret;
    use gameserver_exporter::simulate::satisfactory::{ApiConfig, ApiMisbehaviour};
    use gameserver_exporter::target::{Credentials, Tls};

    use super::*;

    const TOKEN: &str = "ewoJInBsIjogIkFQSVRva2VuIgp9.sim-token";

    /// A playing server with the API (`token` accepted) and 3 of 4 pioneers, and its pin.
    async fn api_server(m: ApiMisbehaviour) -> (SimServer, [u8; 32]) {
        let (tls, _, pin) = super::tls_sim::self_signed();
        let w = world();
        w.update(|s| {
            s.max = 4;
            s.players = vec![
                ("a".into(), 0, 0.0),
                ("b".into(), 0, 0.0),
                ("c".into(), 0, 0.0),
            ];
        });
        let config = SatisfactoryConfig {
            api: Some(ApiConfig {
                misbehaviour: m,
                ..ApiConfig::new(TOKEN, tls)
            }),
            ..SatisfactoryConfig::default()
        };
        (spawn(w, config).await.unwrap(), pin)
    }

    fn with_token(server: &SimServer, token: &str, tls: Tls) -> Request {
        let mut req = request(server);
        req.credentials = Some(Arc::new(Credentials {
            api_token: Some(Secret::new(token)),
            ..Credentials::default()
        }));
        req.tls = tls;
        req
    }

    /// With the token and the certificate pinned, the poll adds the API's counts, tick rate,
    /// tech tier and game phase to the Lightweight Query's name and state.
    #[tokio::test]
    async fn pinned_token_adds_state() {
        let (s, pin) = api_server(ApiMisbehaviour::None).await;
        let st = poll(&with_token(&s, TOKEN, Tls::Pinned(Box::new(pin))))
            .await
            .unwrap();
        assert_eq!(st.name, "Ficsit Factory");
        assert_eq!((st.online, st.max), (3, 4));
        assert_eq!(st.health.as_ref().unwrap().tick_rate_hertz, Some(29.5));
        let rules = st.rules.unwrap();
        assert!(rules.contains(&("server_state".into(), "playing".into())));
        assert!(rules.contains(&("tech_tier".into(), "3".into())));
        assert!(rules.contains(&("game_phase".into(), "GP_Project_Assembly_Phase_2".into())));
        // `tls_insecure = true` reads the same.
        let st = poll(&with_token(&s, TOKEN, Tls::Insecure)).await.unwrap();
        assert_eq!((st.online, st.max), (3, 4));
    }

    /// Without a token, the API is never asked: UDP alone, no counts.
    #[tokio::test]
    async fn no_token_udp_only() {
        let (s, _) = api_server(ApiMisbehaviour::None).await;
        let st = poll(&request(&s)).await.unwrap();
        assert_eq!((st.online, st.max, st.health.is_none()), (0, 0, true));
    }

    /// The self-signed certificate with verification on (no pin, no `tls_insecure`) fails
    /// as a network error naming the certificate; another pin fails too.
    #[tokio::test]
    async fn self_signed_needs_pin_or_insecure() {
        let (s, _) = api_server(ApiMisbehaviour::None).await;
        let f = poll(&with_token(&s, TOKEN, Tls::Verify)).await.unwrap_err();
        assert_eq!(f.reason, Reason::Network, "{}", f.detail);
        assert!(f.detail.contains("certificate"), "{}", f.detail);
        let f = poll(&with_token(&s, TOKEN, Tls::Pinned(Box::new([7; 32]))))
            .await
            .unwrap_err();
        assert_eq!(f.reason, Reason::Network, "{}", f.detail);
        assert!(f.detail.contains("tls_fingerprint"), "{}", f.detail);
    }

    /// A wrong token is `auth_refused` (and the error never shows it); each misbehaviour of
    /// the API ends in its reason.
    #[tokio::test]
    async fn refusals_and_misbehaviours() {
        let (s, pin) = api_server(ApiMisbehaviour::None).await;
        let f = poll(&with_token(
            &s,
            "wrong-token-xyz",
            Tls::Pinned(Box::new(pin)),
        ))
        .await
        .unwrap_err();
        assert_eq!(f.reason, Reason::AuthRefused);
        assert!(!f.detail.contains("wrong-token-xyz"), "{}", f.detail);
        for (m, reason) in [
            (ApiMisbehaviour::BadJson, Reason::Malformed),
            (ApiMisbehaviour::Huge, Reason::TooLarge),
            (ApiMisbehaviour::WrongContentType, Reason::Malformed),
            (ApiMisbehaviour::Unauthorized, Reason::AuthRefused),
            (ApiMisbehaviour::ErrorCode, Reason::AuthRefused),
        ] {
            let (s, _) = api_server(m).await;
            let f = poll(&with_token(&s, TOKEN, Tls::Insecure))
                .await
                .unwrap_err();
            assert_eq!(f.reason, reason, "{m:?}: {}", f.detail);
        }
    }
}
