//! The Source RCON consoles the health and player queries read, for third-party clients
//! (`.ci/interop/source-rcon.sh`): an Orange Box srcds (`stats`), CS2 (`status`), Project
//! Zomboid (`players`), Conan Exiles (`listplayers`) and ARK: Survival Ascended
//! (`ListPlayers`), each on its own 127.0.0.1 port with the password in PASSWORD_FILE. For
//! each it prints `console NAME PORT COMMAND`, then `ours NAME ...`: what our own scripts read
//! there, in the console's own units (two decimals), then serves until killed.
//!
//! Usage: sim_consoles PASSWORD_FILE

use std::time::Duration;

use gameserver_exporter::protocol::a2s::console_players::{Console, Script as Players};
use gameserver_exporter::protocol::a2s::health::Script as Health;
use gameserver_exporter::protocol::arkrcon;
use gameserver_exporter::protocol::exchange::Params;
use gameserver_exporter::protocol::rcon::exchange::{Rcon, Script};
use gameserver_exporter::query::driver::{drive, Pacing};
use gameserver_exporter::query::transport::TcpLink;
use gameserver_exporter::secret::Secret;
use gameserver_exporter::simulate::rcon::{self, spawn, Flavour, RconConfig, Responder};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Status;

/// One console: its name, the command the clients send, its replies, its RCON family, and
/// our script reading it.
type ConsoleSpec = (
    &'static str,
    &'static str,
    Responder,
    Flavour,
    Box<dyn Script>,
);

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let file = std::env::args()
        .nth(1)
        .ok_or("usage: sim_consoles PASSWORD_FILE")?;
    let password = Secret::read(std::path::Path::new(&file))?.secret;
    let world = World::new(WorldState {
        name: "Interop Consoles".into(),
        map: "de_train".into(),
        max: 24,
        bots: 1,
        players: vec![
            ("alice".into(), 3, 75.0),
            ("Bob Smith".into(), 1, 30.0),
            ("carol, jr".into(), 0, 5.0),
        ],
        ..WorldState::default()
    });
    let params = Params {
        players: true,
        ..Params::default()
    };
    let consoles: [ConsoleSpec; 5] = [
        (
            "srcds",
            "stats",
            rcon::srcds,
            Flavour::Srcds,
            Box::new(Health),
        ),
        ("cs2", "status", rcon::cs2, Flavour::Srcds, Box::new(Health)),
        (
            "zomboid",
            "players",
            rcon::zomboid,
            Flavour::Srcds,
            Box::new(Players(Console::Zomboid)),
        ),
        (
            "conan",
            "listplayers",
            rcon::conan,
            Flavour::Srcds,
            Box::new(Players(Console::Conan)),
        ),
        (
            "asa",
            "ListPlayers",
            rcon::asa,
            Flavour::Factorio,
            Box::new(arkrcon::Script { params }),
        ),
    ];
    let mut servers: Vec<SimServer> = Vec::new();
    for (name, command, respond, flavour, script) in consoles {
        let config = RconConfig {
            flavour,
            password: password.expose().to_string(),
            respond,
            ..RconConfig::default()
        };
        let server = spawn(world.clone(), config).await?;
        println!("console {name} {} {command}", server.addr.port());
        let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
        let mut x = Rcon::new(script, password.clone(), params, 1, deadline.into_std());
        let mut link = TcpLink::new(server.addr);
        let s = drive(&mut x, &mut link, deadline, Pacing::default(), None).await?;
        println!("ours {name} {}", summary(name, &s));
        servers.push(server);
    }
    std::future::pending::<()>().await;
    Ok(())
}

/// What a console's reply says, as the interop script's clients print it.
fn summary(name: &str, s: &Status) -> String {
    let names = || {
        let list: Vec<&str> = s
            .players
            .iter()
            .flatten()
            .map(|p| p.name.as_str())
            .collect();
        list.join("|")
    };
    match name {
        "srcds" => {
            let h = s.health.as_deref().copied().unwrap_or_default();
            let v = |x: Option<f64>, scale: f64| format!("{:.2}", x.unwrap_or(-1.0) / scale);
            format!(
                "fps={} cpu={} in={} out={} uptime={}",
                v(h.frame_rate_hertz, 1.0),
                v(h.cpu_usage_ratio, 0.01),
                v(h.network_receive_bytes_per_second, 1024.0),
                v(h.network_transmit_bytes_per_second, 1024.0),
                v(h.uptime_seconds, 60.0),
            )
        }
        "cs2" => format!("bots={} names={}", s.bots.unwrap_or(0), names()),
        "asa" => format!("online={} names={}", s.online, names()),
        _ => format!("names={}", names()),
    }
}
