//! Armagetron Advanced: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Armagetron;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 4534: the engine's default `SERVER_PORT` (the game and the browser query share it).
pub const SPEC: Spec = Spec::udp("armagetron", 4534);

pub type Exchange = Armagetron;

impl Build for Armagetron {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Armagetron::new(&start.params, start.deadline)
    }
}
