//! Quake 2-engine `status`: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// Quake 2's own port (`PORT_SERVER` 27910).
pub const SPEC: Spec = Spec::udp("quake2", 27910);

pub type Exchange = OneShot<super::exchange::GetStatus>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
