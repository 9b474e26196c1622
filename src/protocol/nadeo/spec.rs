//! Nadeo's GBXRemote 2 (Trackmania Forever, Trackmania 2, Shootmania): the protocol's facts and
//! how its exchange is built for a poll (`protocol::spec`).

use std::time::Duration;

use super::exchange::{Login, Nadeo, DEFAULT_LOGIN};
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Resolve, Spec, Start, SOURCE_RCON_PORT};

/// 5000: the dedicated config's `<xmlrpc_port>` default (a busy port makes the server take the
/// next free one, 5001...). One connection per poll, five or six calls on it; nothing to
/// pace.
pub const SPEC: Spec = Spec {
    id: "nadeo",
    default_port: 5000,
    resolve: Resolve::Plain,
    link: Link::Tcp,
    min_gap: Duration::ZERO,
    self_paced: false,
    http: None,
    // `Authenticate(username, password)` before the reads, where the server wants a login:
    // the `<authorization_levels>` of its dedicated config (`User` unless `username` says).
    credential_keys: &[CredentialKey::Username, CredentialKey::Password],
    required_credential: None,
    default_rcon_port: SOURCE_RCON_PORT,
    voice_port: None,
};

pub type Exchange = Nadeo;

impl Build for Nadeo {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let login = start.credentials.and_then(|c| {
            Some(Login {
                user: c.username.clone().unwrap_or_else(|| DEFAULT_LOGIN.into()),
                password: c.password.clone()?,
            })
        });
        // A fresh handle per poll keeps a late answer of an earlier poll from matching.
        let first = crate::protocol::exchange::tools::random_u32() >> 8;
        Nadeo::new(start.params, login, first, start.deadline)
    }
}
