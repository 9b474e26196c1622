//! Terraria with TShock (REST API): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Tshock;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// TShock's REST API: one GET per poll, HTTP unless the target says `tls = true`.
pub const SPEC: Spec = Spec {
    // TShock's REST token, a query parameter.
    credential_keys: &[CredentialKey::Token],
    ..Spec::http("terraria", 7878, HttpScheme::Either)
};

pub type Exchange = Fetch<Tshock>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let token = start.credentials.and_then(|c| c.token.clone());
        super::exchange::new(start.params, token, start.deadline)
    }
}
