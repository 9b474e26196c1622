//! Simulated All-Seeing Eye server (Multi Theft Auto style): answers `s` with the full reply,
//! with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::ase::{self, Player, Reply};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Ase,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["weather"],
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
    /// The reply is cut in the middle of a string.
    Truncated,
    /// Every reply is sent twice.
    Duplicated,
    /// Claims 1000 players on a server of 1.
    LyingCounts,
    /// A string's length byte points past the end of the datagram.
    LengthOverrun,
    /// Thousands of players, past the decoder's cap.
    Oversized,
    /// Random-looking bytes after the magic.
    Garbage,
    /// A reply without the `EYE1` magic.
    WrongMagic,
}

#[derive(Debug, Clone, Default)]
pub struct AseConfig {
    /// The game port the reply names (Multi Theft Auto: the ASE port - 123).
    pub game_port: u16,
    pub misbehaviour: Misbehaviour,
}

/// The reply a Multi Theft Auto server of this world sends.
pub fn reply_of(w: &WorldState, game_port: u16) -> Reply {
    let text = |s: &str| Some(s.to_string());
    Reply {
        game: "mta".into(),
        port: game_port.to_string(),
        name: w.name.clone(),
        gametype: w.game.clone(),
        map: w.map.clone(),
        version: w.version.clone(),
        password: u8::from(w.password).to_string(),
        players_online: w.players.len().to_string(),
        players_max: w.max.to_string(),
        rules: w.rules.clone(),
        players: w
            .players
            .iter()
            .map(|(name, score, _)| Player {
                name: Some(name.clone()),
                team: text(""),
                skin: text(""),
                score: Some(score.to_string()),
                ping: text("50"),
                time: text(""),
            })
            .collect(),
    }
}

/// Serves ASE on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: AseConfig) -> io::Result<SimServer> {
    datagrams::spawn(move |req: &[u8], _from, own: std::net::SocketAddr| {
        if ase::decode_request(req).is_err() {
            return Vec::new();
        }
        let game_port = match config.game_port {
            0 => own.port().wrapping_sub(123),
            p => p,
        };
        answer(&world.snapshot(), game_port, config.misbehaviour)
    })
    .await
}

/// A Multi Theft Auto server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Sim MTA:SA".into(),
        map: "None".into(),
        game: "Freeroam".into(),
        version: "1.6".into(),
        max: 32,
        players: vec![("alice".into(), 0, 0.0), ("bob".into(), 0, 0.0)],
        rules: vec![("weather".into(), "0".into())],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, AseConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(8), 0, |t| {
        format!("driver{t}")
    })
    .await
}

/// Every misbehaviour of this simulator, with what the exporter must publish for it. The
/// world keeps the fleet's name and gets two players of 32 slots.
pub fn hostile() -> Vec<Hostile> {
    use Misbehaviour as M;
    fn on(misbehaviour: Misbehaviour) -> super::hostile::Start {
        start(move |world: World| {
            world.update(|w| {
                w.max = 32;
                w.players = vec![("alice".into(), 1, 0.0), ("bob".into(), 2, 0.0)];
            });
            let config = AseConfig {
                game_port: 0,
                misbehaviour,
            };
            spawn(world, config)
        })
    }
    vec![
        Hostile::up("ok", 2, 32, None, on(M::None)),
        Hostile::up("duplicated", 2, 32, None, on(M::Duplicated)),
        Hostile::up("lying-counts", 1000, 1, None, on(M::LyingCounts)),
        Hostile::down("silence", "timeout", on(M::Silence)),
        Hostile::down("truncated", "malformed", on(M::Truncated)),
        Hostile::down("length-overrun", "malformed", on(M::LengthOverrun)),
        Hostile::down("oversized", "too_large", on(M::Oversized)),
        Hostile::down("garbage", "malformed", on(M::Garbage)),
        Hostile::down("wrong-magic", "mismatch", on(M::WrongMagic)),
    ]
}

fn answer(w: &WorldState, game_port: u16, misbehaviour: Misbehaviour) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    let mut reply = reply_of(w, game_port);
    match misbehaviour {
        M::Silence => return Vec::new(),
        M::LyingCounts => {
            reply.players_online = "1000".into();
            reply.players_max = "1".into();
        }
        M::Oversized => {
            reply.players = (0..ase::MAX_PLAYERS + 10)
                .map(|i| Player {
                    name: Some(format!("p{i}")),
                    ..Player::default()
                })
                .collect();
        }
        _ => {}
    }
    let mut out = Vec::new();
    ase::encode_reply(&reply, &mut out);
    match misbehaviour {
        M::Truncated => {
            // Inside the server name: its length byte is then larger than what is left.
            let name_at = 4 + 1 + reply.game.len() + 1 + reply.port.len();
            out.truncate(name_at + 2);
        }
        M::LengthOverrun => {
            out.push(0xFF);
            out.push(b'x');
        }
        M::Garbage => {
            let mut x = 0x5Au8;
            for b in &mut out[4..] {
                x = x.wrapping_mul(13).wrapping_add(5);
                *b = x;
            }
        }
        M::WrongMagic => out[..4].copy_from_slice(b"EYE9"),
        _ => {}
    }
    if misbehaviour == M::Duplicated {
        return vec![out.clone(), out];
    }
    vec![out]
}
