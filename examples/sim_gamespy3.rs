//! A simulated GameSpy 3 server for third-party clients (`.ci/interop/qstat-gamespy3.sh`
//! compares qstat with `gameserver-exporter query gamespy3 --json` against it): serves until
//! killed, after printing its address.
//!
//! Usage: sim_gamespy3 [--no-challenge] [--players N] [--part-len BYTES]
//! Prints `addr 127.0.0.1:PORT`. The players are `soldier0`, `soldier1`... with score 3 × i.

use gameserver_exporter::simulate::gamespy3::{spawn, Gs3Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flag = |name: &str| args.iter().any(|a| a == name);
    let value = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let players = value("--players").unwrap_or(5);
    let config = Gs3Config {
        part_len: value("--part-len").unwrap_or(1400),
        misbehaviour: if flag("--no-challenge") {
            Misbehaviour::NoHandshake
        } else {
            Misbehaviour::None
        },
    };
    let world = World::new(WorldState {
        name: "Sim BF2 interop".into(),
        map: "Strike At Karkand".into(),
        game: "battlefield2".into(),
        version: "1.5.3153-802.0".into(),
        max: 64,
        players: (0..players)
            .map(|i| (format!("soldier{i}"), i as i32 * 3, 0.0))
            .collect(),
        ..WorldState::default()
    });
    let server = spawn(world, config).await?;
    println!("addr {}", server.addr);
    // Serve until killed.
    std::future::pending::<()>().await;
    drop(server);
    Ok(())
}
