//! Simulated Cube 2 server: answers the server-info ping as Red Eclipse 1.6 or Sauerbraten
//! does (the layouts their real servers sent), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::cube2::extinfo::{self, ExtPlayer};
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
    /// Sauerbraten extinfo: the header lists one client more than it sends records for (a
    /// datagram lost, or a lie): the poll ends at its deadline with the records that came.
    ExtLyingIds,
    /// Sauerbraten extinfo: the header lists 1000 ids, past the cap.
    ExtManyIds,
    /// Sauerbraten extinfo: 300 records for clients the header never listed, and never the
    /// listed ones: kept within the cap, the poll ends at its deadline.
    ExtEndless,
    /// Sauerbraten extinfo: a record with a 6000-character name, past the reply cap.
    ExtOversized,
    /// Sauerbraten extinfo: the error answer (`EXT_ERROR`), which `-1` never gets.
    ExtError,
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

/// The world's clients as Sauerbraten's extinfo lists them: players numbered from 0, then
/// bots numbered from 128 (`MAXCLIENTS`, as the engine numbers them).
pub fn ext_players(w: &WorldState) -> Vec<ExtPlayer> {
    let humans = (0..).zip(
        w.players
            .iter()
            .map(|(name, score, _)| (name.clone(), *score)),
    );
    let bots = (0..w.bots.min(extinfo::MAX_BOTS as u32) as i32)
        .map(|b| (extinfo::FIRST_BOT + b, (format!("bot{b}"), 0)));
    humans
        .chain(bots)
        .map(|(cn, (name, frags))| ExtPlayer {
            cn,
            ping: 20,
            name: format!("\u{c}0{name}"),
            team: "good".into(),
            frags,
            health: 100,
            armour: 25,
            gun: 6,
            state: 1,
            ..ExtPlayer::default()
        })
        .collect()
}

/// Sauerbraten's answers to a request starting with 0 (after the 0 in `r`): the real
/// server's three commands, with the hostile extinfo knobs.
fn extinfo_answer(req: &[u8], r: &mut Reader<'_>, w: &WorldState, m: Misbehaviour) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    let mut out = req.to_vec();
    cube2::put_int(extinfo::ACK, &mut out);
    cube2::put_int(extinfo::VERSION, &mut out);
    match cube2::get_int(r).ok() {
        // EXT_UPTIME: seconds up.
        Some(0) => cube2::put_int(60, &mut out),
        // EXT_PLAYERSTATS for every client; one client's (or an unknown one's) is answered
        // the same way here.
        Some(1) if m == M::ExtError => cube2::put_int(1, &mut out),
        Some(1) => {
            let mut players = ext_players(w);
            let mut ids: Vec<i32> = players.iter().map(|p| p.cn).collect();
            match m {
                M::ExtLyingIds => ids.push(99),
                M::ExtManyIds => ids = (0..1000).collect(),
                M::ExtEndless => {
                    players = (300..600)
                        .map(|cn| ExtPlayer {
                            cn,
                            name: format!("ghost{cn}"),
                            ..ExtPlayer::default()
                        })
                        .collect();
                }
                M::ExtOversized => {
                    if let Some(p) = players.first_mut() {
                        p.name = "x".repeat(6000);
                    }
                }
                _ => {}
            }
            let mut datagrams = vec![Vec::new()];
            extinfo::encode_ids(req, &ids, &mut datagrams[0]);
            for p in &players {
                let mut d = Vec::new();
                extinfo::encode_player(req, p, &mut d);
                datagrams.push(d);
            }
            return datagrams;
        }
        // EXT_TEAMSCORE outside a team mode: "not a team mode", mode, time left.
        Some(2) => out.extend_from_slice(&[1, 0, 0]),
        _ => cube2::put_int(1, &mut out),
    }
    vec![out]
}

fn answer(req: &[u8], w: &WorldState, config: &Cube2Config) -> Vec<Vec<u8>> {
    use Misbehaviour as M;
    let m = config.misbehaviour;
    // The engine drops long requests; a leading 0 is Sauerbraten's extinfo (Red Eclipse
    // answers nothing to it).
    let mut r = Reader::new(req);
    let Ok(first) = cube2::get_int(&mut r) else {
        return Vec::new();
    };
    if m == M::Silence || req.len() > MAX_REQUEST {
        return Vec::new();
    }
    if first == 0 {
        return match config.dialect {
            Dialect::Sauerbraten => extinfo_answer(req, &mut r, w, m),
            Dialect::RedEclipse => Vec::new(),
        };
    }
    info_answer(req, w, config).into_iter().collect()
}

fn info_answer(req: &[u8], w: &WorldState, config: &Cube2Config) -> Option<Vec<u8>> {
    use Misbehaviour as M;
    let m = config.misbehaviour;
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
    datagrams::spawn(move |req: &[u8], _from, _own| answer(req, &world.snapshot(), &config)).await
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
    let sauer = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                Cube2Config {
                    dialect: Dialect::Sauerbraten,
                    misbehaviour: m,
                },
            )
        })
    };
    const PLAYERS: &str = "players = true";
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
        // Sauerbraten with `players = true`: the extinfo step, healthy and hostile. The
        // info reply counts the 2 players; extinfo lists the bots too (numbered from 128).
        Hostile::up("sauer-players", 2, 24, Some(2), sauer(M::None)).with_config(PLAYERS),
        Hostile::up("sauer-lying-ids", 2, 24, Some(2), sauer(M::ExtLyingIds)).with_config(PLAYERS),
        Hostile::up("sauer-endless", 2, 24, Some(2), sauer(M::ExtEndless)).with_config(PLAYERS),
        Hostile::down("sauer-many-ids", "too_large", sauer(M::ExtManyIds)).with_config(PLAYERS),
        Hostile::down("sauer-oversized", "too_large", sauer(M::ExtOversized)).with_config(PLAYERS),
        Hostile::down("sauer-error", "malformed", sauer(M::ExtError)).with_config(PLAYERS),
    ]
}
