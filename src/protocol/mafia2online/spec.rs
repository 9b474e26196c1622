//! Mafia II Online query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Instant;

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::exchange::{Input, Step};
use crate::protocol::mafia2mp::exchange::Query;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// The query port: the game port 27015 + 1 (gamedig's `m2o`).
pub const SPEC: Spec = Spec::udp("mafia2online", 27016);

pub type Exchange = Mafia2online;

/// Mafia II Multiplayer's dialogue in Mafia II Online's [`super::DIALECT`]; its own type so
/// the spec's [`Build`] is its own.
#[derive(Debug)]
pub struct Mafia2online(pub OneShot<Query>);

impl crate::protocol::exchange::Exchange for Mafia2online {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        self.0.poll(now, out)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        self.0.handle(now, input)
    }
}

impl Build for Mafia2online {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Mafia2online(crate::protocol::mafia2mp::exchange::new(
            super::DIALECT,
            &start.params,
            start.deadline,
        ))
    }
}
