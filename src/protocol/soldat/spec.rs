//! Soldat's file server: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::Soldat;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Resolve, Spec, Start};

/// 23083: the file server on the game port 23073 + 10 (gamedig's `soldat`; the server's
/// `FileServer` port). One connection per poll, one request, no login.
pub const SPEC: Spec = Spec {
    id: "soldat",
    default_port: 23083,
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

pub type Exchange = Soldat;

impl Build for Soldat {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Soldat::new(start.params, start.deadline)
    }
}
