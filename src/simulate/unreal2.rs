//! Simulated Unreal Engine 2 server (UT2004 by default, Killing Floor with waves), with
//! lists split over several datagrams and knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::unreal2::{self, Info, Kind, Player, Tail, UT2004};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Unreal2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["GoalScore"],
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
    /// The info reply is cut in the middle of the map name.
    Truncated,
    /// Every list datagram is sent twice.
    Duplicated,
    /// List datagrams are sent last first.
    Reordered,
    /// The first players datagram is never sent.
    MissingPart,
    /// The info reply claims 1000 players on a server of 1.
    LyingCounts,
    /// The players reply lists 300 players (more than the client keeps).
    Oversized,
    /// Foreign datagrams (another header, noise, a stray byte) before every real reply.
    Garbage,
    /// The info reply carries an unknown type byte.
    WrongType,
}

#[derive(Debug, Clone)]
pub struct Unreal2Config {
    /// The reply header's query version (0x80 for UT2004 and its descendants).
    pub version: u32,
    /// Killing Floor's (current, total) waves; `None` for UT2004's layout.
    pub waves: Option<(i32, i32)>,
    /// Players per datagram: real servers fill datagrams, a small number here forces the
    /// list over several.
    pub players_per_datagram: usize,
    /// Rules per datagram.
    pub rules_per_datagram: usize,
    /// Wrap the server name in a colour code, as UT2004 admins do.
    pub coloured_name: bool,
    pub misbehaviour: Misbehaviour,
}

impl Default for Unreal2Config {
    fn default() -> Self {
        Unreal2Config {
            version: UT2004,
            waves: None,
            players_per_datagram: 2,
            rules_per_datagram: 4,
            coloured_name: false,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves the UE2 query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Unreal2Config) -> io::Result<SimServer> {
    datagrams::spawn(move |req: &[u8], _from, own: std::net::SocketAddr| {
        answer(req, &world.snapshot(), &config, own.port())
    })
    .await
}

/// A UT2004 deathmatch whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo UT2004 Server".into(),
            map: "DM-Rankin".into(),
            game: "xDeathMatch".into(),
            version: "3369".into(),
            max: 16,
            players: vec![
                ("Malcolm".into(), 25, 0.0),
                ("Brock".into(), 17, 0.0),
                ("Лена".into(), 9, 0.0),
            ],
            rules: vec![
                ("ServerMode".into(), "dedicated".into()),
                ("AdminName".into(), "Demo".into()),
                ("GoalScore".into(), "25".into()),
            ],
            ..WorldState::default()
        }
    });
    let config = Unreal2Config {
        coloured_name: true,
        ..Unreal2Config::default()
    };
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(7), 5, |t| {
            format!("Player{t}")
        }));
    Ok(server)
}

/// The hostile fleet's Unreal 2 servers: one per misbehaviour, each polled with players on
/// (so the list cap can be hit). Counts are the info reply's, whatever the lists did: for
/// the fleet's world (`tests/it/hostile.rs`: 2 players and 2 bots online, 24 slots) that is
/// 4 of 24, except where the server lies.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            let config = Unreal2Config {
                misbehaviour: m,
                ..Unreal2Config::default()
            };
            spawn(w, config)
        })
    };
    let players = "players = true";
    let mut all = vec![
        Hostile::down("silence", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down("wrong-type", "malformed", with(Misbehaviour::WrongType)),
        Hostile::down("oversized", "too_large", with(Misbehaviour::Oversized)).with_config(players),
        Hostile::up(
            "lying-counts",
            1000,
            1,
            None,
            with(Misbehaviour::LyingCounts),
        ),
    ];
    for (name, m) in [
        ("duplicated", Misbehaviour::Duplicated),
        ("reordered", Misbehaviour::Reordered),
        ("missing-part", Misbehaviour::MissingPart),
        ("garbage", Misbehaviour::Garbage),
    ] {
        all.push(Hostile::up(name, 4, 24, None, with(m)).with_config(players));
    }
    all
}

/// The server's info from the world: its name, map, game type and counts.
fn info(w: &WorldState, config: &Unreal2Config, port: u16) -> Info {
    let name = if config.coloured_name {
        // Red (127, 1, 1): every byte ASCII, so an ASCII name stays in the 8-bit form, as
        // the engine sends it.
        format!("\u{1b}\u{7f}\u{1}\u{1}{}", w.name)
    } else {
        w.name.clone()
    };
    let online = (w.players.len() as u32).saturating_add(w.bots);
    Info {
        server_id: 0,
        ip: String::new(),
        game_port: i32::from(port).saturating_sub(1),
        query_port: i32::from(port),
        name,
        map: w.map.clone(),
        game_type: w.game.clone(),
        players: i32::try_from(online).unwrap_or(i32::MAX),
        max_players: i32::try_from(w.max).unwrap_or(i32::MAX),
        waves: config.waves,
        tail: Some(Tail {
            ping: 0,
            flags: i32::from(w.password),
            skill: String::new(),
        }),
    }
}

fn players(w: &WorldState, config: &Unreal2Config) -> Vec<Player> {
    let count = if config.misbehaviour == Misbehaviour::Oversized {
        300
    } else {
        w.players.len()
    };
    (0..count)
        .map(|i| {
            let (name, score) = w
                .players
                .get(i)
                .map(|(n, s, _)| (n.clone(), *s))
                .unwrap_or_else(|| (format!("extra{i}"), 0));
            Player {
                id: i as i32,
                name,
                ping: 20 + i as i32,
                score,
                stats_id: 0,
            }
        })
        .collect()
}

/// The datagrams answering one request.
fn answer(req: &[u8], w: &WorldState, config: &Unreal2Config, port: u16) -> Vec<Vec<u8>> {
    let Ok(kinds) = unreal2::decode_request(req) else {
        return Vec::new();
    };
    let m = config.misbehaviour;
    if m == Misbehaviour::Silence {
        return Vec::new();
    }
    let v = config.version;
    let mut out = Vec::new();
    for kind in kinds {
        if m == Misbehaviour::Garbage {
            out.push(b"\xff\xff\xff\xffprint\nnot unreal".to_vec());
            out.push(vec![0x42]);
            out.push(vec![0x81, 0, 0, 0, 0, 1, 2, 3]);
        }
        let mut parts: Vec<Vec<u8>> = match kind {
            Kind::Info => {
                let mut i = info(w, config, port);
                if m == Misbehaviour::LyingCounts {
                    (i.players, i.max_players) = (1000, 1);
                }
                let mut d = Vec::new();
                unreal2::encode_info(v, &i, &mut d);
                if m == Misbehaviour::Truncated {
                    // Header, type, id, ip, ports, the name, and half the map.
                    let keep = 18 + 1 + i.name.len() + 1 + i.map.len() / 2 + 1;
                    d.truncate(keep.min(d.len()));
                }
                if m == Misbehaviour::WrongType {
                    d[4] = 9;
                }
                vec![d]
            }
            Kind::Rules => w
                .rules
                .chunks(config.rules_per_datagram.max(1))
                .map(|chunk| {
                    let mut d = Vec::new();
                    unreal2::encode_rules(v, chunk, &mut d);
                    d
                })
                .collect(),
            Kind::Players => {
                let list = players(w, config);
                let per = if m == Misbehaviour::Oversized {
                    list.len()
                } else {
                    config.players_per_datagram.max(1)
                };
                let mut parts: Vec<Vec<u8>> = list
                    .chunks(per)
                    .map(|chunk| {
                        let mut d = Vec::new();
                        unreal2::encode_players(v, chunk, &mut d);
                        d
                    })
                    .collect();
                if m == Misbehaviour::MissingPart && !parts.is_empty() {
                    parts.remove(0);
                }
                parts
            }
        };
        if kind != Kind::Info {
            match m {
                Misbehaviour::Duplicated => {
                    parts = parts.into_iter().flat_map(|p| [p.clone(), p]).collect()
                }
                Misbehaviour::Reordered => parts.reverse(),
                _ => {}
            }
        }
        out.extend(parts);
    }
    out
}
