//! ElDewrito (the info server's JSON): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::InfoPage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The info server's port (the game port + 1, 11775 by default): one GET.
pub const SPEC: Spec = Spec {
    ..Spec::http("eldewrito", 11775, HttpScheme::Either)
};

pub type Exchange = Fetch<InfoPage>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
