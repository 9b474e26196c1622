//! Simulated Hytale server with the Nitrado WebServer and Query plugins: `/Nitrado/Query` as
//! the plugin writes it for a user holding every read permission (the current shape, with
//! `Basic` and the players as a list), the shapes other servers give (only `Basic`; the first
//! releases' players keyed by UUID; 401 for an anonymous user without permissions), and the
//! broken pages of [`json_page`]. Plain HTTP (the plugin's `Tls.Insecure`: gamedig reads no
//! other), or TLS with a given certificate ([`spawn_tls`]).

use std::io;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::churn;
use super::hostile::{start, Hostile};
use super::http::{self, SimReply, SimRequest};
use super::json_page::{self, Misbehaviour};
use super::{SimServer, World, WorldState};
use crate::protocol::hytale::{ACCEPT, QUERY_PATH};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Hytale,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Which sections the page carries (which permissions the anonymous user holds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Sections {
    /// Every section, players as a list.
    #[default]
    All,
    /// Only `Basic` (`nitrado.query.web.read.basic`).
    BasicOnly,
    /// The first releases: no `Basic`, the players an object keyed by UUID.
    FirstRelease,
    /// No permission at all: 401, as the WebServer plugin answers the anonymous user.
    Unauthorized,
}

pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    spawn_with(world, Sections::All, misbehaviour).await
}

pub async fn spawn_with(
    world: World,
    sections: Sections,
    misbehaviour: Misbehaviour,
) -> io::Result<SimServer> {
    http::spawn(None, move |req| {
        answer(req, &world.snapshot(), sections, misbehaviour)
    })
    .await
}

/// The page over TLS with `tls` (the WebServer plugin's default: a self-signed certificate).
pub async fn spawn_tls(world: World, tls: Arc<rustls::ServerConfig>) -> io::Result<SimServer> {
    http::spawn(Some(tls), move |req| {
        answer(req, &world.snapshot(), Sections::All, Misbehaviour::None)
    })
    .await
}

/// An Orbis server with players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Hytale Demo Orbis".into(),
        map: "default".into(),
        game: "Hytale".into(),
        version: "2026.01.10-ab2cd69ff".into(),
        max: 100,
        players: vec![("Kweebec".into(), 0, 0.0), ("Trork".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("Adventurer{t}")
    })
    .await
}

/// A stable UUID for the `i`th player.
fn uuid(i: usize) -> String {
    format!("00000000-0000-4000-8000-{:012x}", i + 1)
}

/// The page of `w` with `sections`.
pub fn page_body(w: &WorldState, sections: Sections) -> serde_json::Value {
    let world = if w.map.is_empty() { "default" } else { &w.map };
    let basic = json!({"Name": w.name, "Version": w.version, "MaxPlayers": w.max,
                       "CurrentPlayers": w.players.len(), "Address": "127.0.0.1:5520"});
    if sections == Sections::BasicOnly {
        return json!({ "Basic": basic });
    }
    let players = w
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, _, _))| json!({"Name": name, "UUID": uuid(i), "World": world}));
    let mut page = json!({
        "Server": {"Name": w.name, "Version": w.version,
                   "Revision": "ab2cd69ff816cb831f8792a0782938dce22eeadc", "Patchline": "release",
                   "ProtocolVersion": 1,
                   "ProtocolHash": "34f442449d72fb78c4891edf9b218eb55ab2ad69ffd1cd152d66d71c814fcc7",
                   "MaxPlayers": w.max},
        "Universe": {"CurrentPlayers": w.players.len(), "DefaultWorld": world},
        "Plugins": {"Nitrado:WebServer": {"Version": "1.0.0", "Loaded": true, "Enabled": true,
                                          "State": "ENABLED"},
                    "Nitrado:Query": {"Version": "1.0.0", "Loaded": true, "Enabled": true,
                                      "State": "ENABLED"}},
    });
    if sections == Sections::FirstRelease {
        let by_uuid: serde_json::Map<String, serde_json::Value> =
            players.enumerate().map(|(i, p)| (uuid(i), p)).collect();
        page["Players"] = by_uuid.into();
    } else {
        page["Basic"] = basic;
        page["Players"] = players.collect();
    }
    page
}

fn answer(req: &SimRequest, w: &WorldState, sections: Sections, m: Misbehaviour) -> SimReply {
    if req.path != QUERY_PATH {
        return SimReply::status(404);
    }
    if sections == Sections::Unauthorized {
        return SimReply::status(401);
    }
    let reply = json_page::reply(m, page_body(w, sections).to_string().into_bytes());
    if reply.content_type.starts_with("application/json") {
        // The type the plugin negotiated (the misbehaviours keep theirs).
        return SimReply {
            content_type: ACCEPT,
            ..reply
        };
    }
    reply
}

/// The hostile fleet's Hytale servers.
pub fn hostile() -> Vec<Hostile> {
    let mut list = vec![
        Hostile::up("ok", 2, 24, None, start(|w| spawn(w, Misbehaviour::None))),
        Hostile::up(
            "basic-only",
            2,
            24,
            None,
            start(|w| spawn_with(w, Sections::BasicOnly, Misbehaviour::None)),
        ),
        Hostile::up(
            "first-release",
            2,
            24,
            None,
            start(|w| spawn_with(w, Sections::FirstRelease, Misbehaviour::None)),
        ),
        Hostile::down(
            "unauthorized",
            "auth_refused",
            start(|w| spawn_with(w, Sections::Unauthorized, Misbehaviour::None)),
        ),
    ];
    list.extend(json_page::hostile(|m| start(move |w| spawn(w, m))));
    list
}
