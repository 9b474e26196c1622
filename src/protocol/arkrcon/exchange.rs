//! ARK: Survival Ascended's poll: the shared RCON dialogue ([`Rcon`]) running [`Script`]:
//! log in with the target's password, then `ListPlayers`. Without a password there is
//! nothing to ask: the poll fails at once with [`Error::NoCredentials`], before connecting.

use std::time::Instant;

use super::Script;
use crate::protocol::exchange::{Error, Params};
use crate::protocol::rcon::exchange::Rcon;
use crate::secret::Secret;

/// One ARK poll.
pub type ArkRcon = Rcon<Script>;

/// A poll's exchange. `first_id`: the login packet's id (a fresh one per poll keeps a late
/// reply of an earlier connection from matching).
pub fn new(params: Params, password: Option<Secret>, first_id: i32, deadline: Instant) -> ArkRcon {
    let script = Script { params };
    match password {
        Some(p) => Rcon::new(script, p, params, first_id, deadline),
        None => Rcon::failing(
            script,
            params,
            Error::NoCredentials {
                protocol: "arkrcon",
                key: "password_file",
            },
            deadline,
        ),
    }
}
