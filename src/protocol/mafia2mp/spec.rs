//! Mafia II Multiplayer query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// The query port: the game port 27016 + 1 (gamedig's `m2m`).
pub const SPEC: Spec = Spec::udp("mafia2mp", 27017);

pub type Exchange = OneShot<super::exchange::Query>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(super::DIALECT, &start.params, start.deadline)
    }
}
