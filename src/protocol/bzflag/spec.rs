//! BZFlag query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Bzflag;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 5154: bzfs's game port (`ServerPort`), where TCP takes the hello and the queries. One
/// connection per poll; nothing to log in with.
pub const SPEC: Spec = Spec::tcp("bzflag", 5154);

pub type Exchange = Bzflag;

impl Build for Bzflag {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Bzflag::new(start.params, start.deadline)
    }
}
