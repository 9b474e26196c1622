//! ARK: Survival Ascended over its RCON console: the protocol's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use super::exchange::ArkRcon;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// ASA answers no query: the address is its RCON port (`RCONPort` in GameUserSettings.ini,
/// 27020 by default, with `RCONEnabled=True`); `password_file` holds `ServerAdminPassword`.
/// One connection per poll, a login and one command; nothing to pace.
pub const SPEC: Spec = Spec {
    credential_keys: &[CredentialKey::Password],
    ..Spec::tcp("arkrcon", 27020)
};

pub type Exchange = ArkRcon;

impl Build for ArkRcon {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let password = start.credentials.and_then(|c| c.password.clone());
        let first_id = (crate::protocol::exchange::tools::random_u32() >> 2) as i32;
        super::exchange::new(start.params, password, first_id, start.deadline)
    }
}
