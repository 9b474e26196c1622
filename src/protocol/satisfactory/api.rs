//! Satisfactory's HTTPS API (TCP on the game port, always TLS; self-signed unless the owner
//! installed a certificate): with an API token, `QueryServerState` adds what the Lightweight
//! Query lacks: players, the player limit, tech tier, game phase and the average tick rate.
//!
//! # Format
//! ```text
//! POST /api/v1   Authorization: Bearer <token>   Content-Type: application/json
//!                {"function":"QueryServerState"}
//! 200            {"data":{"serverGameState":{"activeSessionName":"...",
//!                 "numConnectedPlayers":2,"playerLimit":4,"techTier":3,
//!                 "activeSchematic":"...","gamePhase":"/Script/FactoryGame.FGGamePhase'/Game/
//!                 FactoryGame/GamePhases/GP_Project_Assembly_Phase_2.GP_Project_Assembly_Phase_2'",
//!                 "isGameRunning":true,"totalGameDuration":5400,"isGamePaused":false,
//!                 "averageTickRate":29.9,"autoLoadSessionName":"..."}}}
//! error          {"errorCode":"invalid_token","errorMessage":"...","errorData":{}}
//!                (HTTP 401/403 for a refused token; other codes for other errors)
//! ```

use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::http::fetch::Api;
use crate::protocol::http::then::FollowUp;
use crate::protocol::http::{encode_request, Response};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// The one endpoint; the function travels in the body.
pub const PATH: &str = "/api/v1";
/// The request body.
pub const QUERY_SERVER_STATE: &[u8] = br#"{"function":"QueryServerState"}"#;

/// `serverGameState`, the fields the exporter publishes.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GameState {
    #[serde(default)]
    pub active_session_name: Option<String>,
    pub num_connected_players: u32,
    pub player_limit: u32,
    #[serde(default)]
    pub tech_tier: Option<u32>,
    #[serde(default)]
    pub game_phase: Option<String>,
    #[serde(default)]
    pub is_game_running: Option<bool>,
    #[serde(default)]
    pub is_game_paused: Option<bool>,
    /// Seconds.
    #[serde(default)]
    pub total_game_duration: Option<u64>,
    #[serde(default)]
    pub average_tick_rate: Option<f64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Data {
    server_game_state: GameState,
}

/// A success (`data`) or an error (`errorCode`) envelope.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Envelope {
    #[serde(default)]
    data: Option<Data>,
    #[serde(default)]
    error_code: Option<String>,
}

/// Error codes that mean the token was refused (missing, wrong, or lacking the privilege).
const AUTH_CODES: [&str; 4] = [
    "invalid_token",
    "insufficient_scope",
    "missing_token",
    "unauthorized",
];

/// Decodes a `QueryServerState` answer body. An `errorCode` for the token is
/// [`Error::AuthRefused`]; any other error code, junk, or a tick rate that is no finite
/// non-negative number is malformed.
pub fn decode_query_server_state(body: &[u8]) -> Result<GameState, Error> {
    let env: Envelope = serde_json::from_slice(body)
        .map_err(|_| Error::from(DecodeError::Invalid("Satisfactory API JSON")))?;
    if let Some(code) = env.error_code {
        if AUTH_CODES.contains(&code.as_str()) {
            return Err(Error::AuthRefused { what: "API token" });
        }
        return Err(DecodeError::Invalid("Satisfactory API error").into());
    }
    let state = env
        .data
        .ok_or(DecodeError::Invalid("Satisfactory API data"))?
        .server_game_state;
    if state
        .average_tick_rate
        .is_some_and(|t| !t.is_finite() || t < 0.0)
    {
        return Err(DecodeError::Invalid("Satisfactory average tick rate").into());
    }
    Ok(state)
}

/// A game phase as published: the asset's short name (`GP_Project_Assembly_Phase_2`) out of
/// the object path the API sends, or the text itself if it is no path.
pub fn phase_name(path: &str) -> &str {
    let tail = path.rsplit(['.', '/']).next().unwrap_or(path);
    tail.trim_end_matches('\'')
}

/// Adds the API's game state to the Lightweight Query's status: counts, tick rate, and the
/// tech tier, game phase and session as rules beside `server_state`.
pub fn merge(status: &mut Status, state: &GameState) {
    status.online = state.num_connected_players;
    status.max = state.player_limit;
    let rules = status.rules.get_or_insert_with(Vec::new);
    if let Some(tier) = state.tech_tier {
        rules.push(("tech_tier".into(), tier.to_string()));
    }
    if let Some(phase) = &state.game_phase {
        rules.push(("game_phase".into(), phase_name(phase).into()));
    }
    if let Some(session) = &state.active_session_name {
        rules.push(("session".into(), session.clone()));
    }
    if let Some(paused) = state.is_game_paused {
        rules.push(("paused".into(), u8::from(paused).to_string()));
    }
    if let Some(rate) = state.average_tick_rate {
        let health = status.health.get_or_insert_with(Box::default);
        health.tick_rate_hertz = Some(rate);
    }
    if let Some(secs) = state.total_game_duration {
        status
            .extras
            .insert("total_game_duration_seconds".into(), secs.into());
    }
}

/// The HTTPS API step of a Satisfactory poll.
#[derive(Debug)]
pub struct StateApi {
    /// The whole `Authorization` value (`Bearer ...`); `None`: no token, nothing asked.
    authorization: Option<Secret>,
    first: Option<Status>,
    state: Option<GameState>,
}

impl StateApi {
    pub fn new(authorization: Option<Secret>) -> StateApi {
        StateApi {
            authorization,
            first: None,
            state: None,
        }
    }
}

impl Api for StateApi {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        let auth = self.authorization.as_ref().filter(|_| i == 0)?;
        let headers = [
            ("Accept", "application/json"),
            ("Content-Type", "application/json"),
            ("Authorization", auth.expose()),
        ];
        encode_request("POST", PATH, &headers, QUERY_SERVER_STATE, out);
        Some("POST /api/v1 QueryServerState")
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        if response.status != 200 {
            // 401/403 is a refused token whatever the body says; other statuses carry the
            // error envelope, whose code may still say the token was refused.
            let json = Response {
                status: 200,
                ..response.clone()
            };
            if let Some(Err(e @ Error::AuthRefused { .. })) =
                json.json().ok().map(decode_query_server_state)
            {
                return Err(e);
            }
            return Err(Error::HttpStatus {
                status: response.status,
            });
        }
        self.state = Some(decode_query_server_state(response.json()?)?);
        Ok(())
    }

    fn status(&mut self, _latency: Duration) -> Result<Status, Error> {
        // The latency stays the Lightweight Query's: the published round trip is the UDP one.
        let mut status = self.first.take().unwrap_or_default();
        if let Some(state) = &self.state {
            merge(&mut status, state);
        }
        Ok(status)
    }
}

impl FollowUp for StateApi {
    fn wanted(&self) -> bool {
        self.authorization.is_some()
    }

    fn first(&mut self, status: Status) {
        self.first = Some(status);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::http::{decode_request, encode_response, redact};
    use crate::protocol::satisfactory::exchange;
    use crate::protocol::satisfactory::{encode_reply, Reply, ServerState};
    use crate::status::Reason;
    use proptest::prelude::*;
    use std::time::Instant;

    const STATE: &[u8] = br#"{"data":{"serverGameState":{"activeSessionName":"Ficsit One",
        "numConnectedPlayers":2,"playerLimit":4,"techTier":3,"activeSchematic":"/Game/x.y",
        "gamePhase":"/Script/FactoryGame.FGGamePhase'/Game/FactoryGame/GamePhases/GP_Project_Assembly_Phase_2.GP_Project_Assembly_Phase_2'",
        "isGameRunning":true,"totalGameDuration":5400,"isGamePaused":false,
        "averageTickRate":29.75,"autoLoadSessionName":"Ficsit One"}}}"#;

    /// The documented answer, field by field.
    #[test]
    fn decodes_server_game_state() {
        let s = decode_query_server_state(STATE).unwrap();
        assert_eq!((s.num_connected_players, s.player_limit), (2, 4));
        assert_eq!(s.tech_tier, Some(3));
        assert_eq!(s.average_tick_rate, Some(29.75));
        assert_eq!(s.total_game_duration, Some(5400));
        assert_eq!(s.active_session_name.as_deref(), Some("Ficsit One"));
        assert_eq!(
            phase_name(s.game_phase.as_deref().unwrap()),
            "GP_Project_Assembly_Phase_2"
        );
        assert_eq!(phase_name("Phase3"), "Phase3");
    }

    /// A token error code is a refused login; other codes, junk, a negative or missing count
    /// and an unreadable tick rate are malformed.
    #[test]
    fn errors_and_junk() {
        let e = decode_query_server_state(br#"{"errorCode":"invalid_token","errorMessage":"x"}"#)
            .unwrap_err();
        assert_eq!(e.reason(), Reason::AuthRefused);
        for bad in [
            &br#"{"errorCode":"server_error"}"#[..],
            b"{",
            b"[]",
            br#"{"data":{}}"#,
            br#"{"data":{"serverGameState":{"numConnectedPlayers":-1,"playerLimit":4}}}"#,
            br#"{"data":{"serverGameState":{"playerLimit":4}}}"#,
            br#"{"data":{"serverGameState":{"numConnectedPlayers":1,"playerLimit":4,"averageTickRate":-3}}}"#,
        ] {
            let e = decode_query_server_state(bad).unwrap_err();
            assert_eq!(e.reason(), Reason::Malformed, "{bad:?}");
        }
    }

    fn udp_reply(cookie: u64) -> Vec<u8> {
        let mut out = Vec::new();
        encode_reply(
            &Reply {
                cookie,
                state: ServerState::Playing,
                net_cl: 385_883,
                flags: 0,
                substates: Vec::new(),
                name: "Sim".into(),
            },
            &mut out,
        );
        out
    }

    fn http(status: u16, content_type: &[u8], body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        encode_response(status, [("content-type", content_type)], body, &mut out);
        out
    }

    /// Runs a whole poll: the UDP reply (cookie fixed by a first poll of the exchange), then
    /// `api` as the HTTPS answer. Returns the result and the requests sent.
    fn run(token: bool, api: Option<Vec<u8>>) -> (Result<Status, Error>, Vec<Vec<u8>>) {
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let auth = token.then(|| Secret::new("Bearer s3cret-token"));
        let mut x = exchange::poll(&Default::default(), auth, deadline);
        // Drive by hand: poll, feed, poll, ... (the replay script cannot know the cookie).
        use crate::protocol::exchange::{Exchange, Input, Step};
        let mut out = Vec::new();
        let mut sent = Vec::new();
        let mut api = api;
        loop {
            match x.poll(start, &mut out) {
                Step::Send(_) | Step::SendSecret(_) | Step::SendAhead(_) => {
                    sent.push(out.clone());
                    let answer = if sent.len() == 1 {
                        let cookie = u64::from_le_bytes(out[4..12].try_into().unwrap());
                        udp_reply(cookie)
                    } else {
                        match api.take() {
                            Some(a) => a,
                            None => {
                                x.handle(start, Input::Closed);
                                continue;
                            }
                        }
                    };
                    let rtt = Duration::from_millis(7);
                    x.handle(
                        start,
                        Input::Received {
                            bytes: &answer,
                            rtt,
                        },
                    );
                }
                Step::Connect(_) | Step::Wait(_) => {}
                Step::Done(s) => return (Ok(s), sent),
                Step::Failed(e) => return (Err(e), sent),
            }
        }
    }

    /// Without a token: the Lightweight Query alone, no connection.
    #[test]
    fn no_token_no_api() {
        let (r, sent) = run(false, None);
        let s = r.unwrap();
        assert_eq!(sent.len(), 1);
        assert_eq!((s.online, s.max, s.health.is_none()), (0, 0, true));
    }

    /// With a token: the POST carries it (and its transcript form does not), and the answer
    /// adds counts, tick rate and the tech tier and phase rules.
    #[test]
    fn token_adds_api_state() {
        let (r, sent) = run(
            true,
            Some(http(200, b"application/json;charset=utf-8", STATE)),
        );
        let s = r.unwrap();
        assert_eq!(sent.len(), 2);
        let head = decode_request(&sent[1]).unwrap();
        assert_eq!((head.method, head.target), ("POST", "/api/v1"));
        assert!(head
            .headers
            .contains(&("Authorization", "Bearer s3cret-token")));
        assert_eq!(head.body, QUERY_SERVER_STATE);
        let shown = String::from_utf8(redact(&sent[1])).unwrap();
        assert!(!shown.contains("s3cret"), "{shown}");
        assert_eq!((s.online, s.max), (2, 4));
        assert_eq!(s.latency, Duration::from_millis(7));
        assert_eq!(s.health.unwrap().tick_rate_hertz, Some(29.75));
        let rules = s.rules.unwrap();
        assert!(rules.contains(&("server_state".into(), "playing".into())));
        assert!(rules.contains(&("tech_tier".into(), "3".into())));
        assert!(rules.contains(&("game_phase".into(), "GP_Project_Assembly_Phase_2".into())));
    }

    /// A refused token (status or error code) is `auth_refused`; other failures are typed.
    #[test]
    fn api_failures() {
        let refused = br#"{"errorCode":"invalid_token","errorMessage":"no"}"#;
        let cases: [(Vec<u8>, Reason); 5] = [
            (http(401, b"application/json", refused), Reason::AuthRefused),
            (http(400, b"application/json", refused), Reason::AuthRefused),
            (
                http(200, b"application/json", b"{\"data\""),
                Reason::Malformed,
            ),
            (http(200, b"text/html", b"<html>"), Reason::Malformed),
            (http(500, b"text/plain", b""), Reason::Malformed),
        ];
        for (answer, want) in cases {
            let (r, _) = run(true, Some(answer));
            assert_eq!(r.unwrap_err().reason(), want);
        }
        let (r, _) = run(true, None);
        assert_eq!(r.unwrap_err().reason(), Reason::Incomplete);
    }

    /// The whole poll through a replay script never panics nor hangs.
    #[test]
    fn replay_noise() {
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let auth = Some(Secret::new("Bearer t"));
        let mut x = exchange::poll(&Default::default(), auth, deadline);
        let r = replay(&mut x, start, deadline, &[1, 3, 0xD5, 0xF6, 1, 0, 2]);
        assert!(!r.stuck());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes never panic; an accepted tick rate is finite and non-negative.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(s) = decode_query_server_state(&bytes) {
                prop_assert!(s.average_tick_rate.is_none_or(|t| t.is_finite() && t >= 0.0));
            }
        }

        /// Any counts and tick rate written as JSON read back, and merge publishes them.
        #[test]
        fn round_trip(online in any::<u32>(), limit in any::<u32>(), tier in any::<u32>(),
                      quarters in 0u32..4000, phase in "[A-Za-z0-9_]{1,40}") {
            // Quarters are exact in binary and in decimal: the JSON text round-trips.
            let rate = f64::from(quarters) / 4.0;
            let body = serde_json::json!({"data": {"serverGameState": {
                "numConnectedPlayers": online, "playerLimit": limit, "techTier": tier,
                "gamePhase": format!("/Script/X.Y'/Game/P/{phase}.{phase}'"),
                "averageTickRate": rate}}}).to_string();
            let s = decode_query_server_state(body.as_bytes()).unwrap();
            let mut status = Status::default();
            merge(&mut status, &s);
            prop_assert_eq!((status.online, status.max), (online, limit));
            prop_assert_eq!(status.health.unwrap().tick_rate_hertz, Some(rate));
            let rules = status.rules.unwrap();
            prop_assert!(rules.contains(&("game_phase".to_string(), phase)));
        }
    }
}
