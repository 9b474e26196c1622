//! Simulated ARK: Survival Ascended server: the RCON simulator ([`super::rcon`]) answering
//! `ListPlayers` from the world ([`rcon::asa`]), in the plain flavour (no empty packet
//! before the login answer, an empty command unanswered: the exchange ends a reply on a
//! quiet pause either way), with the RCON simulator's misbehaviours. ARK reports no server
//! name and no capacity over RCON.

use std::io;
use std::sync::OnceLock;

use super::hostile::Hostile;
use super::rcon::{self, Flavour, Misbehaviour, RconConfig};
use super::{SimServer, World, WorldState};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Arkrcon,
    spawn: |w| Box::pin(spawn(w, config())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: Some(PASSWORD),
};

/// The RCON password of the simulator's default configuration (and of `demo`'s server):
/// harnesses write it into the file a target's `password_file` names
/// ([`super::Simulator::password`]).
pub const PASSWORD: &str = "asa-sim-admin-password";

/// The default configuration: the plain flavour, [`PASSWORD`], well behaved.
pub fn config() -> RconConfig {
    RconConfig {
        flavour: Flavour::Factorio,
        password: PASSWORD.into(),
        respond: rcon::asa,
        misbehaviour: Misbehaviour::None,
    }
}

pub async fn spawn(world: World, config: RconConfig) -> io::Result<SimServer> {
    rcon::spawn(world, config).await
}

/// A small ARK server with survivors coming and going, for `demo` (which
/// logs in with [`PASSWORD`]).
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "ASA Demo".into(),
        map: "TheIsland_WP".into(),
        game: "ARK: Survival Ascended".into(),
        version: "v58.12".into(),
        max: 70,
        players: vec![("Survivor".into(), 0, 0.0), ("Helena".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    rcon::spawn_demo(world, state, config(), |t| format!("survivor{t}")).await
}

/// The config line naming a file that holds [`PASSWORD`], for the hostile fleet's targets.
fn password_file_line() -> &'static str {
    static LINE: OnceLock<String> = OnceLock::new();
    rcon::password_file_line(&LINE, "arkrcon", PASSWORD)
}

/// The hostile fleet's ARK servers: the count only (no name, no capacity: 0).
pub fn hostile() -> Vec<Hostile> {
    let stranger: rcon::Responder = |_, _| "Server received, But no response!! \n".into();
    rcon::count_only_hostile(config, password_file_line(), ("not-ark", stranger))
}
