//! OpenTTD game info: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::Openttd;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Resolve, Spec, Start};

/// 3979: OpenTTD's game port (`NETWORK_DEFAULT_PORT`), where TCP takes the game info
/// request. One connection per poll, one request; nothing to log in with.
pub const SPEC: Spec = Spec {
    id: "openttd",
    default_port: 3979,
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

pub type Exchange = Openttd;

impl Build for Openttd {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Openttd::new(start.params, start.deadline)
    }
}
