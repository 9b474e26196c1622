//! Serves the simulated id Tech 4 server on 127.0.0.1 until killed, for the qstat interop
//! check (`.ci/interop/qstat-doom3.sh`).
//!
//! Usage: sim_doom3 [doom3|quake4|etqw|wolfenstein]
//! Prints `addr=HOST:PORT`, then serves until the process is killed; the script reads it
//! with qstat and with our own CLI (`gameserver-exporter query doom3 ADDR --json`), which
//! tells the layout from the reply.

use gameserver_exporter::protocol::doom3::Dialect;
use gameserver_exporter::simulate::doom3::{spawn, Doom3Config};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dialect = match std::env::args().nth(1).as_deref().unwrap_or("doom3") {
        "doom3" => Dialect::Doom3,
        "quake4" => Dialect::Quake4,
        "etqw" => Dialect::Etqw,
        "wolfenstein" => Dialect::Wolfenstein,
        other => return Err(format!("unknown dialect {other}").into()),
    };
    let world = World::new(WorldState {
        name: "Interop id Tech 4".into(),
        map: "game/mp/d3dm1".into(),
        game: "Deathmatch".into(),
        version: "DOOM 1.3.1".into(),
        max: 8,
        players: vec![("Marine".into(), 0, 0.0), ("Imp".into(), 0, 0.0)],
        ..WorldState::default()
    });
    let config = Doom3Config {
        dialect,
        ..Doom3Config::default()
    };
    let server = spawn(world, config).await?;
    println!("addr={}", server.addr);
    std::future::pending::<()>().await;
    Ok(())
}
