//! A simulated Source RCON server (Factorio answers) for third-party clients
//! (`.ci/interop/rcon.sh`): serves until killed, after printing its address, its password
//! file and what our own RCON client reads from it.
//!
//! Usage: sim_rcon [srcds|minecraft|factorio] PASSWORD_FILE
//! Prints `addr 127.0.0.1:PORT`, then `ours online=N players=a|b|...`, then serves.
//!
//! Usage: sim_rcon minecraft-health PASSWORD_FILE
//! A Minecraft server (status ping) with a vanilla RCON console beside it answering
//! `tick query`: prints `addr 127.0.0.1:PORT` (the status ping) and `rcon 127.0.0.1:PORT`,
//! then serves.

use std::time::Duration;

use gameserver_exporter::protocol::exchange::Params;
use gameserver_exporter::protocol::factorio::Script;
use gameserver_exporter::protocol::rcon::exchange::Rcon;
use gameserver_exporter::query::driver::{drive, Pacing};
use gameserver_exporter::query::transport::TcpLink;
use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::rcon::{spawn, Flavour, RconConfig};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let flavour = match args.get(1).map(String::as_str) {
        Some("srcds") => Flavour::Srcds,
        Some("minecraft") => Flavour::Minecraft,
        _ => Flavour::Factorio,
    };
    let file = args.get(2).ok_or("usage: sim_rcon FLAVOUR PASSWORD_FILE")?;
    let password = Secret::read(std::path::Path::new(file))?.secret;
    if args.get(1).map(String::as_str) == Some("minecraft-health") {
        return minecraft_health(password).await;
    }
    let world = World::new(WorldState {
        players: (0..4).map(|i| (format!("engineer{i}"), 0, 0.0)).collect(),
        ..WorldState::default()
    });
    let config = RconConfig {
        flavour,
        password: password.expose().to_string(),
        ..RconConfig::default()
    };
    let server = spawn(world, config).await?;
    println!("addr {}", server.addr);

    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    let params = Params {
        players: true,
        ..Params::default()
    };
    let mut x = Rcon::new(Script { params }, password, params, 1, deadline.into_std());
    let mut link = TcpLink::new(server.addr);
    let s = drive(&mut x, &mut link, deadline, Pacing::default(), None).await?;
    let names: Vec<_> = s
        .players
        .iter()
        .flatten()
        .map(|p| p.name.as_str())
        .collect();
    println!("ours online={} players={}", s.online, names.join("|"));
    std::future::pending::<()>().await;
    Ok(())
}

/// A Minecraft server and its vanilla RCON console (two players: the simulator's tick times
/// follow the player count).
async fn minecraft_health(password: Secret) -> Result<(), Box<dyn std::error::Error>> {
    use gameserver_exporter::simulate::minecraft;
    let world = World::new(WorldState {
        players: vec![("Alex".into(), 0, 0.0), ("Steve".into(), 0, 0.0)],
        ..WorldState::default()
    });
    let server = minecraft::spawn_demo(world.clone()).await?;
    let config = RconConfig {
        flavour: Flavour::Minecraft,
        password: password.expose().to_string(),
        respond: minecraft::vanilla_console,
        ..RconConfig::default()
    };
    let console = spawn(world, config).await?;
    println!("addr {}", server.addr);
    println!("rcon {}", console.addr);
    std::future::pending::<()>().await;
    Ok(())
}
