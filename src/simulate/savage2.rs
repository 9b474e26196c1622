//! Simulated Savage 2 server: answers the `01` request with the reply gamedig 5.3.3 reads,
//! with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::savage2::{self, Info};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Savage2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The reply cut inside the header the name follows.
    Short,
    /// The reply without its last terminator and byte: the version never ends.
    Unterminated,
    /// A 60 KB server name: past the reply cap.
    Oversized,
}

#[derive(Debug, Clone, Default)]
pub struct Savage2Config {
    pub misbehaviour: Misbehaviour,
}

/// The reply for the world: the name in Savage's colours (`^r`), which readers strip.
pub fn info(w: &WorldState) -> Info {
    Info {
        header: [0; savage2::HEADER_LEN],
        name: format!("^r{}", w.name),
        players: u8::try_from(w.players.len() as u32 + w.bots).unwrap_or(u8::MAX),
        max: u8::try_from(w.max).unwrap_or(u8::MAX),
        time: "00:12:30".into(),
        map: w.map.clone(),
        next_map: "crossroads".into(),
        location: "Europe".into(),
        min_players: 2,
        game_type: "RTSS".into(),
        version: "2.1.0.0".into(),
        min_level: 0,
    }
}

fn answer(req: &[u8], w: &WorldState, config: &Savage2Config) -> Option<Vec<u8>> {
    let m = config.misbehaviour;
    if m == Misbehaviour::Silence || req != savage2::REQUEST {
        return None;
    }
    let mut i = info(w);
    if m == Misbehaviour::Oversized {
        i.name = "x".repeat(60_000);
    }
    let mut out = Vec::new();
    savage2::encode(&i, &mut out);
    match m {
        Misbehaviour::Short => out.truncate(8),
        Misbehaviour::Unterminated => out.truncate(out.len() - 2),
        _ => {}
    }
    Some(out)
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Savage2Config) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo Savage 2".into(),
        map: "eden2".into(),
        game: "RTSS".into(),
        version: "2.1.0.0".into(),
        max: 32,
        bots: 0,
        players: vec![("alice".into(), 10, 300.0), ("bob".into(), 4, 60.0)],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, Savage2Config::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("legion{t}")
    })
    .await
}

/// The hostile fleet's Savage 2 servers: bots are counted among players (4 online).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, Savage2Config { misbehaviour: m }));
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 4, 24, None, with(M::None)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("unterminated", "malformed", with(M::Unterminated)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
    ]
}
