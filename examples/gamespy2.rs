//! A GameSpy 2 client and server for the interop check (`.ci/interop/qstat-gamespy2.sh`).
//!
//! ```text
//! gamespy2 serve [NAME MAP PLAYERS MAX [counts|nocounts]]
//!     runs the simulator on 127.0.0.1, prints its address, serves until killed
//! gamespy2 query HOST:PORT
//!     one exchange with our codec; prints name=, map=, online=, max=, players=
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy2::{to_status, Exchange, Request, Sections, Step, Want};
use gameserver_exporter::simulate::gamespy2::{spawn, Gamespy2Config};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::net::UdpSocket;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]).await,
        Some("query") => {
            let addr: SocketAddr = args.get(1).ok_or("query needs HOST:PORT")?.parse()?;
            query(addr).await
        }
        _ => Err(
            "usage: gamespy2 serve [NAME MAP PLAYERS MAX [nocounts]] | gamespy2 query HOST:PORT"
                .into(),
        ),
    }
}

async fn serve(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let players: usize = arg(2, "3").parse()?;
    let world = World::new(WorldState {
        name: arg(0, "Simulated GameSpy 2 Server"),
        map: arg(1, "Hue 1968"),
        game: "conquest".into(),
        version: "v1.21".into(),
        max: arg(3, "64").parse()?,
        players: (0..players)
            .map(|i| (format!("player{i}"), i as i32, 0.0))
            .collect(),
        ..WorldState::default()
    });
    let config = Gamespy2Config {
        omit_counts: arg(4, "counts") == "nocounts",
        ..Gamespy2Config::default()
    };
    let server = spawn(world, config).await?;
    println!("{}", server.addr);
    std::future::pending::<()>().await;
    drop(server);
    Ok(())
}

async fn query(addr: SocketAddr) -> Result<(), Box<dyn std::error::Error>> {
    let sock = UdpSocket::bind(if addr.is_ipv4() {
        "0.0.0.0:0"
    } else {
        "[::]:0"
    })
    .await?;
    sock.connect(addr).await?;
    let request = Request {
        id: *b"gse2",
        sections: Sections::ALL,
    };
    let mut x = Exchange::new(request, Duration::from_secs(2));
    let started = Instant::now();
    let mut step = x.start(started);
    let mut buf = vec![0u8; 65_536];
    let reply = loop {
        step = match step {
            Step::Send(bytes) => {
                sock.send(&bytes).await?;
                x.on_tick(Instant::now())
            }
            Step::WaitUntil(at) => {
                let wait = at.saturating_duration_since(Instant::now());
                match tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    Ok(n) => x.on_datagram(&buf[..n?], Instant::now()),
                    Err(_) => x.on_tick(Instant::now()),
                }
            }
            Step::Done(reply) => break reply,
            Step::Failed(e) => return Err(e.into()),
        }
    };
    let want = Want {
        players: true,
        ..Want::default()
    };
    let s = to_status(&reply, want, started.elapsed());
    println!("name={}", s.name);
    println!("map={}", s.map.unwrap_or_default());
    println!("online={}", s.online);
    println!("max={}", s.max);
    let names: Vec<String> = s
        .players
        .unwrap_or_default()
        .into_iter()
        .map(|p| p.name)
        .collect();
    println!("players={}", names.join(","));
    Ok(())
}
