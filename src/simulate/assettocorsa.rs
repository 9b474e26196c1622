//! Simulated Assetto Corsa server: its HTTP lobby pages (`/INFO`, `/JSON|<number>`) as
//! AssettoServer writes them, and the broken pages of [`json_page`].

use std::io;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};
use crate::protocol::assettocorsa::{CARS_PATH, INFO_PATH};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Assettocorsa,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The car every slot has.
pub const MODEL: &str = "ks_mazda_mx5_cup";

#[derive(Debug, Clone, Default)]
pub struct AcConfig {
    pub misbehaviour: Misbehaviour,
    /// Kunos's own server: no `poweredBy` (no version).
    pub kunos: bool,
}

pub async fn spawn(world: World, config: AcConfig) -> io::Result<SimServer> {
    http::spawn(None, move |req| answer(req, &world.snapshot(), &config)).await
}

/// A Mazda cup with drivers coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Assetto Corsa Demo | MX-5 Cup".into(),
        map: "ks_brands_hatch-indy".into(),
        game: "Assetto Corsa".into(),
        version: "AssettoServer 0.0.54".into(),
        max: 16,
        players: vec![("Alice".into(), 0, 0.0), ("Bruno".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, AcConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Driver{t}")
    })
    .await
}

/// `/INFO` of `w`.
pub fn info_body(w: &WorldState, kunos: bool) -> serde_json::Value {
    let mut body = json!({
        "cars": [MODEL], "clients": w.players.len(), "country": ["na", "na"], "cport": 8081,
        "durations": [20], "extra": false, "inverted": 0, "ip": "", "json": null, "l": false,
        "maxclients": w.max, "name": w.name, "pass": w.password, "pickup": true, "pit": false,
        "port": 9600, "session": 2, "sessiontypes": [2], "timed": false, "timeleft": 1200,
        "timeofday": -16, "timestamp": 0, "tport": 9600, "track": w.map,
    });
    if !kunos {
        body["poweredBy"] = w.version.clone().into();
    }
    body
}

/// The entry list of `w`: a slot per seat, the first taken by the players.
pub fn cars_body(w: &WorldState) -> serde_json::Value {
    let seats = (w.max as usize).max(w.players.len());
    let cars: Vec<serde_json::Value> = (0..seats)
        .map(|i| match w.players.get(i) {
            Some((name, _, _)) => json!({"Model": MODEL, "Skin": "00_red", "DriverName": name,
                "DriverTeam": "", "DriverNation": "ITA", "IsConnected": true,
                "IsRequestedGUID": false, "IsEntryList": true}),
            None => json!({"Model": MODEL, "Skin": "01_blue", "DriverName": null,
                "DriverTeam": null, "DriverNation": null, "IsConnected": false,
                "IsRequestedGUID": false, "IsEntryList": true}),
        })
        .collect();
    json!({"Cars": cars, "Features": []})
}

fn answer(req: &SimRequest, w: &WorldState, config: &AcConfig) -> SimReply {
    let body = if req.path == INFO_PATH {
        info_body(w, config.kunos)
    } else if req.path.starts_with(CARS_PATH) {
        cars_body(w)
    } else {
        return SimReply::status(404);
    };
    json_page::reply(config.misbehaviour, body.to_string().into_bytes())
}

/// The hostile fleet's Assetto Corsa servers.
pub fn hostile() -> Vec<Hostile> {
    let mut list = vec![Hostile::up(
        "ok",
        2,
        24,
        None,
        start(|w| spawn(w, AcConfig::default())),
    )];
    list.extend(json_page::hostile(|m| {
        start(move |w| {
            spawn(
                w,
                AcConfig {
                    misbehaviour: m,
                    ..AcConfig::default()
                },
            )
        })
    }));
    list
}
