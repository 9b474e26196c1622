//! Satisfactory Lightweight Query and HTTPS API: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Link, Spec, Start};
use crate::secret::Secret;

/// The Lightweight Query over UDP on the game port; with an API token, the HTTPS API on the
/// same port (it exists only over TLS).
pub const SPEC: Spec = Spec {
    link: Link::UdpThenHttp,
    http: Some(HttpScheme::HttpsOnly),
    // The HTTPS API's bearer token (`server.GenerateAPIToken`).
    credential_keys: &[CredentialKey::ApiToken],
    ..Spec::udp("satisfactory", 7777)
};

pub type Exchange = super::exchange::Poll;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let token = start.credentials.and_then(|c| c.api_token.as_ref());
        let authorization = token.map(|t| Secret::new(format!("Bearer {}", t.expose())));
        super::exchange::poll(&start.params, authorization, start.deadline)
    }
}
