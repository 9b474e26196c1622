//! Simulated TShock REST API: `GET /v2/server/status` as TShock 5 answers it, an optional
//! required token (refused the TShock way: `"status": "401"` inside an HTTP 200), and the
//! misbehaviours of hosted APIs and the proxies in front of them.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::{SimServer, World, WorldState};
use crate::protocol::terraria::STATUS_PATH;

/// How the server misbehaves.
pub use super::http::ApiMisbehaviour as Misbehaviour;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Terraria,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

#[derive(Debug, Clone, Default)]
pub struct TerrariaConfig {
    /// The REST token the server requires; `None`: the status endpoint is open (TShock's
    /// default for `/v2/server/status`).
    pub token: Option<String>,
    pub misbehaviour: Misbehaviour,
    /// Serve HTTPS with this configuration.
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

pub async fn spawn(world: World, config: TerrariaConfig) -> io::Result<SimServer> {
    let tls = config.tls.clone();
    http::spawn(tls, move |req| answer(req, &world.snapshot(), &config)).await
}

/// A small TShock server with players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Terraria TShock Demo".into(),
        map: "Forest of Dreams".into(),
        game: "Terraria".into(),
        version: "v1.4.4.9".into(),
        max: 8,
        players: vec![("Guide".into(), 0, 0.0), ("Nurse".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, TerrariaConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Terrarian{t}")
    })
    .await
}

/// The status body of `w`.
pub fn status_body(w: &WorldState, players: bool) -> serde_json::Value {
    let mut body = json!({
        "status": "200",
        "name": w.name,
        "serverversion": w.version,
        "tshockversion": "5.2.0.0",
        "port": 7777,
        "playercount": w.players.len(),
        "maxplayers": w.max,
        "world": w.map,
        "uptime": "0.01:02:03",
        "serverpassword": w.password,
    });
    if players {
        body["players"] = w
            .players
            .iter()
            .map(|(name, _, _)| {
                json!({"nickname": name, "username": "", "group": "default",
                       "active": true, "state": 10, "team": 0})
            })
            .collect();
    }
    body
}

fn answer(req: &SimRequest, w: &WorldState, config: &TerrariaConfig) -> SimReply {
    if req.path != STATUS_PATH {
        return SimReply::json(
            r#"{"status":"404","error":"Specified API endpoint doesn't exist."}"#,
        );
    }
    if let Some(token) = &config.token {
        if req.param("token").as_deref() != Some(token.as_str()) {
            return SimReply::json(
                r#"{"status":"401","error":"Not authorized. The specified API endpoint requires a token."}"#,
            );
        }
    }
    let players = req.param("players").as_deref() == Some("true");
    let body = status_body(w, players).to_string().into_bytes();
    match config.misbehaviour {
        Misbehaviour::None => SimReply::json(body),
        Misbehaviour::BadJson => SimReply::json(&b"{\"status\": \"200\", \"name\": "[..]),
        Misbehaviour::Huge => {
            let mut v = status_body(w, players);
            v["padding"] = "x".repeat(2 << 20).into();
            SimReply::json(v.to_string())
        }
        Misbehaviour::Drip => SimReply {
            drip: Some(Duration::from_millis(200)),
            ..SimReply::json(body)
        },
        Misbehaviour::WrongContentType => SimReply {
            content_type: "text/html",
            body: b"<html><body>Please log in</body></html>".to_vec(),
            ..SimReply::status(200)
        },
        Misbehaviour::RateLimited => SimReply {
            headers: vec!["Retry-After: 10".into()],
            ..SimReply::status(429)
        },
        Misbehaviour::Redirect => SimReply {
            headers: vec!["Location: http://192.0.2.1/".into()],
            ..SimReply::status(302)
        },
    }
}

/// The hostile fleet's TShock servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                TerrariaConfig {
                    misbehaviour: m,
                    ..TerrariaConfig::default()
                },
            )
        })
    };
    let mut fleet = http::api_hostile(with);
    fleet.extend([Hostile::down(
        "token-required",
        "auth_refused",
        start(|w| {
            spawn(
                w,
                TerrariaConfig {
                    token: Some("not-configured".into()),
                    ..TerrariaConfig::default()
                },
            )
        }),
    )]);
    fleet
}
