//! A simulated TShock or Palworld REST API for third-party clients
//! (`.ci/interop/terraria.sh`, `.ci/interop/palworld.sh`): serves until killed, after printing
//! its address.
//!
//! Usage: sim_http terraria|palworld [--password PW]
//! Prints `addr 127.0.0.1:PORT`.

use gameserver_exporter::simulate::palworld::{self, PalworldConfig};
use gameserver_exporter::simulate::terraria::{self, TerrariaConfig};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let password = args
        .iter()
        .position(|a| a == "--password")
        .and_then(|i| args.get(i + 1))
        .cloned();
    let players = ["Alice", "Bob", "Carol"].map(|n| (n.to_string(), 4, 0.0));
    let world = World::new(WorldState {
        name: "Sim HTTP interop".into(),
        map: "Forest of Dreams".into(),
        version: "v1.4.4.9".into(),
        max: 16,
        players: players.to_vec(),
        ..WorldState::default()
    });
    let server = match args.get(1).map(String::as_str) {
        Some("terraria") => {
            let config = TerrariaConfig {
                token: password,
                ..TerrariaConfig::default()
            };
            terraria::spawn(world, config).await?
        }
        Some("palworld") => {
            let config = PalworldConfig {
                password,
                ..PalworldConfig::default()
            };
            palworld::spawn(world, config).await?
        }
        _ => return Err("usage: sim_http terraria|palworld [--password PW]".into()),
    };
    println!("addr {}", server.addr);
    std::future::pending::<()>().await;
    Ok(())
}
