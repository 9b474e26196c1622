//! GameSpy 3 query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Memory as Remembered;
use super::GameSpy3;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, Spec, Start};

/// Battlefield 2's query port; most GameSpy 3 games use their own (presets).
pub const SPEC: Spec = Spec::udp("gamespy3", 29900);

pub type Exchange = GameSpy3;

impl Build for GameSpy3 {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        // The session id only matches replies to this poll.
        let id = crate::protocol::exchange::tools::random_u32() as i32;
        GameSpy3::new(
            start.params,
            id,
            recalled::<Remembered>(memory).challengeless,
            start.deadline,
        )
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(Remembered {
            challengeless: self.challengeless(),
        });
    }
}
