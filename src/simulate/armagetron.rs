//! Simulated Armagetron Advanced server: answers the browser query as the real 0.2.9 does,
//! `big_request` only inside the query window a `small_request` opens (unless it reports to
//! a master server), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::armagetron::{
    decode_messages, encode_big_info, encode_packet, write_int, write_string, BigInfo, BIG_REQUEST,
    BIG_SERVER, SMALL_REQUEST, SMALL_SERVER,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Armagetron,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["options", "url"],
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
    /// Answers `small_server` only, never `big_server`.
    SmallOnly,
    /// The message says 0xFFFF shorts follow; far fewer do.
    LyingLength,
    /// The server name's length says 60000 bytes; a few follow.
    LyingString,
    /// A user count of 2^30.
    LyingCount,
    /// A `big_server` listing more user names than any server has (4200 of them: about
    /// 30 kB, one datagram).
    Oversized,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ArmagetronConfig {
    /// Reports to a master server: answers `big_request` without a window.
    pub master: bool,
    pub misbehaviour: Misbehaviour,
}

/// The browser entry a world is shown as (its players by name; no bots in the list).
pub fn big_info(w: &WorldState, port: u16) -> BigInfo {
    BigInfo {
        port: i32::from(port),
        host: String::new(),
        name: w.name.clone(),
        users: w.players.len() as i32,
        version_min: 0,
        version_max: 20,
        release: w.version.clone(),
        max_users: w.max.min(4096) as i32,
        user_names: w.players.iter().map(|p| p.0.replace('\n', " ")).collect(),
        options: "All settings at default values.".into(),
        url: "http://www.armagetronad.org".into(),
        global_ids: Vec::new(),
    }
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: ArmagetronConfig) -> io::Result<SimServer> {
    // The engine's window: a small_request allows 3 more big answers (at least 5, at most
    // 10); each big answer takes one.
    let mut window: i32 = 0;
    datagrams::spawn(move |req: &[u8], _from, own: std::net::SocketAddr| {
        let Ok(messages) = decode_messages(req) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for m in messages {
            match m.descriptor {
                SMALL_REQUEST => {
                    window = (window + 3).clamp(5, 10);
                    let mut data = Vec::new();
                    write_int(i32::from(own.port()), &mut data);
                    write_string("", &mut data);
                    data.extend_from_slice(&[0, 0, 0, 0]);
                    let mut p = Vec::new();
                    encode_packet(SMALL_SERVER, &data, &mut p);
                    out.push(p);
                }
                BIG_REQUEST if config.master || window > 0 => {
                    window -= 1;
                    if let Some(p) = big(&world.snapshot(), own.port(), config.misbehaviour) {
                        out.push(p);
                    }
                }
                _ => {}
            }
        }
        if config.misbehaviour == Misbehaviour::Silence {
            out.clear();
        }
        out
    })
    .await
}

fn big(w: &WorldState, port: u16, m: Misbehaviour) -> Option<Vec<u8>> {
    let mut info = big_info(w, port);
    match m {
        Misbehaviour::SmallOnly => return None,
        Misbehaviour::LyingCount => info.users = 1 << 30,
        Misbehaviour::Oversized => {
            info.user_names = (0..4200).map(|n| format!("c{n}")).collect();
            info.users = 4096;
        }
        _ => {}
    }
    let mut data = Vec::new();
    encode_big_info(&info, &mut data);
    if m == Misbehaviour::LyingString {
        // The name's length field follows the port (4 bytes) and the empty host (2).
        data[6..8].copy_from_slice(&60_000u16.to_be_bytes());
    }
    let mut p = Vec::new();
    encode_packet(BIG_SERVER, &data, &mut p);
    if m == Misbehaviour::LyingLength {
        p[4..6].copy_from_slice(&u16::MAX.to_be_bytes());
    }
    Some(p)
}

/// A light-cycle server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "0xff8800Demo 0xffffffFortress".into(),
        map: String::new(),
        game: "Armagetron Advanced".into(),
        version: "0.2.9.2.3 unix dedicated".into(),
        max: 16,
        players: vec![("Lightcycle".into(), 0, 0.0), ("Z-Man".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, ArmagetronConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("cycle{t}")
    })
    .await
}

/// The hostile fleet's Armagetron servers (the fleet's 2 players, 24 slots, no bots).
pub fn hostile() -> Vec<Hostile> {
    let with = |master: bool, misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                ArmagetronConfig {
                    master,
                    misbehaviour,
                },
            )
        })
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(false, M::None)),
        Hostile::up("master", 2, 24, None, with(true, M::None)),
        Hostile::down("silent", "timeout", with(false, M::Silence)),
        Hostile::down("small-only", "mismatch", with(false, M::SmallOnly)),
        Hostile::down("lying-length", "malformed", with(false, M::LyingLength)),
        Hostile::down("lying-string", "malformed", with(false, M::LyingString)),
        Hostile::down("lying-count", "too_large", with(false, M::LyingCount)),
        Hostile::down("oversized", "too_large", with(false, M::Oversized)),
    ]
}
