//! Palworld REST API: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::PalworldApi;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};
use crate::secret::Secret;

/// Palworld's REST API: two or three GETs on one connection.
pub const SPEC: Spec = Spec {
    // HTTP basic auth; the user is always `admin` ([`super::USER`]).
    credential_keys: &[CredentialKey::Password],
    ..Spec::http("palworld", 8212, HttpScheme::Either)
};

pub type Exchange = Fetch<PalworldApi>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let password = start.credentials.and_then(|c| c.password.as_ref());
        let authorization = password.map(|p| basic_auth(super::USER, p));
        super::exchange::new(start.params, authorization, start.deadline)
    }
}

/// An `Authorization: Basic` value for `user` and `password`, itself a secret.
fn basic_auth(user: &str, password: &Secret) -> Secret {
    use base64::Engine;
    let raw = format!("{user}:{}", password.expose());
    Secret::new(format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(raw)
    ))
}
