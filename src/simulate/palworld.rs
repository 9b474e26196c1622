//! Simulated Palworld REST API: `/v1/api/info`, `metrics` and `players` behind HTTP basic
//! auth (`admin` and the AdminPassword; a wrong one is HTTP 401), with the misbehaviours of
//! hosted APIs and the proxies in front of them.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::{SimServer, World, WorldState};
use crate::protocol::palworld::{INFO_PATH, METRICS_PATH, PLAYERS_PATH, USER};

/// How the server misbehaves.
pub use super::http::ApiMisbehaviour as Misbehaviour;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Palworld,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

#[derive(Debug, Clone)]
pub struct PalworldConfig {
    /// The AdminPassword; `None` accepts any request (a server with the REST API open).
    pub password: Option<String>,
    /// Server FPS reported in `metrics`.
    pub fps: f64,
    /// Frame time in milliseconds reported in `metrics`.
    pub frame_time_ms: f64,
    pub misbehaviour: Misbehaviour,
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

impl Default for PalworldConfig {
    fn default() -> Self {
        PalworldConfig {
            password: None,
            fps: 58.0,
            frame_time_ms: 17.25,
            misbehaviour: Misbehaviour::None,
            tls: None,
        }
    }
}

pub async fn spawn(world: World, config: PalworldConfig) -> io::Result<SimServer> {
    let tls = config.tls.clone();
    http::spawn(tls, move |req| answer(req, &world.snapshot(), &config)).await
}

/// A small Palworld server with players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Palworld Demo".into(),
        map: String::new(),
        game: "Palworld".into(),
        version: "v0.3.11.0".into(),
        max: 32,
        players: vec![("Zoe".into(), 12, 0.0), ("Marcus".into(), 7, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, PalworldConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(11), 1, |t| {
        format!("Tamer{t}")
    })
    .await
}

/// The `Authorization` value for `password`.
pub fn basic_auth(password: &str) -> String {
    use base64::Engine;
    let raw = format!("{USER}:{password}");
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    )
}

fn answer(req: &SimRequest, w: &WorldState, config: &PalworldConfig) -> SimReply {
    if let Some(password) = &config.password {
        if req.authorization.as_deref() != Some(basic_auth(password).as_str()) {
            return SimReply {
                headers: vec!["WWW-Authenticate: Basic realm=\"palworld\"".into()],
                ..SimReply::status(401)
            };
        }
    }
    let m = config.misbehaviour;
    if m == Misbehaviour::RateLimited {
        return SimReply::status(429);
    }
    if m == Misbehaviour::Redirect {
        return SimReply {
            headers: vec!["Location: http://192.0.2.1/".into()],
            ..SimReply::status(302)
        };
    }
    if m == Misbehaviour::WrongContentType {
        return SimReply {
            content_type: "text/html",
            body: b"<html>maintenance</html>".to_vec(),
            ..SimReply::status(200)
        };
    }
    match req.path.as_str() {
        INFO_PATH => {
            let mut v = json!({"version": w.version, "servername": w.name,
                               "description": "A simulated Palworld server", "worldguid": "0"});
            if m == Misbehaviour::Huge {
                v["description"] = "x".repeat(2 << 20).into();
            }
            SimReply::json(v.to_string())
        }
        METRICS_PATH => {
            let v = json!({"serverfps": config.fps, "currentplayernum": w.players.len(),
                           "serverframetime": config.frame_time_ms, "maxplayernum": w.max,
                           "uptime": 3600, "days": 12, "basecampnum": 2});
            match m {
                Misbehaviour::BadJson => {
                    SimReply::json(&b"{\"serverfps\": 60, \"currentplayernum\""[..])
                }
                Misbehaviour::Drip => SimReply {
                    drip: Some(Duration::from_millis(200)),
                    ..SimReply::json(v.to_string())
                },
                _ => SimReply::json(v.to_string()),
            }
        }
        PLAYERS_PATH => {
            let players: Vec<_> = w
                .players
                .iter()
                .enumerate()
                .map(|(i, (name, level, _))| {
                    json!({"name": name, "accountName": name.to_lowercase(),
                           "playerId": format!("{i:08X}"), "userId": format!("steam_7656119{i:010}"),
                           "ip": "127.0.0.1", "ping": 30.0 + i as f64, "location_x": 0.0,
                           "location_y": 0.0, "level": level, "building_count": 0})
                })
                .collect();
            SimReply::json(json!({"players": players}).to_string())
        }
        // Real servers have it; the exporter never asks (gamedig does).
        "/v1/api/settings" => SimReply::json(
            json!({"Difficulty": "None", "ServerPlayerMaxNum": w.max, "PublicPort": 8211})
                .to_string(),
        ),
        _ => SimReply::status(404),
    }
}

/// The hostile fleet's Palworld servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                PalworldConfig {
                    misbehaviour: m,
                    ..PalworldConfig::default()
                },
            )
        })
    };
    let mut fleet = http::api_hostile(with);
    fleet.extend([Hostile::down(
        "password-required",
        "auth_refused",
        start(|w| {
            spawn(
                w,
                PalworldConfig {
                    password: Some("not-configured".into()),
                    ..PalworldConfig::default()
                },
            )
        }),
    )]);
    fleet
}
