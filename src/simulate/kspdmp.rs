//! Simulated DarkMultiPlayer server (Kerbal Space Program): the status page as DMPServer's
//! serializer writes it (members in name order, the players one `", "`-joined string; the
//! members of the live page qstat's source quotes), on any path but `/modcontrol`, and the
//! broken pages of [`json_page`].

use std::io;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Kspdmp,
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

/// A sandbox with kerbonauts coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "DMP Demo Space Center".into(),
        map: String::new(),
        game: "Kerbal Space Program".into(),
        version: "v0.1.5.6".into(),
        max: 20,
        players: vec![("Jebediah".into(), 0, 0.0), ("Valentina".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Kerman{t}")
    })
    .await
}

/// The status page of `w` (serde_json's map keeps the members in name order, as DMP's
/// serializer writes them).
pub fn status_body(w: &WorldState) -> serde_json::Value {
    let names: Vec<&str> = w.players.iter().map(|(n, _, _)| n.as_str()).collect();
    json!({
        "cheats": true, "game_mode": "SANDBOX", "lastPlayerActivity": 81403,
        "max_players": w.max, "modControlSha": "e46569487926a3273f58e06a080b0747b0ae702ec1877906511fe2c29816528b",
        "mod_control": 1, "player_count": names.len(), "players": names.join(", "),
        "port": 6702, "protocol_version": 25, "server_name": w.name, "universeSize": 96576,
        "version": w.version, "warp_mode": "SUBSPACE",
    })
}

fn answer(req: &SimRequest, w: &WorldState, m: Misbehaviour) -> SimReply {
    if req.path.starts_with("/modcontrol") {
        // The mod list, a text file: never the status.
        return SimReply {
            content_type: "text/plain",
            body: b"!required-files\n".to_vec(),
            ..SimReply::status(200)
        };
    }
    json_page::reply(m, status_body(w).to_string().into_bytes())
}

/// The hostile fleet's DarkMultiPlayer servers.
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
