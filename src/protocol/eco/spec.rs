//! Eco (the server's web API): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Frontpage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The server's web port (the game port + 1, 3001 by default): one GET.
pub const SPEC: Spec = Spec {
    ..Spec::http("eco", 3001, HttpScheme::Either)
};

pub type Exchange = Fetch<Frontpage>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
