//! Nadeo's GBXRemote 2 (Trackmania Forever, Trackmania 2, Shootmania): the protocol's facts and
//! how its exchange is built for a poll (`protocol::spec`).

use super::exchange::{Login, Nadeo, DEFAULT_LOGIN};
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 5000: the dedicated config's `<xmlrpc_port>` default (a busy port makes the server take the
/// next free one, 5001...). One connection per poll, five or six calls on it; nothing to
/// pace.
pub const SPEC: Spec = Spec {
    // `Authenticate(username, password)` before the reads, where the server wants a login:
    // the `<authorization_levels>` of its dedicated config (`User` unless `username` says).
    credential_keys: &[CredentialKey::Username, CredentialKey::Password],
    ..Spec::tcp("nadeo", 5000)
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
