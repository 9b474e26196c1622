//! Simulated ElDewrito server: the info server's JSON on `/` as ElDewrito 0.6 writes it (the
//! player list and session keys left out behind a password), and the broken pages of
//! [`json_page`].

use std::io;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};
use crate::protocol::eldewrito::INFO_PATH;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Eldewrito,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    http::spawn(None, move |req| {
        answer(req, &world.snapshot(), misbehaviour)
    })
    .await
}

/// A slayer server with players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "ElDewrito Demo Slayer".into(),
        map: "Guardian".into(),
        game: "Halo Online".into(),
        version: "0.6.1".into(),
        max: 16,
        players: vec![("Spartan".into(), 9, 0.0), ("Elite".into(), 3, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Recruit{t}")
    })
    .await
}

/// The info page of `w`.
pub fn info_body(w: &WorldState) -> serde_json::Value {
    let mut body = json!({
        "name": w.name, "port": 11774, "fileServerPort": 11778, "hostPlayer": "",
        "sprintState": "2", "sprintUnlimitedEnabled": "0", "dualWielding": "1",
        "assassinationEnabled": "0", "voteSystemType": 0, "teams": false,
        "map": w.map, "mapFile": "guardian", "variant": "Slayer", "variantType": "slayer",
        "status": "InGame", "numPlayers": w.players.len(), "maxPlayers": w.max,
        "modCount": 0, "isDedicated": true, "gameVersion": "1.106708_cert_ms23___release",
        "eldewritoVersion": w.version,
    });
    if w.password {
        body["passworded"] = true.into();
    } else {
        body["xnkid"] = "0123456789abcdef0123456789abcdef".into();
        body["xnaddr"] = "fedcba9876543210fedcba9876543210".into();
        body["players"] = w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, score, secs))| {
                json!({"name": name, "serviceTag": "", "uid": format!("{:016x}", i + 1),
                       "team": 0, "primaryColor": "#000000", "isAlive": true,
                       "score": score, "kills": score, "assists": 0, "deaths": 0,
                       "betrayals": 0, "timeSpentAlive": *secs as i64, "suicides": 0,
                       "bestStreak": 0})
            })
            .collect();
    }
    body
}

fn answer(req: &SimRequest, w: &WorldState, m: Misbehaviour) -> SimReply {
    if req.path != INFO_PATH {
        return SimReply::status(404);
    }
    json_page::reply(m, info_body(w).to_string().into_bytes())
}

/// The hostile fleet's ElDewrito servers.
pub fn hostile() -> Vec<Hostile> {
    let mut list = vec![Hostile::up(
        "ok",
        2,
        24,
        None,
        start(|w| spawn(w, Misbehaviour::None)),
    )];
    list.extend(json_page::hostile(|m| start(move |w| spawn(w, m))));
    list
}
