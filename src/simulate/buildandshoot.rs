//! Simulated Build and Shoot server: the status server's `/json` as piqueserver writes it (or
//! the older by-team layout gamedig also reads), and the broken pages of [`json_page`].

use std::io;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};
use crate::protocol::buildandshoot::JSON_PATH;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Buildandshoot,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

#[derive(Debug, Clone, Copy, Default)]
pub struct BasConfig {
    pub misbehaviour: Misbehaviour,
    /// The older layout: `players` by team, the capacity inside it.
    pub teams: bool,
}

pub async fn spawn(world: World, config: BasConfig) -> io::Result<SimServer> {
    http::spawn(None, move |req| answer(req, &world.snapshot(), config)).await
}

/// A capture-the-flag server with players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Build and Shoot Demo CTF".into(),
        map: "hallway".into(),
        game: "Build and Shoot".into(),
        version: "0.75".into(),
        max: 32,
        players: vec![("Deuce".into(), 3, 0.0), ("Deuce1".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, BasConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Deuce{}", t + 1)
    })
    .await
}

/// `/json` of `w`: players alternate Blue and Green, kills are their scores.
pub fn page_body(w: &WorldState, teams: bool) -> serde_json::Value {
    let team = |i: usize| if i.is_multiple_of(2) { "Blue" } else { "Green" };
    let mut body = json!({
        "serverIdentifier": "aos://16777343:32887", "serverName": w.name,
        "serverVersion": w.version, "serverUptime": 61.02, "gameMode": "ctf",
        "map": {"name": w.map, "version": "1.0", "author": "Unknown"},
        "scripts": [], "maxPlayers": w.max,
        "scores": {"currentBlueScore": 0, "currentGreenScore": 1, "maxScore": 10},
    });
    let entries: Vec<serde_json::Value> = w
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, kills, _))| {
            json!({"name": name, "latency": 40, "kills": kills, "team": team(i)})
        })
        .collect();
    if teams {
        let of = |t: &str| -> Vec<serde_json::Value> {
            entries
                .iter()
                .filter(|e| e["team"] == t)
                .map(|e| e["name"].clone())
                .collect()
        };
        body["players"] = json!({"blue": of("Blue"), "green": of("Green"), "maxPlayers": w.max});
        body.as_object_mut().map(|o| o.remove("maxPlayers"));
    } else {
        body["players"] = entries.into();
    }
    body
}

fn answer(req: &SimRequest, w: &WorldState, config: BasConfig) -> SimReply {
    if req.path != JSON_PATH {
        return SimReply::status(404);
    }
    json_page::reply(
        config.misbehaviour,
        page_body(w, config.teams).to_string().into_bytes(),
    )
}

/// The hostile fleet's Build and Shoot servers.
pub fn hostile() -> Vec<Hostile> {
    let mut list = vec![Hostile::up(
        "ok",
        2,
        24,
        None,
        start(|w| spawn(w, BasConfig::default())),
    )];
    list.extend(json_page::hostile(|m| {
        start(move |w| {
            let config = BasConfig {
                misbehaviour: m,
                teams: false,
            };
            spawn(w, config)
        })
    }));
    list
}
