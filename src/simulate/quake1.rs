//! A simulated QuakeWorld server: `simulate::quake2`'s server in mvdsv's dress (the `n`
//! header, QuakeWorld player lines, a NUL at the end).

use std::io;

use super::hostile::Hostile;
use super::quake2::{self, Dialect, QuakeConfig};
use super::{SimServer, World};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Quake1,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["fraglimit"],
    hostile,
    password: None,
};

/// Serves QuakeWorld `status` on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: quake2::Misbehaviour) -> io::Result<SimServer> {
    quake2::spawn(
        world,
        QuakeConfig {
            dialect: Dialect::Quake1,
            misbehaviour,
        },
    )
    .await
}

/// A QuakeWorld deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    quake2::spawn_demo_as(world, Dialect::Quake1).await
}

/// The hostile fleet's QuakeWorld servers.
pub fn hostile() -> Vec<Hostile> {
    quake2::hostile_of(Dialect::Quake1)
}
