//! Simulated Factorio server: the RCON simulator ([`super::rcon`]) in its Factorio flavour
//! (an empty command is never answered, every reply is one packet) answering
//! `/players online count` and `/players online` from the world, with the RCON simulator's
//! misbehaviours. Factorio reports no server name and no capacity over RCON.

use std::io;
use std::sync::OnceLock;

use super::hostile::Hostile;
use super::rcon::{self, Flavour, Misbehaviour, RconConfig};
use super::{SimServer, World, WorldState};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Factorio,
    spawn: |w| Box::pin(spawn(w, config())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: Some(PASSWORD),
};

/// The RCON password of the simulator's default configuration (and of `demo`'s server):
/// harnesses write it into the file a target's `password_file` names
/// ([`super::Simulator::password`]).
pub const PASSWORD: &str = "factorio-sim-rcon";

/// The default configuration: Factorio's flavour, [`PASSWORD`], well behaved.
pub fn config() -> RconConfig {
    RconConfig {
        flavour: Flavour::Factorio,
        password: PASSWORD.into(),
        respond: rcon::factorio,
        misbehaviour: Misbehaviour::None,
    }
}

pub async fn spawn(world: World, config: RconConfig) -> io::Result<SimServer> {
    rcon::spawn(world, config).await
}

/// A small Factorio multiplayer game with engineers coming and going, for `demo` (which
/// logs in with [`PASSWORD`]).
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Factorio Demo".into(),
        map: String::new(),
        game: "Factorio".into(),
        version: "2.0.23".into(),
        max: 16,
        players: vec![("Engineer".into(), 0, 0.0), ("Klonan".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    rcon::spawn_demo(world, state, config(), |t| format!("engineer{t}")).await
}

/// The config line naming a file that holds [`PASSWORD`], for the hostile fleet's targets.
fn password_file_line() -> &'static str {
    static LINE: OnceLock<String> = OnceLock::new();
    rcon::password_file_line(&LINE, "factorio", PASSWORD)
}

/// The hostile fleet's Factorio servers: the count only (no name, no capacity: 0).
pub fn hostile() -> Vec<Hostile> {
    let stranger: rcon::Responder = |_, _| "Unknown command. Type \"/help\" for help.".into();
    rcon::count_only_hostile(config, password_file_line(), ("not-factorio", stranger))
}
