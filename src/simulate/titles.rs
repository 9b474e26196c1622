//! A2S games whose health and player names come from an admin console beside the query port
//! (Rust's WebRCON, 7 Days to Die's telnet, the Source RCON of Project Zomboid, Conan Exiles
//! and the srcds games): an A2S simulator with the matching console simulator attached, as
//! `demo` shows each title.

use std::io;

use super::rcon::{self, Flavour, RconConfig, Responder};
use super::sdtd::{self, SdtdConfig};
use super::webrcon::{self, WebRconConfig};
use super::{a2s, SimServer, World};
use crate::target::Console;

/// The password of every title's console in `demo`.
pub const DEMO_CONSOLE_PASSWORD: &str = "title-sim-console";

/// The A2S server for game `id`, with its console in `console`'s dialect (the one the game's
/// preset picks), logged in to with [`DEMO_CONSOLE_PASSWORD`].
pub async fn spawn_demo(id: &str, console: Console, world: World) -> io::Result<SimServer> {
    let password = DEMO_CONSOLE_PASSWORD.to_string();
    let sim = match console {
        Console::WebRcon => {
            let config = WebRconConfig {
                password,
                misbehaviour: webrcon::Misbehaviour::None,
            };
            webrcon::spawn(world.clone(), config).await?
        }
        Console::SdtdTelnet => {
            let config = SdtdConfig {
                password,
                misbehaviour: sdtd::Misbehaviour::None,
            };
            sdtd::spawn(world.clone(), config).await?
        }
        Console::Source => {
            let config = RconConfig {
                flavour: Flavour::Srcds,
                password,
                respond: source_responder(id),
                misbehaviour: rcon::Misbehaviour::None,
            };
            rcon::spawn(world.clone(), config).await?
        }
    };
    Ok(a2s::spawn_demo(world)
        .await?
        .with_rcon(sim, DEMO_CONSOLE_PASSWORD))
}

/// What a Source RCON console answers, by game: the commands each game's reader sends.
fn source_responder(id: &str) -> Responder {
    match id {
        "projectzomboid" => rcon::zomboid,
        "conanexiles" => rcon::conan,
        "counterstrike2" => rcon::cs2,
        _ => rcon::srcds,
    }
}
