//! id Tech 4 getInfo: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// One `getInfo`, one reply; the engine answers repeats (its only limit is per-address
/// connection attempts, not info requests).
pub const SPEC: Spec = Spec::udp("doom3", 27666);

pub type Exchange = OneShot<super::GetInfo>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
