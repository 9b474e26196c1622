//! Valve A2S: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::{A2s, Memory as Remembered};
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, Spec, Start};

/// Source's default game and query port.
pub const SPEC: Spec = Spec::udp("a2s", 27015);

pub type Exchange = A2s;

impl Build for A2s {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        let remembered = recalled::<Remembered>(memory);
        A2s::new(start.params, remembered.challenge, start.deadline)
            .with_list_challenge(remembered.list_challenge)
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(Remembered {
            challenge: self.challenge(),
            list_challenge: self.list_challenge(),
        });
    }
}
