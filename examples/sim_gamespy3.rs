//! A simulated GameSpy 3 server for third-party clients (`.ci/interop/qstat-gamespy3.sh`):
//! serves until killed, after printing its address and what our own exchange reads from it.
//!
//! Usage: sim_gamespy3 [--no-challenge] [--players N] [--part-len BYTES]
//! Prints `addr 127.0.0.1:PORT`, then `ours name=... map=... online=N max=N players=a|b|...`.

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy3::{to_status, Exchange, Options, Step, Want};
use gameserver_exporter::simulate::gamespy3::{spawn, Gs3Config, Misbehaviour};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

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

    let sock = UdpSocket::bind("127.0.0.1:0").await?;
    sock.connect(server.addr).await?;
    let options = Options {
        timeout: Duration::from_secs(3),
        ..Options::default()
    };
    let mut ex = Exchange::new(0x0102_0304, options, Instant::now());
    let (mut out, mut buf) = (Vec::new(), vec![0u8; 65_536]);
    let reply = loop {
        match ex.poll(Instant::now(), &mut out) {
            Step::Send(_) => {
                sock.send(&out).await?;
            }
            Step::Wait(until) => {
                let until = tokio::time::Instant::from_std(until);
                if let Ok(Ok(n)) = tokio::time::timeout_at(until, sock.recv(&mut buf)).await {
                    ex.handle(Instant::now(), &buf[..n]);
                }
            }
            Step::Done(reply) => break reply,
            Step::Failed(e) => return Err(e.into()),
        }
    };
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
