//! ElDewrito (the info server's JSON): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::InfoPage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Resolve, Spec, Start};

/// The info server's port (the game port + 1, 11775 by default): one GET.
pub const SPEC: Spec = Spec {
    id: "eldewrito",
    default_port: 11775,
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

pub type Exchange = Fetch<InfoPage>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
