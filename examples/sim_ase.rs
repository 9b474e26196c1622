//! A simulated All-Seeing Eye (Multi Theft Auto) server for third-party clients
//! (`.ci/interop/qstat-ase.sh` compares qstat with `gameserver-exporter query ase --json`
//! against it): serves until killed, after printing its address.
//!
//! Usage: sim_ase [--players N]
//! Prints `addr 127.0.0.1:PORT`. The players are `driver0`, `driver1`... with score 2 × i.

use gameserver_exporter::simulate::ase::{spawn, AseConfig};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let players = args
        .iter()
        .position(|a| a == "--players")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(5);
    let world = World::new(WorldState {
        name: "Sim MTA interop".into(),
        map: "San Andreas".into(),
        game: "Freeroam".into(),
        version: "1.6".into(),
        max: 32,
        players: (0..players)
            .map(|i| (format!("driver{i}"), i as i32 * 2, 0.0))
            .collect(),
        rules: vec![("weather".into(), "1".into())],
        ..WorldState::default()
    });
    let server = spawn(world, AseConfig::default()).await?;
    println!("addr {}", server.addr);

    // Serve until killed.
    std::future::pending::<()>().await;
    drop(server);
    Ok(())
}
