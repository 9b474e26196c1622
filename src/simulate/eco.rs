//! Simulated Eco server: its web API's `/frontpage` as Eco 0.11 writes it (the members of a
//! live server's page), and the broken pages of [`json_page`].

use std::io;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};
use crate::protocol::eco::FRONTPAGE_PATH;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Eco,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Players who joined the world once and are gone now (`TotalPlayers` counts them too).
pub const LEFT: usize = 5;

pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    http::spawn(None, move |req| {
        answer(req, &world.snapshot(), misbehaviour)
    })
    .await
}

/// A small colony with citizens coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Eco Demo Colony".into(),
        map: String::new(),
        game: "Eco".into(),
        version: "0.11.0.2 beta release-707".into(),
        max: 0,
        players: vec![("Mara".into(), 0, 0.0), ("Tomas".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Citizen{t}")
    })
    .await
}

/// `/frontpage` of `w` (the world's name rendered in rich text, as owners style it).
pub fn frontpage_body(w: &WorldState) -> serde_json::Value {
    let names: Vec<&str> = w.players.iter().map(|(n, _, _)| n.as_str()).collect();
    json!({"Info": {
        "External": false, "WebPort": 3001, "GamePort": 3000, "IsLAN": false,
        "Description": format!("<color=green>{}</color>", w.name),
        "DetailedDescription": "", "Category": "None",
        "OnlinePlayers": names.len(), "TotalPlayers": names.len() + LEFT,
        "OnlinePlayersNames": names, "AdminOnline": false, "DaysRunning": 13,
        "DaysUntilMeteor": 76, "Version": w.version, "Language": "English",
        "HasPassword": w.password, "HasMeteor": true, "IsPaused": false,
        "ActiveAndOnlinePlayers": names.len(), "PeakActivePlayers": names.len() + 1,
        "Access": "public"
    }, "Graphs": []})
}

fn answer(req: &SimRequest, w: &WorldState, m: Misbehaviour) -> SimReply {
    if req.path != FRONTPAGE_PATH {
        return SimReply::status(404);
    }
    json_page::reply(m, frontpage_body(w).to_string().into_bytes())
}

/// The hostile fleet's Eco servers (no capacity: `max` 0).
pub fn hostile() -> Vec<Hostile> {
    let mut list = vec![Hostile::up(
        "ok",
        2,
        0,
        None,
        start(|w| spawn(w, Misbehaviour::None)),
    )];
    list.extend(json_page::hostile(|m| start(move |w| spawn(w, m))));
    list
}
