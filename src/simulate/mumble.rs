//! Simulated Mumble server: answers the 12-byte UDP ping as Murmur does (only exactly 12
//! bytes with a zero first word), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::mumble::{self, Pong, Version, REPLY_LEN};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Mumble,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
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
    /// Every reply is cut to its first 20 bytes (no bandwidth).
    Short,
    /// Every reply echoes another ident than the request's.
    WrongIdent,
    /// Claims `u32::MAX` users on a server of 1.
    LyingCounts,
}

#[derive(Debug, Clone)]
pub struct MumbleConfig {
    pub version: Version,
    /// Bits per second, as Murmur's `bandwidth` setting.
    pub bandwidth: u32,
    pub misbehaviour: Misbehaviour,
}

impl Default for MumbleConfig {
    fn default() -> Self {
        MumbleConfig {
            version: Version {
                major: 1,
                minor: 3,
                patch: 4,
            },
            // Murmur's default.
            bandwidth: 558_000,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves the Mumble ping on 127.0.0.1, on a port of the system's choosing. Users are the
/// world's players and bots; the maximum is the world's.
pub async fn spawn(world: World, config: MumbleConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A voice server whose users come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: String::new(),
        map: String::new(),
        game: String::new(),
        version: "1.3.4".into(),
        max: 100,
        players: vec![
            ("alice".into(), 0, 0.0),
            ("bob".into(), 0, 0.0),
            ("carol".into(), 0, 0.0),
        ],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, MumbleConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(7), 0, |t| {
        format!("user{t}")
    })
    .await
}

/// The reply to one datagram, if any.
fn answer(datagram: &[u8], w: &WorldState, config: &MumbleConfig) -> Option<Vec<u8>> {
    let ident = mumble::decode_ping(datagram).ok()?;
    let mut pong = Pong {
        version: config.version,
        ident,
        users: (w.players.len() as u32).saturating_add(w.bots),
        max_users: w.max,
        bandwidth: config.bandwidth,
    };
    match config.misbehaviour {
        Misbehaviour::Silence => return None,
        Misbehaviour::WrongIdent => pong.ident = ident.map(|b| !b),
        Misbehaviour::LyingCounts => (pong.users, pong.max_users) = (u32::MAX, 1),
        Misbehaviour::None | Misbehaviour::Short => {}
    }
    let mut out = Vec::with_capacity(REPLY_LEN);
    mumble::encode_pong(&pong, &mut out);
    if config.misbehaviour == Misbehaviour::Short {
        out.truncate(20);
    }
    Some(out)
}

/// The hostile fleet's Mumble servers (see [`super::hostile`]). Mumble counts bots among users,
/// publishes no bots gauge and carries no server name.
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> MumbleConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || MumbleConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    vec![
        Hostile::up("ok", 4, 24, None, with(Default::default)).expect_name(""),
        // A count no server reaches (4,294,967,295 users) is never published: malformed
        // (status::MAX_PLAUSIBLE_COUNT).
        Hostile::down(
            "lying-counts",
            "malformed",
            with(|| MumbleConfig {
                misbehaviour: Misbehaviour::LyingCounts,
                ..Default::default()
            }),
        )
        .expect_name(""),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("short", "malformed", Misbehaviour::Short),
        bad("ident", "mismatch", Misbehaviour::WrongIdent),
    ]
}
