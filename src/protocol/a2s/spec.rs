//! Valve A2S: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::{A2s, Memory as Remembered};
use super::health::Script;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, RconHealth, Spec, Start};

/// Source's default game and query port. `rcon` (optional): server health over the
/// console's Source RCON after each good poll (`stats`), on the game port by default as
/// srcds listens for RCON on its game port over TCP.
pub const SPEC: Spec = Spec {
    credential_keys: &[CredentialKey::Rcon],
    ..Spec::udp("a2s", 27015)
};

pub type Exchange = A2s;

impl Build for A2s {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        let remembered = recalled::<Remembered>(memory);
        A2s::new(start.params, remembered.challenge, start.deadline)
            .with_list_challenge(remembered.list_challenge)
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(Remembered {
            challenge: self.challenge(),
            list_challenge: self.list_challenge(),
        });
    }

    fn health_over_rcon(start: &Start<'_>) -> Option<RconHealth> {
        // srcds takes RCON over TCP on its game port: the query port's number by default.
        let port = start.peer.port();
        RconHealth::from_rcon(start, port, Box::new(Script))
    }
}
