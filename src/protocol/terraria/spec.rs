//! Terraria with TShock (REST API): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::Tshock;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Resolve, Spec, Start};

/// TShock's REST API: one GET per poll, HTTP unless the target says `tls = true`.
pub const SPEC: Spec = Spec {
    id: "terraria",
    default_port: 7878,
    resolve: Resolve::Plain,
    link: Link::Http,
    min_gap: Duration::ZERO,
    self_paced: false,
    http: Some(HttpScheme::Either),
    // TShock's REST token, a query parameter.
    credential_keys: &[CredentialKey::Token],
    required_credential: None,
    default_rcon_port: crate::protocol::spec::SOURCE_RCON_PORT,
    voice_port: None,
};

pub type Exchange = Fetch<Tshock>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let token = start.credentials.and_then(|c| c.token.clone());
        super::exchange::new(start.params, token, start.deadline)
    }
}
