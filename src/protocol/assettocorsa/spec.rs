//! Assetto Corsa (the server's HTTP lobby pages): the protocol's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use std::time::Duration;

use super::exchange::AcServer;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Resolve, Spec, Start};

/// The server's HTTP port (`HTTP_PORT` of server_cfg.ini, 8081 as shipped): one or two GETs.
pub const SPEC: Spec = Spec {
    id: "assettocorsa",
    default_port: 8081,
    resolve: Resolve::Plain,
    link: Link::Http,
    min_gap: Duration::ZERO,
    self_paced: false,
    http: Some(HttpScheme::Either),
    credential_keys: &[],
    required_credential: None,
    default_rcon_port: crate::protocol::spec::SOURCE_RCON_PORT,
    voice_port: None,
};

pub type Exchange = Fetch<AcServer>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::fresh(start.params, start.deadline)
    }
}
