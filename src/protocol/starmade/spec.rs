//! StarMade's server info query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use std::time::Duration;

use super::exchange::Starmade;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Resolve, Spec, Start};

/// 4242: StarMade's game port, where TCP takes the status request. One connection per poll.
pub const SPEC: Spec = Spec {
    id: "starmade",
    default_port: 4242,
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

pub type Exchange = Starmade;

impl Build for Starmade {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Starmade::new(start.params, start.deadline)
    }
}
