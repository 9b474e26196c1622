//! Serves the simulated id Tech 4 server on 127.0.0.1 until killed, for the qstat interop
//! check (`.ci/interop/qstat-doom3.sh`).
//!
//! Usage: sim_doom3 [doom3|quake4|etqw|wolfenstein]
//! Prints `addr=HOST:PORT`, then what our own decoder reads from it:
//! `ours name=... map=... players=N max=M`, then serves until the process is killed.

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::doom3::{self, Dialect, Poll, Step};
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

    let sock = tokio::net::UdpSocket::bind("127.0.0.1:0").await?;
    sock.connect(server.addr).await?;
    let start = Instant::now();
    let (mut poll, request) = Poll::start(dialect, 0x5EED_0001, start + Duration::from_secs(3));
    sock.send(&request).await?;
    let mut buf = vec![0u8; 65_536];
    let reply = loop {
        let now = Instant::now();
        match poll.step(now) {
            Step::Done(r) => break r,
            Step::Failed(e) => return Err(e.into()),
            Step::Wait(until) => {
                let wait = until.saturating_duration_since(now);
                if let Ok(Ok(n)) = tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    poll.receive(&buf[..n]);
                }
            }
        }
    };
    let s = doom3::to_status(&reply, dialect, start.elapsed(), false);
    println!(
        "ours name={} map={} players={} max={}",
        s.name,
        s.map.unwrap_or_default(),
        s.online,
        s.max
    );
    std::future::pending::<()>().await;
    Ok(())
}
