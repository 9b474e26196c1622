//! A simulated Quake 2 or QuakeWorld server answering the out-of-band `status` the way
//! Quake 2 3.20 and mvdsv print it (the QuakeWorld shape checked against the real mvdsv:
//! `.ci/interop/quake1.sh`), with hostile replies. `simulate::quake1` is this server in
//! QuakeWorld dress.

use std::io;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::{hexen2, quake1, quake2};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Quake2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["fraglimit"],
    hostile,
    password: None,
};

/// Player lines sent by [`Misbehaviour::HugePlayerList`]: well past the 256 a reply may list,
/// and still one datagram (QuakeWorld lines run to about 40 bytes; 10,000 did not fit).
pub const HUGE_LIST: usize = 1_000;

/// Which engine's reply to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Dialect {
    /// Quake 2: `print\n`, `frags ping "name"` lines.
    #[default]
    Quake2,
    /// QuakeWorld (mvdsv): `n`, `userid frags minutes ping "name" "skin" top bottom`, a NUL
    /// at the end.
    Quake1,
    /// HexenWorld: QuakeWorld's reply behind a fifth `FF`, asked for with five.
    Hexen2,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Every reply is cut in half.
    Truncated,
    /// `maxclients` says 1 over two or more player lines.
    LyingCounts,
    /// [`HUGE_LIST`] player lines, `maxclients` raised to match: counted, listed up to the cap.
    HugePlayerList,
    /// Only a printed message with the status header (a ban notice): never a status.
    PrintOnly,
}

#[derive(Debug, Clone, Default)]
pub struct QuakeConfig {
    pub dialect: Dialect,
    pub misbehaviour: Misbehaviour,
}

/// Serves `status` on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: QuakeConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A Quake 2 deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    spawn_demo_as(world, Dialect::Quake2).await
}

/// The demo server in either dress.
pub async fn spawn_demo_as(world: World, dialect: Dialect) -> io::Result<SimServer> {
    let (name, map, game, version) = match dialect {
        Dialect::Quake2 => ("Simulated Q2 DM", "q2dm1", "baseq2", "3.20 x86 Dec 21 2002"),
        Dialect::Quake1 => ("Simulated QW DM", "dm3", "ktx", "MVDSV 0.35"),
        Dialect::Hexen2 => ("Simulated HexenWorld", "demo1", "hw", "HexenWorld 0.15"),
    };
    world.update(|w| {
        *w = WorldState {
            name: name.into(),
            map: map.into(),
            game: game.into(),
            version: version.into(),
            max: 16,
            bots: 1,
            players: vec![("alice".into(), 12, 300.0), ("bob".into(), 4, 120.0)],
            rules: vec![("fraglimit".into(), "30".into())],
            ..WorldState::default()
        }
    });
    let mut server = spawn(
        world.clone(),
        QuakeConfig {
            dialect,
            ..QuakeConfig::default()
        },
    )
    .await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(9), 0, |t| {
            format!("fragger{t}")
        }));
    Ok(server)
}

/// The reply to one datagram, if any.
fn answer(datagram: &[u8], w: &WorldState, config: &QuakeConfig) -> Option<Vec<u8>> {
    let asked = match config.dialect {
        Dialect::Hexen2 => hexen2::is_request(datagram),
        _ => quake2::is_request(datagram),
    };
    if !asked || config.misbehaviour == Misbehaviour::Silence {
        return None;
    }
    let header = match config.dialect {
        Dialect::Quake2 => quake2::HEADER,
        Dialect::Quake1 => quake1::HEADER,
        Dialect::Hexen2 => hexen2::HEADER,
    };
    let mut out = Vec::new();
    if config.misbehaviour == Misbehaviour::PrintOnly {
        out.extend_from_slice(&quake2::OOB);
        out.extend_from_slice(header);
        out.extend_from_slice(b"You are banned from this server.\n");
        return Some(out);
    }
    let huge = config.misbehaviour == Misbehaviour::HugePlayerList;
    let max = match config.misbehaviour {
        Misbehaviour::LyingCounts => 1,
        _ if huge => HUGE_LIST as u32,
        _ => w.max,
    };
    let mut vars: Vec<(String, String)> = match config.dialect {
        Dialect::Quake2 => vec![
            ("hostname".into(), w.name.clone()),
            ("mapname".into(), w.map.clone()),
            ("gamename".into(), w.game.clone()),
            ("version".into(), w.version.clone()),
            ("maxclients".into(), max.to_string()),
        ],
        Dialect::Quake1 | Dialect::Hexen2 => vec![
            ("*gamedir".into(), w.game.clone()),
            ("maxspectators".into(), "0".into()),
            ("hostname".into(), w.name.clone()),
            ("*version".into(), w.version.clone()),
            ("maxclients".into(), max.to_string()),
            ("map".into(), w.map.clone()),
        ],
    };
    vars.push(("needpass".into(), u8::from(w.password).to_string()));
    vars.extend(w.rules.iter().cloned());
    let mut lines = Vec::new();
    let mut line = |i: usize, name: &str, frags: i64, secs: f32, ping: i64| match config.dialect {
        Dialect::Quake2 => quake2::encode_player_line(frags, ping, name, &mut lines),
        Dialect::Quake1 | Dialect::Hexen2 => quake1::encode_player_line(
            &quake1::Player {
                userid: Some(i as i64 + 1),
                frags: Some(frags),
                minutes: Some((secs / 60.0) as i64),
                ping: Some(ping),
                name: name.into(),
                skin: "base".into(),
                top: Some(4),
                bottom: Some(4),
            },
            &mut lines,
        ),
    };
    if huge {
        for i in 0..HUGE_LIST {
            line(i, "b", 0, 0.0, 0);
        }
    } else {
        for (i, (name, score, secs)) in w.players.iter().enumerate() {
            line(i, name, i64::from(*score), *secs, 20 + i as i64);
        }
        for b in 0..w.bots as usize {
            line(w.players.len() + b, &format!("bot{b}"), 0, 0.0, 0);
        }
    }
    quake2::encode_frame(header, &vars, &lines, &mut out);
    if config.dialect != Dialect::Quake2 {
        out.push(0);
    }
    if config.misbehaviour == Misbehaviour::Truncated {
        out.truncate(out.len() / 2);
    }
    Some(out)
}

/// The hostile fleet's servers of one dialect (see [`super::hostile`]).
pub fn hostile_of(dialect: Dialect) -> Vec<Hostile> {
    let with = move |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                QuakeConfig {
                    dialect,
                    misbehaviour: m,
                },
            )
        })
    };
    let huge = HUGE_LIST as u32;
    vec![
        Hostile::up("ok", 4, 24, Some(2), with(Misbehaviour::None)),
        // 1,000 player lines in one datagram (maxclients raised to match): counted, still up.
        // Bots are counted among the listed players only (the first 256).
        Hostile::up(
            "huge-list",
            huge,
            huge,
            Some(256),
            with(Misbehaviour::HugePlayerList),
        ),
        Hostile::down("silence", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down("lying-counts", "too_large", with(Misbehaviour::LyingCounts)),
        Hostile::down("print-only", "mismatch", with(Misbehaviour::PrintOnly)),
    ]
}

/// The hostile fleet's Quake 2 servers.
pub fn hostile() -> Vec<Hostile> {
    hostile_of(Dialect::Quake2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn world() -> WorldState {
        WorldState {
            name: "Q".into(),
            max: 8,
            bots: 1,
            players: vec![("alice".into(), 5, 120.0)],
            ..WorldState::default()
        }
    }

    #[test]
    fn both_dialects_decode_as_the_world() {
        let mut req = Vec::new();
        quake2::encode_request(&mut req);
        let cfg = QuakeConfig::default();
        let r = quake2::decode_reply(&answer(&req, &world(), &cfg).unwrap()).unwrap();
        assert_eq!((r.total, r.players[0].frags), (2, Some(5)));
        let cfg = QuakeConfig {
            dialect: Dialect::Quake1,
            ..cfg
        };
        let r = quake1::decode_reply(&answer(&req, &world(), &cfg).unwrap()).unwrap();
        assert_eq!((r.total, r.players[0].minutes), (2, Some(2)));
        assert_eq!(r.vars.get("hostname"), Some("Q"));
        assert_eq!(answer(b"\xff\xff\xff\xffgetstatus\n", &world(), &cfg), None);
    }
}
