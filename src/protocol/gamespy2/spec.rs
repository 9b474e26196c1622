//! GameSpy 2: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// One query, one reply datagram. Battlefield 2's query port, the family's most common;
/// presets carry the rest.
pub const SPEC: Spec = Spec::udp("gamespy2", 29900);

pub type Exchange = OneShot<super::exchange::Query>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
