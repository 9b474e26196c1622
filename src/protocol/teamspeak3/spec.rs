//! TeamSpeak 3 ServerQuery: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::{Login, Ts3, DEFAULT_USERNAME};
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// TeamSpeak bans an address sending about 10 commands within 3 s: a poll sends at most
/// [`super::MAX_COMMANDS_PER_POLL`] back to back, and polls keep [`super::MIN_GAP`] apart,
/// so no 3 s ever holds more than 8 (`tests::flood_ban_window`). Self-paced: the gap is between polls, not
/// between one poll's commands.
pub const SPEC: Spec = Spec {
    min_gap: super::MIN_GAP,
    self_paced: true,
    // An optional ServerQuery login (`login <username> <password>`).
    credential_keys: &[CredentialKey::Username, CredentialKey::Password],
    voice_port: Some(super::DEFAULT_VOICE_PORT),
    ..Spec::tcp("teamspeak3", 10011)
};

pub type Exchange = Ts3;

impl Build for Ts3 {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let voice_port = start.voice_port.unwrap_or(super::DEFAULT_VOICE_PORT);
        // A password logs in (as serveradmin unless a username is given); none: anonymous.
        let login = start.credentials.and_then(|c| {
            Some(Login {
                username: c
                    .username
                    .clone()
                    .unwrap_or_else(|| DEFAULT_USERNAME.into()),
                password: c.password.clone()?,
            })
        });
        Ts3::new(start.params, voice_port, login, start.deadline)
    }

    /// TeamSpeak's gap is between polls only (its commands go back to back, at most 4).
    fn poll_gap(spec: &Spec) -> Duration {
        spec.min_gap
    }

    /// TeamSpeak counts commands per client address: targets of several virtual servers on
    /// one host and `/probe` share its budget.
    const GAP_PER_SERVER: bool = true;
}
