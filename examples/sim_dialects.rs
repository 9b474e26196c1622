//! A simulated game server with its admin console in a dialect of its own, for third-party
//! console clients (`.ci/interop/webrcon.sh, sdtd.sh`): serves until killed, after printing the
//! game's A2S address and the console's.
//!
//! Usage: sim_dialects rust|sdtd PASSWORD_FILE
//! A Rust server (A2S) and its WebRCON console (`serverinfo`), or a 7 Days to Die server
//! (A2S) and its telnet console (`mem`): prints `addr 127.0.0.1:PORT` (A2S) and
//! `rcon 127.0.0.1:PORT` (the console), then serves.

use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::{a2s, sdtd, webrcon, World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: sim_dialects rust|sdtd PASSWORD_FILE";
    let file = args.get(2).ok_or(usage)?;
    let password = Secret::read(std::path::Path::new(file))?.secret;
    let world = World::new(WorldState {
        name: "Interop Rust".into(),
        map: "Procedural Map".into(),
        game: "Rust".into(),
        max: 100,
        players: (0..3).map(|i| (format!("survivor{i}"), 0, 0.0)).collect(),
        ..WorldState::default()
    });
    let (game, console) = match args.get(1).map(String::as_str) {
        Some("rust") => {
            let config = webrcon::WebRconConfig {
                password: password.expose().to_string(),
                ..Default::default()
            };
            (
                a2s::spawn(world.clone(), Default::default()).await?,
                webrcon::spawn(world, config).await?,
            )
        }
        Some("sdtd") => {
            let config = sdtd::SdtdConfig {
                password: password.expose().to_string(),
                ..Default::default()
            };
            (
                a2s::spawn(world.clone(), Default::default()).await?,
                sdtd::spawn(world, config).await?,
            )
        }
        _ => return Err(usage.into()),
    };
    println!("addr {}", game.addr);
    println!("rcon {}", console.addr);
    std::future::pending::<()>().await;
    Ok(())
}
