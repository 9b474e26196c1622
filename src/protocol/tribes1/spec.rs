//! Tribes 1 query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

pub const SPEC: Spec = Spec::udp("tribes1", super::TRIBES_PORT);

pub type Exchange = OneShot<super::exchange::Query<{ super::TRIBES }>>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // A fresh key per poll, so a late reply to the last poll is not taken for this one's.
        super::exchange::new(&start.params, random_u32() as u16, start.deadline)
    }
}
