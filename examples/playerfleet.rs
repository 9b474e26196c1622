//! A fleet of A2S simulators with full servers, for measuring per-player series
//! (`benches/players.sh`): N servers of P players each (names, scores and connection times
//! that change slowly), and two exporter configs over them, one with `players = true` on every
//! target and one without.
//!
//! Usage: playerfleet <servers> <players> <out-dir> [interval]
//! Writes <out-dir>/on.toml, <out-dir>/off.toml, then <out-dir>/ready; serves until killed.

use std::fmt::Write as _;
use std::path::PathBuf;

use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let servers: usize = args.get(1).map_or(Ok(1000), |s| s.parse())?;
    let players: usize = args.get(2).map_or(Ok(20), |s| s.parse())?;
    let out = PathBuf::from(args.get(3).map_or("/tmp/playerfleet", String::as_str));
    let interval = args.get(4).map_or("5s", String::as_str).to_string();
    std::fs::create_dir_all(&out)?;

    let mut running: Vec<SimServer> = Vec::with_capacity(servers);
    let mut on = format!("[exporter]\ninterval = \"{interval}\"\ntimeout = \"2s\"\n\n");
    let mut off = on.clone();
    for i in 0..servers {
        let world = World::new(WorldState {
            name: format!("fleet {i}"),
            max: players as u32 + 4,
            players: (0..players)
                .map(|p| (format!("player-{i}-{p}"), (p * 3) as i32, 60.0 * p as f32))
                .collect(),
            ..WorldState::default()
        });
        let server = spawn(world, A2sConfig::default()).await?;
        let head = format!(
            "[[target]]\nname = \"f{i:05}\"\nprotocol = \"a2s\"\naddress = \"{}\"\n",
            server.addr
        );
        let _ = writeln!(on, "{head}players = true");
        off.push_str(&head);
        running.push(server);
    }
    std::fs::write(out.join("on.toml"), on)?;
    std::fs::write(out.join("off.toml"), off)?;
    std::fs::write(out.join("ready"), "ready\n")?;
    eprintln!("playerfleet: {servers} servers of {players} players up");
    std::future::pending::<()>().await;
    Ok(())
}
