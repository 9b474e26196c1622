//! A simulated Mafia II Multiplayer server (and, in its dialect, Mafia II Online's): the info
//! and player names in one datagram, as gamedig 5.3.3 reads them, with knobs for hostile
//! replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::mafia2mp::{self, Dialect, Record, Reply, DIALECT, MAX_REPLY};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Mafia2mp,
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
    /// The reply is cut in the middle of its last player's name.
    Truncated,
    /// The server name's length byte says 255 and the datagram ends first.
    LyingLength,
    /// The player count is text, not a number.
    CountNotANumber,
    /// The player count says 2,000,000 (a number no server has).
    LyingCount,
    /// The list is padded with players past [`MAX_REPLY`].
    Oversized,
    /// The other dialect's magic, then nothing.
    OtherMagic,
    /// The list ends with an empty name and junk after it (gamedig stops at the empty name).
    EmptyNameThenJunk,
}

/// How the server behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mafia2Config {
    pub dialect: Dialect,
    pub misbehaviour: Misbehaviour,
}

impl Default for Mafia2Config {
    fn default() -> Self {
        Mafia2Config {
            dialect: DIALECT,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// The reply a server of this world sends: the game as its game mode, each player's ping
/// (sent in the dialect that has them) 20 ms a place.
pub fn reply_of(w: &WorldState) -> Reply {
    Reply {
        name: w.name.clone(),
        players: u32::try_from(w.players.len()).unwrap_or(u32::MAX),
        max: w.max,
        gamemode: w.game.clone(),
        password: w.password,
        list: w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, _, _))| Record {
                name: name.clone(),
                ping: Some(20 * (i as u32 + 1)),
            })
            .collect(),
    }
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Mafia2Config) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, config)).await
}

/// A free-roam server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    spawn_demo_in(world, DIALECT, "Demo M2MP Server").await
}

/// [`spawn_demo`] in a dialect, under a name.
pub async fn spawn_demo_in(world: World, dialect: Dialect, name: &str) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: name.into(),
            game: "Freeroam".into(),
            max: 32,
            players: vec![("Vito".into(), 0, 0.0), ("Joe".into(), 0, 0.0)],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let config = Mafia2Config {
        dialect,
        misbehaviour: Misbehaviour::None,
    };
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(5), 0, |t| {
            format!("Scaletta{t}")
        }));
    Ok(server)
}

/// Every misbehaviour of this simulator in `dialect`, with what the exporter must publish
/// for it: the hostile world's counts (2 players, 24 slots; the query has no bots).
pub fn hostile_in(dialect: Dialect) -> Vec<Hostile> {
    let with = move |misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                Mafia2Config {
                    dialect,
                    misbehaviour,
                },
            )
        })
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(M::None)),
        Hostile::up(
            "empty-name-then-junk",
            2,
            24,
            None,
            with(M::EmptyNameThenJunk),
        ),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("truncated", "malformed", with(M::Truncated)),
        Hostile::down("lying-length", "malformed", with(M::LyingLength)),
        Hostile::down("count-not-a-number", "malformed", with(M::CountNotANumber)),
        Hostile::down("lying-count", "malformed", with(M::LyingCount)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("other-magic", "mismatch", with(M::OtherMagic)),
    ]
}

/// Mafia II Multiplayer's hostile fleet.
pub fn hostile() -> Vec<Hostile> {
    hostile_in(DIALECT)
}

fn answer(req: &[u8], w: &WorldState, config: Mafia2Config) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    let dialect = config.dialect;
    if config.misbehaviour == M::Silence || !mafia2mp::is_request(&dialect, req) {
        return Vec::new();
    }
    let mut reply = reply_of(w);
    match config.misbehaviour {
        M::LyingCount => reply.players = 2_000_000,
        M::CountNotANumber => reply.players = 0,
        M::Oversized => {
            // 255-byte names until the datagram is past the cap (under UDP's own limit).
            let long = "x".repeat(254);
            let n = MAX_REPLY / 255 + 2;
            reply.list.extend((0..n).map(|_| Record {
                name: long.clone(),
                ping: Some(1),
            }));
        }
        _ => {}
    }
    let mut out = Vec::new();
    mafia2mp::encode_reply(&dialect, &reply, &mut out);
    match config.misbehaviour {
        M::Truncated => {
            out.pop();
        }
        M::LyingLength => {
            out.truncate(dialect.magic.len());
            out.push(255);
            out.extend_from_slice(b"Mafia");
        }
        M::CountNotANumber => {
            // The count ("0": 2 bytes with its length byte) after the name becomes "two".
            let at = dialect.magic.len() + usize::from(out[dialect.magic.len()]);
            out.splice(at..at + 2, *b"\x04two");
        }
        M::OtherMagic => {
            out.clear();
            out.extend_from_slice(if dialect.pings { b"M2MP" } else { b"M2Online" });
        }
        M::EmptyNameThenJunk => {
            out.push(1);
            out.extend_from_slice(b"\xff\xfe junk");
        }
        _ => {}
    }
    vec![out]
}
