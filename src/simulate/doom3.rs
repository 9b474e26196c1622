//! Simulated id Tech 4 server (Doom 3 by default; Quake 4, ETQW, Wolfenstein layouts), with
//! knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::doom3::{self, Dialect, EtqwTail, Player, Reply, Version};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Doom3,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["si_fragLimit"],
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
    /// The reply is cut in the middle of the server variables.
    Truncated,
    /// The reply carries another challenge than the request's.
    WrongChallenge,
    /// The reply is sent twice.
    Duplicated,
    /// The player list has no end marker: it runs into the OS mask.
    NoEndMarker,
    /// `si_maxPlayers` says 1 whatever the players.
    LyingCounts,
    /// 100 players (more than any engine has slots, more than the client reads).
    Oversized,
    /// Foreign datagrams (a Quake 3 reply, noise, a lone marker) before the real reply.
    Garbage,
}

#[derive(Debug, Clone)]
pub struct Doom3Config {
    pub dialect: Dialect,
    /// `None`: the dialect's usual version (Doom 3 1.41, Quake 4 2.86, ETQW 10.19,
    /// Wolfenstein 10.17).
    pub version: Option<Version>,
    pub misbehaviour: Misbehaviour,
}

impl Default for Doom3Config {
    fn default() -> Self {
        Doom3Config {
            dialect: Dialect::Doom3,
            version: None,
            misbehaviour: Misbehaviour::None,
        }
    }
}

fn usual_version(d: Dialect) -> Version {
    let (major, minor) = match d {
        Dialect::Doom3 => (1, 41),
        Dialect::Quake4 => (2, 86),
        Dialect::Etqw => (10, 19),
        // Not verified against a real server: the lowest version with clan tags.
        Dialect::Wolfenstein => (10, 17),
    };
    Version { major, minor }
}

/// Serves `getInfo` on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Doom3Config) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A Doom 3 deathmatch whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "^1Demo ^7Doom 3 Server".into(),
        map: "game/mp/d3dm1".into(),
        game: "Deathmatch".into(),
        version: "DOOM 1.3.1.1304.x86".into(),
        max: 8,
        players: vec![("Marine".into(), 0, 0.0), ("^2Imp".into(), 0, 0.0)],
        rules: vec![("si_fragLimit".into(), "10".into())],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Doom3Config::default());
    churn::demo(world, state, serve, Duration::from_secs(7), 0, |t| {
        format!("marine{t}")
    })
    .await
}

/// The hostile fleet's id Tech 4 servers (Doom 3 layout): one per misbehaviour. The count
/// is the list's, so for the fleet's world (`tests/it/hostile.rs`: 2 players and 2 bots, 24
/// slots) it is 4 of 24 (bots are not flagged in Doom 3's layout), except where the server
/// lies about its slots.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            let config = Doom3Config {
                misbehaviour: m,
                ..Doom3Config::default()
            };
            spawn(w, config)
        })
    };
    vec![
        Hostile::down("silence", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down(
            "wrong-challenge",
            "mismatch",
            with(Misbehaviour::WrongChallenge),
        ),
        Hostile::down("oversized", "too_large", with(Misbehaviour::Oversized)),
        Hostile::up("duplicated", 4, 24, None, with(Misbehaviour::Duplicated)),
        Hostile::up(
            "no-end-marker",
            4,
            24,
            None,
            with(Misbehaviour::NoEndMarker),
        ),
        Hostile::up("lying-counts", 4, 1, None, with(Misbehaviour::LyingCounts)),
        Hostile::up("garbage", 4, 24, None, with(Misbehaviour::Garbage)),
    ]
}

/// The reply the world makes, in the configured layout.
pub fn reply(w: &WorldState, config: &Doom3Config, challenge: u32) -> Reply {
    let d = config.dialect;
    let version = config.version.unwrap_or_else(|| usual_version(d));
    let packed = version.packed();
    let m = config.misbehaviour;
    let max = if m == Misbehaviour::LyingCounts {
        1
    } else {
        w.max
    };
    let mut vars = vec![
        ("si_name".to_string(), w.name.clone()),
        ("si_map".into(), w.map.clone()),
        ("si_maxPlayers".into(), max.to_string()),
        ("si_gameType".into(), w.game.clone()),
        ("si_version".into(), w.version.clone()),
        ("si_usePass".into(), u8::from(w.password).to_string()),
    ];
    vars.extend(w.rules.iter().cloned());
    let humans = w.players.iter().map(|(n, _, _)| (n.clone(), false));
    let bots = (0..w.bots).map(|i| (format!("bot{i}"), true));
    let mut players: Vec<Player> = humans
        .chain(bots)
        .enumerate()
        .map(|(i, (name, bot))| player(d, packed, i, name, bot))
        .collect();
    if m == Misbehaviour::Oversized {
        players = (0..100)
            .map(|i| player(d, packed, i, format!("p{i}"), false))
            .collect();
    }
    let etqw = d == Dialect::Etqw;
    Reply {
        ex: false,
        task_id: etqw.then_some(u32::MAX),
        challenge: if m == Misbehaviour::WrongChallenge {
            !challenge
        } else {
            challenge
        },
        version,
        size: etqw.then_some(0),
        vars,
        players,
        os_mask: Some(1),
        etqw: etqw.then_some(EtqwTail {
            ranked: Some(false),
            time_left: Some(600),
            game_state: Some(1),
            server_type: Some(0),
            interested_clients: Some(0),
            tv: None,
        }),
    }
}

fn player(d: Dialect, packed: u32, i: usize, name: String, bot: bool) -> Player {
    let tagged = matches!(d, Dialect::Etqw | Dialect::Wolfenstein);
    Player {
        // Slot numbers below the end marker, whatever the count.
        number: (i % usize::from(d.end_marker() - 1)) as u8,
        ping: 20 + (i % 200) as u16,
        rate: d.has_rate(packed).then_some(25_000),
        name,
        clan: (d == Dialect::Quake4 || tagged && packed >= 0x000A_0011).then(String::new),
        clan_position: (tagged && packed >= 0x000A_0011).then_some(0),
        bot: tagged.then_some(bot),
    }
}

fn answer(req: &[u8], w: &WorldState, config: &Doom3Config) -> Vec<Vec<u8>> {
    let Ok(challenge) = doom3::decode_request(req) else {
        return Vec::new();
    };
    let m = config.misbehaviour;
    if m == Misbehaviour::Silence {
        return Vec::new();
    }
    let r = reply(w, config, challenge);
    let mut d = Vec::new();
    doom3::encode_reply(&r, config.dialect, &mut d);
    match m {
        Misbehaviour::Truncated => {
            // Marker, name, challenge, version, and the first variable's key.
            let cut = d
                .windows(7)
                .position(|x| x == b"si_name")
                .map_or(d.len() / 2, |p| p + 8);
            d.truncate(cut);
        }
        Misbehaviour::NoEndMarker => {
            // The end marker sits just before the OS mask (and ETQW's tail).
            let tail = if config.dialect == Dialect::Etqw {
                4 + 8
            } else {
                4
            };
            let at = d.len() - tail - 1;
            d.remove(at);
        }
        _ => {}
    }
    let mut out = Vec::new();
    if m == Misbehaviour::Garbage {
        out.push(b"\xff\xff\xff\xffstatusResponse\n\\sv_hostname\\q3".to_vec());
        out.push(vec![0xFF, 0xFF]);
        out.push(b"\xff\xffprint\0not for you\0".to_vec());
    }
    if m == Misbehaviour::Duplicated {
        out.push(d.clone());
    }
    out.push(d);
    out
}
