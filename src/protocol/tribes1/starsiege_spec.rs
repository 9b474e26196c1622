//! Starsiege query: Tribes' dialogue with Starsiege's request byte (`'r'`); the protocol's
//! facts and how its exchange is built for a poll (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

pub const SPEC: Spec = Spec::udp("starsiege", super::STARSIEGE_PORT);

pub type Exchange = OneShot<super::exchange::Query<{ super::STARSIEGE }>>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, random_u32() as u16, start.deadline)
    }
}
