//! Assetto Corsa (the server's HTTP lobby pages): the protocol's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use super::exchange::AcServer;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The server's HTTP port (`HTTP_PORT` of server_cfg.ini, 8081 as shipped): one or two GETs.
pub const SPEC: Spec = Spec {
    ..Spec::http("assettocorsa", 8081, HttpScheme::Either)
};

pub type Exchange = Fetch<AcServer>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::fresh(start.params, start.deadline)
    }
}
