//! Simulated Farming Simulator dedicated server's web interface: the stats feed
//! (`GET /feed/dedicated-server-stats.xml?code=...`) as FS22/FS25 write it, an optional
//! required code, and the misbehaviours of hosted panels and proxies.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::{SimServer, World, WorldState};
use crate::protocol::farmingsimulator::{encode_feed, Feed, FsPlayer, FEED_PATH};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Farmingsimulator,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// How the server misbehaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// The feed cut in the middle of an element (a savegame being written).
    Truncated,
    /// A 3 MB feed (a valid one, thirty thousand mods: only the cap stops it).
    Huge,
    /// The body one byte every 200 ms: a feed that never ends in time.
    Drip,
    /// `numUsed` far above any real server's (a lying count).
    LyingCount,
    /// A proxy's HTML login page with status 200.
    Html,
    /// HTTP 503 (the web interface up, the game not started).
    Unavailable,
}

#[derive(Debug, Clone, Default)]
pub struct FarmingSimulatorConfig {
    /// The stats code the server requires; `None`: any code (or none) is accepted.
    pub code: Option<String>,
    pub misbehaviour: Misbehaviour,
    /// Serve HTTPS with this configuration (a TLS proxy in front).
    pub tls: Option<Arc<rustls::ServerConfig>>,
}

pub async fn spawn(world: World, config: FarmingSimulatorConfig) -> io::Result<SimServer> {
    let tls = config.tls.clone();
    http::spawn(tls, move |req| answer(req, &world.snapshot(), &config)).await
}

/// An FS25 farm with farmers coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Farming Simulator Demo".into(),
        map: "Riverbend Springs".into(),
        game: "Farming Simulator 25".into(),
        version: "1.4.0.0".into(),
        max: 16,
        players: vec![("Farmer Joe".into(), 0, 600.0), ("Anna".into(), 0, 120.0)],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, FarmingSimulatorConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Farmer{t}")
    })
    .await
}

/// The feed of `w`.
pub fn feed(w: &WorldState) -> Feed {
    let used = u32::try_from(w.players.len()).unwrap_or(u32::MAX);
    Feed {
        game: Some(if w.game.starts_with("Farming Simulator") {
            w.game.clone()
        } else {
            "Farming Simulator 22".into()
        }),
        version: Some(w.version.clone()),
        name: w.name.clone(),
        map: Some(w.map.clone()),
        map_size: Some(2048),
        day_time: Some(43_215_000),
        capacity: w.max,
        used,
        players: w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, _, secs))| FsPlayer {
                name: name.clone(),
                admin: i == 0,
                uptime_minutes: Some((secs / 60.0) as u32),
            })
            .collect(),
        mods: 2,
    }
}

fn xml(body: impl Into<Vec<u8>>) -> SimReply {
    SimReply {
        content_type: "text/xml",
        body: body.into(),
        ..SimReply::status(200)
    }
}

fn answer(req: &SimRequest, w: &WorldState, config: &FarmingSimulatorConfig) -> SimReply {
    if req.path != FEED_PATH {
        return SimReply::status(404);
    }
    if let Some(code) = &config.code {
        // What a real server answers to a wrong code is not published; 403 here.
        if req.param("code").as_deref() != Some(code.as_str()) {
            return SimReply::status(403);
        }
    }
    let mut f = feed(w);
    let mut body = String::new();
    match config.misbehaviour {
        Misbehaviour::None => {}
        Misbehaviour::Truncated => {
            encode_feed(&f, &mut body);
            body.truncate(body.len() / 2);
            return xml(body);
        }
        Misbehaviour::Huge => {
            f.mods = 30_000;
        }
        Misbehaviour::Drip => {
            encode_feed(&f, &mut body);
            return SimReply {
                drip: Some(Duration::from_millis(200)),
                ..xml(body)
            };
        }
        Misbehaviour::LyingCount => f.used = 4_000_000_000,
        Misbehaviour::Html => {
            return SimReply {
                content_type: "text/html",
                body: b"<html><body>Please log in</body></html>".to_vec(),
                ..SimReply::status(200)
            };
        }
        Misbehaviour::Unavailable => return SimReply::status(503),
    }
    encode_feed(&f, &mut body);
    xml(body)
}

/// The hostile fleet's Farming Simulator servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                FarmingSimulatorConfig {
                    misbehaviour: m,
                    ..FarmingSimulatorConfig::default()
                },
            )
        })
    };
    vec![
        // Healthy beside the rest (the fleet's world: two players, 24 slots).
        Hostile::up(
            "ok",
            2,
            24,
            None,
            start(|w| spawn(w, FarmingSimulatorConfig::default())),
        ),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down("huge", "too_large", with(Misbehaviour::Huge)).heavy(),
        Hostile::down("drip", "timeout", with(Misbehaviour::Drip)),
        Hostile::down("lying-count", "malformed", with(Misbehaviour::LyingCount)),
        Hostile::down("html", "malformed", with(Misbehaviour::Html)),
        Hostile::down("unavailable", "refused", with(Misbehaviour::Unavailable)),
        Hostile::down(
            "code-required",
            "auth_refused",
            start(|w| {
                spawn(
                    w,
                    FarmingSimulatorConfig {
                        code: Some("not-configured".into()),
                        ..FarmingSimulatorConfig::default()
                    },
                )
            }),
        ),
    ]
}
