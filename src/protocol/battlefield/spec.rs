//! Frostbite (Battlefield) query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use super::exchange::Battlefield;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 47200: BF3/BF4/Hardline/Warfighter's default RCON port (game port 25200 + 22000); Bad
/// Company 2 and Medal of Honor 2010 use 48888 (their presets say so). One connection per
/// poll, two or three requests on it; nothing to pace, nothing to log in with.
pub const SPEC: Spec = Spec {
    ..Spec::tcp("battlefield", 47200)
};

pub type Exchange = Battlefield;

impl Build for Battlefield {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // A fresh sequence number per poll keeps a late answer of an earlier one from matching.
        let first = crate::protocol::exchange::tools::random_u32() >> 4;
        Battlefield::new(start.params, first, start.deadline)
    }
}
