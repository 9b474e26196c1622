//! Factorio's poll: the shared RCON dialogue ([`Rcon`]) running [`Script`]: log in with the
//! target's password, then `/players online count` (or `/players online` when the list is
//! asked for). Without a password there is nothing to ask: the poll fails at once with
//! [`Error::NoCredentials`], before connecting.

use std::time::Instant;

use super::Script;
use crate::protocol::exchange::{Error, Params};
use crate::protocol::rcon::exchange::Rcon;
use crate::secret::Secret;

/// One Factorio poll.
pub type Factorio = Rcon<Script>;

/// A poll's exchange. `first_id`: the login packet's id (any positive number; a fresh one
/// per poll keeps a late reply of an earlier connection from matching).
pub fn new(params: Params, password: Option<Secret>, first_id: i32, deadline: Instant) -> Factorio {
    let script = Script { params };
    match password {
        Some(p) => Rcon::new(script, p, params, first_id, deadline),
        None => Rcon::failing(
            script,
            params,
            Error::NoCredentials {
                protocol: "factorio",
                key: "password_file",
            },
            deadline,
        ),
    }
}
