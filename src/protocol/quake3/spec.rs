//! Quake 3-engine getstatus: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// DarkPlaces drops a repeat from one address within 1 s (ioquake3 allows 10 a second):
/// resends wait [`super::MIN_GAP`] (docs/protocols/quake3.md).
pub const SPEC: Spec = Spec {
    min_gap: super::MIN_GAP,
    ..Spec::udp("quake3", 27960)
};

pub type Exchange = OneShot<super::exchange::GetStatus>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
