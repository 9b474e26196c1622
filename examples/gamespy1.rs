//! A GameSpy 1 server with chosen values for the interop check
//! (`.ci/interop/qstat-gamespy1.sh`), which reads it with qstat and with
//! `gameserver-exporter query gamespy1`.
//!
//! ```text
//! gamespy1 serve [NAME MAP PLAYERS MAX [unreal|first|bare]]
//!     runs the simulator on 127.0.0.1, prints its address, serves until killed
//! ```

use gameserver_exporter::protocol::gamespy1::Style;
use gameserver_exporter::simulate::gamespy1::{spawn, Gamespy1Config};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("serve") => serve(&args[1..]).await,
        _ => Err("usage: gamespy1 serve [NAME MAP PLAYERS MAX [unreal|first|bare]]".into()),
    }
}

async fn serve(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let arg = |i: usize, default: &str| args.get(i).cloned().unwrap_or_else(|| default.to_string());
    let players: usize = arg(2, "3").parse()?;
    let world = World::new(WorldState {
        name: arg(0, "Simulated GameSpy Server"),
        map: arg(1, "DM-Deck16]["),
        game: "DeathMatchPlus".into(),
        version: "451".into(),
        max: arg(3, "16").parse()?,
        players: (0..players)
            .map(|i| (format!("player{i}"), i as i32, 0.0))
            .collect(),
        ..WorldState::default()
    });
    let style = match arg(4, "unreal").as_str() {
        "first" => Style::QueryIdFirst,
        "bare" => Style::Bare,
        _ => Style::Unreal,
    };
    let config = Gamespy1Config {
        style,
        ..Gamespy1Config::default()
    };
    let server = spawn(world, config).await?;
    println!("{}", server.addr);
    std::future::pending::<()>().await;
    drop(server);
    Ok(())
}
