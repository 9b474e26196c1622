//! DarkMultiPlayer (Kerbal Space Program): its status page's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use std::time::Duration;

use super::exchange::InfoPage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Resolve, Spec, Start};

/// The status page's port as gamedig reads it (the game port 6702 + 1; DMPServer's own
/// `httpPort` setting decides, see docs/protocols/kspdmp.md): one GET.
pub const SPEC: Spec = Spec {
    id: "kspdmp",
    default_port: 6703,
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
