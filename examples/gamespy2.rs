//! A GameSpy 2 server with chosen values for the interop check
//! (`.ci/interop/qstat-gamespy2.sh`), which reads it with qstat and with
//! `gameserver-exporter query gamespy2`.
//!
//! ```text
//! gamespy2 serve [NAME MAP PLAYERS MAX [counts|nocounts]]
//!     runs the simulator on 127.0.0.1, prints its address, serves until killed
//! ```

use gameserver_exporter::simulate::gamespy2::{spawn, Gamespy2Config};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]).await,
        _ => Err("usage: gamespy2 serve [NAME MAP PLAYERS MAX [counts|nocounts]]".into()),
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
