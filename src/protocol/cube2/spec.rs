//! Cube 2 server-info ping: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// The default port is the query port (Red Eclipse's 28801 + 1): targets name it.
pub const SPEC: Spec = Spec::udp("cube2", super::DEFAULT_PORT);

pub type Exchange = super::exchange::Cube2;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, super::exchange::nonce(), start.deadline)
    }
}
