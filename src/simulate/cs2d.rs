//! Simulated CS2D server: the server info and player list in one datagram, as gamedig 5.3.3
//! reads them, with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::cs2d::{self, Record, Reply};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Cs2d,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Hostile or unusual behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The reply is cut in the middle of its last record.
    Truncated,
    /// The player count says 200 of a list that holds a few.
    LyingCount,
    /// The server name's length byte says 255 and the datagram ends first.
    EndlessName,
    /// The reply carries the info alone, no player list.
    InfoOnly,
    /// Another header (a different message), then nothing.
    OtherHeader,
}

/// The reply a server of this world sends: standard mode, the world's bots, one record per
/// player alternating teams.
pub fn reply_of(w: &WorldState) -> Reply {
    let list = w
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, score, _))| Record {
            id: (i + 1) as u8,
            name: name.clone(),
            team: 1 + (i % 2) as u8,
            score: *score,
            deaths: i as i32,
        })
        .collect();
    Reply {
        flags: u8::from(w.password),
        name: w.name.clone(),
        map: w.map.clone(),
        players: u8::try_from(w.players.len()).unwrap_or(u8::MAX),
        max: u8::try_from(w.max).unwrap_or(u8::MAX),
        game_mode: Some(0),
        bots: u8::try_from(w.bots).unwrap_or(u8::MAX),
        flags2: 0,
        list: Some(list),
    }
}

/// Serves CS2D's server info on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, misbehaviour)).await
}

/// A deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo CS2D Server".into(),
        map: "de_cs2dm".into(),
        game: "CS2D".into(),
        version: "1.0.1.4".into(),
        max: 16,
        bots: 1,
        players: vec![("Player".into(), 4, 0.0), ("Nox".into(), 9, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(5), 0, |t| {
        format!("Player{t}")
    })
    .await
}

/// Every misbehaviour of this simulator, with what the exporter must publish for it: the
/// hostile world's counts (2 players, 2 bots, 24 slots).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, m));
    vec![
        Hostile::up("ok", 2, 24, Some(2), with(Misbehaviour::None)),
        Hostile::up("info-only", 2, 24, Some(2), with(Misbehaviour::InfoOnly)),
        Hostile::down("silence", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down("lying-count", "malformed", with(Misbehaviour::LyingCount)),
        Hostile::down("endless-name", "malformed", with(Misbehaviour::EndlessName)),
        Hostile::down("other-header", "mismatch", with(Misbehaviour::OtherHeader)),
    ]
}

fn answer(req: &[u8], w: &WorldState, misbehaviour: Misbehaviour) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    if misbehaviour == M::Silence || !cs2d::is_request(req) {
        return Vec::new();
    }
    let mut reply = reply_of(w);
    if misbehaviour == M::InfoOnly {
        reply.list = None;
    }
    let mut out = Vec::new();
    cs2d::encode_reply(&reply, &mut out);
    match misbehaviour {
        M::Truncated => {
            out.pop();
        }
        M::LyingCount => {
            // The count follows `FB 05`, the last such pair in the reply.
            if let Some(at) = out.windows(2).rposition(|p| p == [0xFB, 0x05]) {
                out[at + 2] = 200;
            }
        }
        M::EndlessName => {
            out.truncate(cs2d::REPLY_HEADER.len() + 1);
            out.push(255);
            out.extend_from_slice(b"CS2D");
        }
        M::OtherHeader => out[3] = 0x05,
        _ => {}
    }
    vec![out]
}
