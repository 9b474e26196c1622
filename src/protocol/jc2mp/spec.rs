//! Just Cause 2 Multiplayer query: the protocol's facts and how its exchange is built for
//! a poll (`protocol::spec`).

use crate::protocol::exchange::{Input, Step};
use crate::protocol::gamespy3::exchange::Memory as Remembered;
use crate::protocol::gamespy3::GameSpy3;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, Spec, Start};

/// The game's own port: JC2-MP answers queries on its game port (gamedig's `jc2m`, 7777).
pub const SPEC: Spec = Spec::udp("jc2mp", 7777);

pub type Exchange = Jc2mp;

/// GameSpy 3's dialogue in the JC2-MP dialect ([`super::DIALECT`]); its own type so the
/// spec's [`Build`] is its own.
#[derive(Debug)]
pub struct Jc2mp(pub GameSpy3);

impl crate::protocol::exchange::Exchange for Jc2mp {
    fn poll(&mut self, now: std::time::Instant, out: &mut Vec<u8>) -> Step {
        self.0.poll(now, out)
    }

    fn handle(&mut self, now: std::time::Instant, input: Input<'_>) {
        self.0.handle(now, input)
    }
}

impl Build for Jc2mp {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        // The session id only matches replies to this poll.
        let id = crate::protocol::exchange::tools::random_u32() as i32;
        Jc2mp(GameSpy3::in_dialect(
            super::DIALECT,
            start.params,
            id,
            recalled::<Remembered>(memory).challengeless,
            start.deadline,
        ))
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(Remembered {
            challengeless: self.0.challengeless(),
        });
    }
}
