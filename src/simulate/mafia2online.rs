//! A simulated Mafia II Online server: `simulate::mafia2mp`'s server in Mafia II Online's
//! dialect (`M2Online`, a ping after each name).

use std::io;

use super::hostile::Hostile;
use super::mafia2mp::{self, Mafia2Config, Misbehaviour};
use super::{SimServer, World};
use crate::protocol::mafia2online::DIALECT;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Mafia2online,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Serves Mafia II Online's query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    let config = Mafia2Config {
        dialect: DIALECT,
        misbehaviour,
    };
    mafia2mp::spawn(world, config).await
}

/// A free-roam server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    mafia2mp::spawn_demo_in(world, DIALECT, "Demo M2O Server").await
}

/// The hostile fleet's Mafia II Online servers: Mafia II Multiplayer's misbehaviours in
/// this dialect.
pub fn hostile() -> Vec<Hostile> {
    mafia2mp::hostile_in(DIALECT)
}
