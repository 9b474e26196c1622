//! Simulated Tribes 1 / Starsiege server: answers a `b` request with a Tribes reply and an
//! `r` request with a Starsiege reply (both echoing the request's key), in the layouts qstat
//! 2.17 (`-tbs`, Tribes only) and gamedig 5.3.3 (`t1s`, `starsiege`) read, with knobs for
//! hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::tribes1::{
    self, Body, Reply, Starsiege, Team, Tribes, TribesPlayer, STARSIEGE,
};

/// This simulator, as [`super::simulator`] lists it: it answers Tribes' `b` request.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Tribes1,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The same simulator for Starsiege's `r` request (it answers both), with its own fleet.
pub const SIM_STARSIEGE: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Starsiege,
    hostile: hostile_starsiege,
    ..SIM
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The reply cut in the middle of its header strings.
    Short,
    /// The player count says 200 (Tribes) or 4,000,000,000 (Starsiege) with two records.
    LyingCount,
    /// The server name's length byte says 250 with 9 bytes behind it.
    LyingLength,
    /// A 60 KB reply (a motd padded out): past the reply cap.
    Oversized,
    /// Echoes another key: someone else's answer, never ours.
    WrongKey,
}

#[derive(Debug, Clone, Default)]
pub struct Tribes1Config {
    pub misbehaviour: Misbehaviour,
}

fn everyone(w: &WorldState) -> Vec<(String, i32)> {
    w.players
        .iter()
        .map(|(n, s, _)| (n.clone(), *s))
        .chain((0..w.bots).map(|b| (format!("bot{b}"), 0)))
        .take(255)
        .collect()
}

/// The Tribes reply for the world: two teams, the player fields gamedig and qstat both read
/// (the score right after the name and team placeholders, two spaces in, where qstat looks).
pub fn tribes_reply(w: &WorldState) -> Reply {
    let all = everyone(w);
    let list = all
        .iter()
        .enumerate()
        .map(|(i, (name, score))| TribesPlayer {
            ping: 10 + i as u8,
            loss: 0,
            team: (i % 2) as u8,
            name: name.clone(),
            values: format!("%n\t%t\t  {score}\t%p\t%l"),
        })
        .collect();
    Reply {
        game_type: "Tribes".into(),
        version: "1.11".into(),
        name: w.name.clone(),
        body: Body::Tribes(Tribes {
            dedicated: true,
            password: w.password,
            players: all.len() as u8,
            max: u8::try_from(w.max).unwrap_or(u8::MAX),
            cpu: 400,
            game_mod: "base".into(),
            mission_type: "CTF".into(),
            map: w.map.clone(),
            motd: "Welcome".into(),
            team_count: 2,
            team_fields: "Team Name\t\u{6}Score".into(),
            player_fields: "Player Name\t\u{6}Team\t\u{6}Score\t\u{4}Ping\t\u{4}PL".into(),
            teams: vec![
                Team {
                    name: "Blood Eagle".into(),
                    values: "%t\t3".into(),
                },
                Team {
                    name: "Diamond Sword".into(),
                    values: "%t\t1".into(),
                },
            ],
            list,
        }),
    }
}

/// The Starsiege reply for the world (game type "Starsiege": gamedig's other layout).
pub fn starsiege_reply(w: &WorldState) -> Reply {
    let all = everyone(w);
    Reply {
        game_type: tribes1::STARSIEGE_GAME.into(),
        version: "1.004".into(),
        name: w.name.clone(),
        body: Body::Starsiege(Starsiege {
            password: w.password,
            dedicated: true,
            drop_in: true,
            in_progress: true,
            players: all.len() as u32,
            max: w.max,
            team_play: 1,
            map: w.map.clone(),
            cpu: 300,
            factory_vehicles: 1,
            tecmix: 0,
            limits: [0, 20, 30, 0, 0, 0],
            players_sent: all.len() as u32,
            list: all
                .into_iter()
                .enumerate()
                .map(|(i, (n, _))| (n, 1 << (i % 4)))
                .collect(),
        }),
    }
}

fn answer(req: &[u8], w: &WorldState, config: &Tribes1Config) -> Option<Vec<u8>> {
    let m = config.misbehaviour;
    let (kind, key) = tribes1::parse_request(req)?;
    if m == Misbehaviour::Silence {
        return None;
    }
    let mut reply = if kind == STARSIEGE {
        starsiege_reply(w)
    } else {
        tribes_reply(w)
    };
    match (&mut reply.body, m) {
        (Body::Tribes(t), Misbehaviour::LyingCount) => t.players = 200,
        (Body::Starsiege(s), Misbehaviour::LyingCount) => s.players = 4_000_000_000,
        (Body::Tribes(t), Misbehaviour::Oversized) => {
            // Past 255 bytes a string is cut; pad with teams instead.
            t.team_count = 255;
            t.teams = vec![
                Team {
                    name: "x".repeat(255),
                    values: "y".repeat(255),
                };
                120
            ];
        }
        (Body::Starsiege(s), Misbehaviour::Oversized) => {
            s.list = vec![("x".repeat(255), 1); 240];
        }
        _ => {}
    }
    let key = if m == Misbehaviour::WrongKey {
        key.wrapping_add(1)
    } else {
        key
    };
    let mut out = Vec::new();
    tribes1::encode(&reply, kind, key, &mut out);
    match m {
        Misbehaviour::Short => out.truncate(12),
        Misbehaviour::LyingLength => {
            // The name's length byte: after the 4-byte header, game type and version.
            let at = 4 + 1 + reply.game_type.len() + 1 + reply.version.len();
            out[at] = 250;
            out.truncate(at + 10);
        }
        _ => {}
    }
    Some(out)
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Tribes1Config) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo Tribes".into(),
        map: "Raindance".into(),
        game: "Tribes".into(),
        version: "1.11".into(),
        max: 32,
        bots: 0,
        players: vec![("alice".into(), 10, 300.0), ("bob".into(), 4, 60.0)],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, Tribes1Config::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("tribe{t}")
    })
    .await
}

fn fleet() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, Tribes1Config { misbehaviour: m }));
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 4, 24, None, with(M::None)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("lying-count", "malformed", with(M::LyingCount)),
        Hostile::down("lying-length", "malformed", with(M::LyingLength)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("wrong-key", "mismatch", with(M::WrongKey)),
    ]
}

/// The hostile fleet's Tribes servers: bots are counted among players (4 online).
pub fn hostile() -> Vec<Hostile> {
    fleet()
}

/// The hostile fleet's Starsiege servers: the same server asked with `r`.
pub fn hostile_starsiege() -> Vec<Hostile> {
    fleet()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::tribes1::TRIBES;

    /// Every oversized reply is over the cap, whichever body.
    #[test]
    fn oversized_is_over_the_cap() {
        let config = Tribes1Config {
            misbehaviour: Misbehaviour::Oversized,
        };
        for kind in [TRIBES, STARSIEGE] {
            let out = answer(&[kind, 1, 0], &WorldState::default(), &config).unwrap();
            assert!(out.len() > tribes1::MAX_REPLY, "{kind}: {}", out.len());
        }
    }
}
