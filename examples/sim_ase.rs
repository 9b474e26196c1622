//! A simulated All-Seeing Eye (Multi Theft Auto) server for third-party clients
//! (`.ci/interop/qstat-ase.sh`): serves until killed, after printing its address and what our
//! own decoder reads from it.
//!
//! Usage: sim_ase [--players N]
//! Prints `addr 127.0.0.1:PORT`, then `ours name=... map=... online=N max=N players=a|b|...`.

use std::time::Duration;

use gameserver_exporter::protocol::ase::{self, to_status, Want};
use gameserver_exporter::simulate::ase::{spawn, AseConfig};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

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

    let sock = UdpSocket::bind("127.0.0.1:0").await?;
    sock.connect(server.addr).await?;
    sock.send(ase::REQUEST).await?;
    let mut buf = vec![0u8; 65_536];
    let n = tokio::time::timeout(Duration::from_secs(3), sock.recv(&mut buf)).await??;
    let reply = ase::decode_reply(&buf[..n])?;
    let s = to_status(
        &reply,
        Want {
            players: true,
            ..Want::default()
        },
        Duration::ZERO,
    );
    let names: Vec<_> = s
        .players
        .iter()
        .flatten()
        .map(|p| p.name.as_str())
        .collect();
    println!(
        "ours name={} map={} online={} max={} players={}",
        s.name,
        s.map.unwrap_or_default(),
        s.online,
        s.max,
        names.join("|")
    );
    // Serve until killed.
    std::future::pending::<()>().await;
    drop(server);
    Ok(())
}
