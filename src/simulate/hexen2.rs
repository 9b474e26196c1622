//! A simulated HexenWorld server: `simulate::quake2`'s server in HexenWorld's dress (five
//! `FF` in the request and the reply, QuakeWorld's lines and infostring, a NUL at the end).

use std::io;

use super::hostile::Hostile;
use super::quake2::{self, Dialect, QuakeConfig};
use super::{SimServer, World};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Hexen2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["fraglimit"],
    hostile,
    password: None,
};

/// Serves HexenWorld `status` on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: quake2::Misbehaviour) -> io::Result<SimServer> {
    quake2::spawn(
        world,
        QuakeConfig {
            dialect: Dialect::Hexen2,
            misbehaviour,
        },
    )
    .await
}

/// A HexenWorld deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    quake2::spawn_demo_as(world, Dialect::Hexen2).await
}

/// The hostile fleet's HexenWorld servers: silence, a cut reply, lying counts, a huge list,
/// a printed message instead of a status.
pub fn hostile() -> Vec<Hostile> {
    quake2::hostile_of(Dialect::Hexen2)
}
