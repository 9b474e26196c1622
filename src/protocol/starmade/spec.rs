//! StarMade's server info query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use super::exchange::Starmade;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 4242: StarMade's game port, where TCP takes the status request. One connection per poll.
pub const SPEC: Spec = Spec {
    ..Spec::tcp("starmade", 4242)
};

pub type Exchange = Starmade;

impl Build for Starmade {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Starmade::new(start.params, start.deadline)
    }
}
