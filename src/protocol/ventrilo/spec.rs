//! Ventrilo status query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Ventrilo;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

pub const SPEC: Spec = Spec::udp("ventrilo", super::DEFAULT_PORT);

pub type Exchange = Ventrilo;

impl Build for Ventrilo {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
