//! NetQuake control query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

pub const SPEC: Spec = Spec::udp("netquake", super::DEFAULT_PORT);

pub type Exchange = super::exchange::NetQuake;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
