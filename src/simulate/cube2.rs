//! Simulated Cube 2 server: answers the server-info ping as Red Eclipse 1.6 or Sauerbraten
//! does (the layouts their real servers sent), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::cube2::{self, Info, RedEclipse};
use crate::protocol::Reader;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Cube2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The largest request the engine answers (`MAXPINGDATA`).
pub const MAX_REQUEST: usize = 32;

/// Which game's reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    /// Red Eclipse 1.6: 15 attributes, the branch, player names and handles.
    #[default]
    RedEclipse,
    /// Sauerbraten 2020: 5 attributes, map and description only.
    Sauerbraten,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The reply cut inside the attributes.
    Short,
    /// The last string never ends: the reply stops before its terminator.
    Unterminated,
    /// Claims 100 players but lists two names: a count the bytes cannot hold.
    LyingPlayers,
    /// Claims 100 000 attributes: past the attribute cap.
    ManyAttrs,
    /// A 6000-character description: past the reply cap.
    Oversized,
    /// Echoes another request's bytes: a reply to someone else.
    WrongEcho,
}

#[derive(Debug, Clone, Default)]
pub struct Cube2Config {
    pub dialect: Dialect,
    pub misbehaviour: Misbehaviour,
}

/// The reply for the world in `dialect`. Red Eclipse counts only human players (bots are
/// not in the query) and colours names with `\f`.
pub fn info(w: &WorldState, dialect: Dialect) -> Info {
    let players = i32::try_from(w.players.len()).unwrap_or(i32::MAX);
    let max = i32::try_from(w.max).unwrap_or(i32::MAX);
    let mastermode = if w.password {
        cube2::MASTER_MODE_PASSWORD
    } else {
        0
    };
    let description = format!("\u{c}g{}", w.name);
    match dialect {
        Dialect::RedEclipse => Info {
            players,
            // As the real 1.6.0 server sent them, with the world's slots and master mode.
            attrs: vec![
                230, 2, 0, 600, max, mastermode, 4998, 0, 1, 6, 0, 2, 64, 0, 0,
            ],
            map: w.map.clone(),
            description,
            red_eclipse: Some(RedEclipse {
                branch: String::new(),
                names: w.players.iter().map(|p| p.0.clone()).collect(),
                handles: w.players.iter().map(|_| String::new()).collect(),
            }),
        },
        Dialect::Sauerbraten => Info {
            players,
            attrs: vec![260, 0, 600, max, mastermode],
            map: w.map.clone(),
            description,
            red_eclipse: None,
        },
    }
}

fn answer(req: &[u8], w: &WorldState, config: &Cube2Config) -> Option<Vec<u8>> {
    use Misbehaviour as M;
    let m = config.misbehaviour;
    // The engine drops long requests and answers nothing to a leading 0.
    let first = cube2::get_int(&mut Reader::new(req)).ok()?;
    if m == M::Silence || req.len() > MAX_REQUEST || first == 0 {
        return None;
    }
    let mut i = info(w, config.dialect);
    match m {
        M::Oversized => i.description = "x".repeat(6000),
        M::LyingPlayers => i.players = 100,
        _ => {}
    }
    let mut out = Vec::new();
    match m {
        M::WrongEcho => {
            let mut other = req.to_vec();
            if let Some(last) = other.last_mut() {
                *last ^= 0x55;
            }
            cube2::encode(&other, &i, &mut out);
        }
        M::ManyAttrs => {
            out.extend_from_slice(req);
            cube2::put_int(i.players, &mut out);
            cube2::put_int(100_000, &mut out);
            out.extend_from_slice(&[1; 64]);
        }
        _ => cube2::encode(req, &i, &mut out),
    }
    match m {
        M::Short => out.truncate(req.len() + 5),
        M::Unterminated => out.truncate(out.len() - 1),
        _ => {}
    }
    Some(out)
}

/// Serves the ping on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Cube2Config) -> io::Result<SimServer> {
    datagrams::spawn(move |req: &[u8], _from, _own| {
        answer(req, &world.snapshot(), &config)
            .into_iter()
            .collect()
    })
    .await
}

/// A Red Eclipse server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo Red Eclipse".into(),
            map: "keystone2k".into(),
            game: "deathmatch".into(),
            version: "1.6.0".into(),
            max: 16,
            bots: 0,
            players: vec![("alice".into(), 10, 300.0), ("bob".into(), 4, 60.0)],
            rules: Vec::new(),
            password: false,
        }
    });
    let mut server = spawn(world.clone(), Cube2Config::default()).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(9), 0, |t| {
            format!("eclipsed{t}")
        }));
    Ok(server)
}

/// The hostile fleet's Cube 2 servers: bots are not counted (2 online).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                Cube2Config {
                    misbehaviour: m,
                    ..Cube2Config::default()
                },
            )
        })
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(M::None)),
        Hostile::up(
            "sauerbraten",
            2,
            24,
            None,
            start(|w| {
                spawn(
                    w,
                    Cube2Config {
                        dialect: Dialect::Sauerbraten,
                        ..Cube2Config::default()
                    },
                )
            }),
        ),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("unterminated", "malformed", with(M::Unterminated)),
        Hostile::down("lying-players", "malformed", with(M::LyingPlayers)),
        Hostile::down("many-attrs", "too_large", with(M::ManyAttrs)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("wrong-echo", "mismatch", with(M::WrongEcho)),
    ]
}
