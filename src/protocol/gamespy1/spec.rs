//! GameSpy 1 \\status\\: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Gamespy1;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// Unreal Tournament's query port (its game port 7777 + 1), the family's most common
/// server; the other games' ports are their presets' (src/games). One `\status\`, its parts
/// collected until whole; no real server seen drops repeats (netPanzer and the simulated
/// Unreal layouts answer every copy).
pub const SPEC: Spec = Spec::udp("gamespy1", 7778);

pub type Exchange = Gamespy1;

impl Build for Gamespy1 {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Gamespy1::new(start.params, start.deadline)
    }
}
