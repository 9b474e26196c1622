//! Valve A2S: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::console_players::{Console, Script as PlayersScript};
use super::exchange::{A2s, Memory as Remembered};
use super::health::Script;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, RconHealth, Spec, Start};

/// Source's default game and query port. `rcon` (optional): server health over the
/// console's Source RCON after each good poll (`stats`, else `status`), on the game port by
/// default as srcds listens for RCON on its game port over TCP. The target's game picks the
/// console's commands where they differ: Project Zomboid's `players` and Conan Exiles'
/// `listplayers` give the names their A2S replies hide.
pub const SPEC: Spec = Spec {
    credential_keys: &[CredentialKey::Rcon],
    ..Spec::udp("a2s", 27015)
};

pub type Exchange = A2s;

/// The game presets whose consoles answer other commands than srcds' (`games::list`).
const ZOMBOID: &str = "projectzomboid";
const CONAN: &str = "conanexiles";

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
        match start.game {
            // `RCONPort` in servertest.ini, 27015 unless changed.
            Some(ZOMBOID) => {
                let script = Box::new(PlayersScript(Console::Zomboid));
                RconHealth::from_rcon(start, 27015, script)
            }
            // `RconPort` in Game.ini's [RconPlugin], 25575 unless changed.
            Some(CONAN) => {
                let script = Box::new(PlayersScript(Console::Conan));
                RconHealth::from_rcon(start, 25575, script)
            }
            // srcds takes RCON over TCP on its game port: the query port's number by default.
            _ => RconHealth::from_rcon(start, start.peer.port(), Box::new(Script)),
        }
    }
}
