//! Soldat's file server: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Soldat;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 23083: the file server on the game port 23073 + 10 (gamedig's `soldat`; the server's
/// `FileServer` port). One connection per poll, one request, no login.
pub const SPEC: Spec = Spec {
    ..Spec::tcp("soldat", 23083)
};

pub type Exchange = Soldat;

impl Build for Soldat {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Soldat::new(start.params, start.deadline)
    }
}
