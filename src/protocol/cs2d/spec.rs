//! CS2D server info: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// CS2D's default server port (the game's server options; gamedig's `c2d`).
pub const SPEC: Spec = Spec::udp("cs2d", 36963);

pub type Exchange = OneShot<super::exchange::ServerInfo>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
