//! Simulated rFactor server: answers `rF_S` with its fixed-layout reply, with knobs for
//! hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::rfactor::{self, Info, FIXED_LEN, SPECIAL_PASSWORD};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Rfactor,
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
    /// The reply cut inside its fixed part (after the track).
    Short,
    /// The reply's `size` field says 65,535 and the vehicles string never ends (no NUL, to
    /// the datagram's end, 60 KB): past the reply cap.
    Oversized,
    /// The vehicles string has no NUL (it runs to the datagram's end): still read.
    Unterminated,
    /// Answers anything, not only `rF_S`.
    AnswersAnything,
}

#[derive(Debug, Clone, Default)]
pub struct RfactorConfig {
    pub misbehaviour: Misbehaviour,
    /// "ARCA Sim Racing '08" instead of rFactor in the game fields.
    pub arca: bool,
}

/// The reply for the world: players are the world's humans, bots its AI.
pub fn reply(w: &WorldState, arca: bool) -> Info {
    let game = if arca { "ARCASimRacing" } else { "rFactor" };
    Info {
        gamename: game.chars().take(7).collect(),
        region: 0,
        version: w.version.parse().unwrap_or(1255),
        version_racecast: 2,
        game_port: 34397,
        query_port: rfactor::DEFAULT_PORT,
        game: game.into(),
        name: w.name.clone(),
        track: w.map.clone(),
        motd: "Welcome".into(),
        aids: 0,
        ping: 0,
        rate: 3,
        players: u8::try_from(w.players.len()).unwrap_or(u8::MAX),
        max: u8::try_from(w.max).unwrap_or(u8::MAX),
        bots: u8::try_from(w.bots).unwrap_or(u8::MAX),
        special: if w.password { SPECIAL_PASSWORD } else { 0 },
        damage: 1,
        time: 30,
        laps16: 10 * 16,
        vehicles: "F1|GT".into(),
    }
}

fn answer(req: &[u8], w: &WorldState, config: &RfactorConfig) -> Option<Vec<u8>> {
    let m = config.misbehaviour;
    if req != rfactor::REQUEST && m != Misbehaviour::AnswersAnything {
        return None;
    }
    let mut out = Vec::new();
    rfactor::encode(&reply(w, config.arca), &mut out);
    match m {
        Misbehaviour::Silence => return None,
        Misbehaviour::Short => out.truncate(105),
        Misbehaviour::Oversized => {
            out[15..17].copy_from_slice(&u16::MAX.to_le_bytes());
            out.truncate(FIXED_LEN);
            out.resize(60_000, b'V');
        }
        Misbehaviour::Unterminated => {
            out.pop();
        }
        Misbehaviour::None | Misbehaviour::AnswersAnything => {}
    }
    Some(out)
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: RfactorConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A race server whose drivers come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo Club Race".into(),
        map: "Mills Metropark".into(),
        game: "rFactor".into(),
        version: "1255".into(),
        max: 20,
        bots: 4,
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, RfactorConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("driver{t}")
    })
    .await
}

/// The hostile fleet's rFactor servers: AI is counted apart (bots), so online is 2.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                RfactorConfig {
                    misbehaviour: m,
                    ..RfactorConfig::default()
                },
            )
        })
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, Some(2), with(M::None)),
        Hostile::up("unterminated", 2, 24, Some(2), with(M::Unterminated)),
        Hostile::up("answers-anything", 2, 24, Some(2), with(M::AnswersAnything)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
    ]
}
