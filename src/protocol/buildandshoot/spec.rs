//! Build and Shoot (the status server's JSON page): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::StatusJson;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The status server's port (piqueserver's `status_server.port`, 32886: the game port - 1): one GET.
pub const SPEC: Spec = Spec {
    ..Spec::http("buildandshoot", 32886, HttpScheme::Either)
};

pub type Exchange = Fetch<StatusJson>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
