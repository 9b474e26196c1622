//! Factorio over Source RCON: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Factorio;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start, SOURCE_RCON_PORT};

/// Factorio has no query: the address is its RCON port. It has no default (`--rcon-port` is
/// required to turn RCON on); 27015, Source's, is what its wiki and hosting panels use. One
/// connection per poll, a login and one command (and the empty-command marker Factorio
/// leaves unanswered); nothing to pace.
pub const SPEC: Spec = Spec {
    // The RCON password (`--rcon-password`).
    credential_keys: &[CredentialKey::Password],
    ..Spec::tcp("factorio", SOURCE_RCON_PORT)
};

pub type Exchange = Factorio;

impl Build for Factorio {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // The address is the RCON port; the target's `password_file` is the RCON password.
        let password = start.credentials.and_then(|c| c.password.clone());
        let first_id = (crate::protocol::exchange::tools::random_u32() >> 2) as i32;
        super::exchange::new(start.params, password, first_id, start.deadline)
    }
}
