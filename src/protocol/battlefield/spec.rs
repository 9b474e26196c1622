//! Frostbite (Battlefield) query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use std::time::Duration;

use super::exchange::Battlefield;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Resolve, Spec, Start};

/// 47200: BF3/BF4/Hardline/Warfighter's default RCON port (game port 25200 + 22000); Bad
/// Company 2 and Medal of Honor 2010 use 48888 (their presets say so). One connection per
/// poll, two or three requests on it; nothing to pace, nothing to log in with.
pub const SPEC: Spec = Spec {
    id: "battlefield",
    default_port: 47200,
    resolve: Resolve::Plain,
    link: Link::Tcp,
    min_gap: Duration::ZERO,
    self_paced: false,
    http: None,
    credential_keys: &[],
    required_credential: None,
    default_rcon_port: crate::protocol::spec::SOURCE_RCON_PORT,
    voice_port: None,
};

pub type Exchange = Battlefield;

impl Build for Battlefield {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // A fresh sequence number per poll keeps a late answer of an earlier one from matching.
        let first = crate::protocol::exchange::tools::random_u32() >> 4;
        Battlefield::new(start.params, first, start.deadline)
    }
}
