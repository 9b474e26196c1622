//! Serves the simulated Unreal 2 (UT2004) server on 127.0.0.1 until killed, for the qstat
//! interop check (`.ci/interop/qstat-unreal2.sh`).
//!
//! Prints `addr=HOST:PORT`, then serves until the process is killed; the script reads it
//! with qstat and with our own CLI (`gameserver-exporter query unreal2 ADDR --json`).

use gameserver_exporter::simulate::unreal2::{spawn, Unreal2Config};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let world = World::new(WorldState {
        name: "Interop UT2004".into(),
        map: "DM-Rankin".into(),
        game: "xDeathMatch".into(),
        max: 16,
        players: vec![("Malcolm".into(), 25, 0.0), ("Brock".into(), 17, 0.0)],
        rules: vec![("ServerMode".into(), "dedicated".into())],
        ..WorldState::default()
    });
    // No colour code in the name: qstat 2.17 skips one byte too many after a colour code
    // (docs/protocols/unreal2.md), so a coloured name would differ by its first letter.
    let server = spawn(world, Unreal2Config::default()).await?;
    println!("addr={}", server.addr);
    std::future::pending::<()>().await;
    Ok(())
}
