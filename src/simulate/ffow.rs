//! Simulated Frontlines: Fuel of War server: answers the `FLSQ` info request, and the legacy
//! challenge (`FF FF FF FF 57`), player (`55`) and rules (`56`) requests in the layout qstat
//! 2.17 reads (big-endian numbers), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::ffow::{self, Info};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Ffow,
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
    /// The info reply cut in the middle of its strings.
    Short,
    /// A 60 KB server name: past the reply cap.
    Oversized,
    /// Answers the info request with a challenge only (never an info reply).
    ChallengeOnly,
    /// The info reply with a split header (`FF FF FF FE`), which Frontlines never sends
    /// for its small info reply: not read as one.
    SplitHeader,
}

#[derive(Debug, Clone, Default)]
pub struct FfowConfig {
    pub misbehaviour: Misbehaviour,
}

/// The challenge the server hands out (fixed: the simulator keeps no state per client).
pub const CHALLENGE: [u8; 4] = [0x12, 0x34, 0x56, 0x78];

/// The info reply for the world.
pub fn info(w: &WorldState) -> Info {
    Info {
        protocol: 7,
        name: w.name.clone(),
        map: w.map.clone(),
        game_mod: "ffow".into(),
        mode: "Frontlines".into(),
        description: "Frontlines: Fuel of War".into(),
        version: "1.0.3".into(),
        game_port: 5476,
        players: u8::try_from(w.players.len() as u32 + w.bots).unwrap_or(u8::MAX),
        max: u8::try_from(w.max).unwrap_or(u8::MAX),
        dedicated: b'd',
        os: b'w',
        password: w.password,
        anticheat: false,
        frame_time: 30,
        round: 1,
        rounds: 3,
        seconds_left: 600,
    }
}

/// The player reply: index, name, then score (i32), seconds connected (f32), ping (u16),
/// profile id (u32), team (u8), big-endian, as qstat reads it.
fn players(w: &WorldState) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFF, 0xFF, 0xFF, b'D'];
    let all: Vec<(String, i32, f32)> = w
        .players
        .iter()
        .cloned()
        .chain((0..w.bots).map(|b| (format!("bot{b}"), 0, 0.0)))
        .collect();
    out.push(u8::try_from(all.len()).unwrap_or(u8::MAX));
    for (i, (name, score, time)) in all.iter().enumerate().take(255) {
        out.push(i as u8);
        out.extend_from_slice(name.as_bytes());
        out.push(0);
        out.extend_from_slice(&score.to_be_bytes());
        out.extend_from_slice(&time.to_be_bytes());
        out.extend_from_slice(&(40u16 + i as u16).to_be_bytes());
        out.extend_from_slice(&(1000u32 + i as u32).to_be_bytes());
        out.push((i % 2) as u8 + 1);
    }
    out
}

fn rules(w: &WorldState) -> Vec<u8> {
    let mut out = vec![0xFF, 0xFF, 0xFF, 0xFF, b'E'];
    out.extend_from_slice(&(w.rules.len() as u16).to_be_bytes());
    for (k, v) in &w.rules {
        for s in [k, v] {
            out.extend_from_slice(s.as_bytes());
            out.push(0);
        }
    }
    out
}

fn challenge() -> Vec<u8> {
    let mut out = vec![0xFF, 0xFF, 0xFF, 0xFF, b'A'];
    out.extend_from_slice(&CHALLENGE);
    out
}

fn answer(req: &[u8], w: &WorldState, config: &FfowConfig) -> Option<Vec<u8>> {
    let m = config.misbehaviour;
    if m == Misbehaviour::Silence || req.len() < 5 || req[..4] != [0xFF; 4] {
        return None;
    }
    match req[4] {
        _ if req == ffow::REQUEST => {
            if m == Misbehaviour::ChallengeOnly {
                return Some(challenge());
            }
            let mut i = info(w);
            if m == Misbehaviour::Oversized {
                i.name = "x".repeat(60_000);
            }
            let mut out = Vec::new();
            ffow::encode(&i, &mut out);
            match m {
                Misbehaviour::Short => out.truncate(20),
                Misbehaviour::SplitHeader => out[3] = 0xFE,
                _ => {}
            }
            Some(out)
        }
        0x57 => Some(challenge()),
        0x55 | 0x56 if req.get(5..9) != Some(&CHALLENGE[..]) => Some(challenge()),
        0x55 => Some(players(w)),
        0x56 => Some(rules(w)),
        _ => None,
    }
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: FfowConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A server whose soldiers come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo Frontlines".into(),
        map: "FL-Village".into(),
        game: "Frontlines: Fuel of War".into(),
        version: "1.0.3".into(),
        max: 50,
        bots: 0,
        players: vec![("alice".into(), 10, 300.0), ("bob".into(), 4, 60.0)],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, FfowConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("soldier{t}")
    })
    .await
}

/// The hostile fleet's Frontlines servers: bots are counted among players (4 online).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, FfowConfig { misbehaviour: m }));
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 4, 24, None, with(M::None)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("challenge-only", "mismatch", with(M::ChallengeOnly)),
        Hostile::down("split-header", "mismatch", with(M::SplitHeader)),
    ]
}
