//! Unreal Engine 2 query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::Unreal2;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// UT2004's query port (its game port 7777 + 1). UT2004 answers quick repeats; a lost list
/// request is not resent (only the info request is, docs/protocols/unreal2.md).
pub const SPEC: Spec = Spec::udp("unreal2", 7778);

pub type Exchange = Unreal2;

impl Build for Unreal2 {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Unreal2::new(start.params, start.deadline)
    }
}
