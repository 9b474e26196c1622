//! Build and Shoot (the status server's JSON page): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::StatusJson;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Resolve, Spec, Start};

/// The status server's port (piqueserver's `status_server.port`, 32886: the game port - 1): one GET.
pub const SPEC: Spec = Spec {
    id: "buildandshoot",
    default_port: 32886,
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

pub type Exchange = Fetch<StatusJson>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
