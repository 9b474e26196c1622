//! All-Seeing Eye: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// Multi Theft Auto's port (its game port 22003 + 123). It rebuilds its reply about every
/// 10 s but answers every request: no gap.
pub const SPEC: Spec = Spec::udp("ase", 22126);

pub type Exchange = OneShot<super::exchange::FullStatus>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
