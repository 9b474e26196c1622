//! `gameserver-exporter demo`: simulators of every protocol on 127.0.0.1, players coming and
//! going so graphs move, and the exporter polling them every [`DEMO_INTERVAL`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use crate::config::cidr::IpNet;
use crate::config::{self, Config};
use crate::games::Game;
use crate::secret::Secret;
use crate::simulate::{self, SimServer, World, WorldState};
use crate::target::{Address, Credentials, PlayerSeries, Protocol, Rcon, Target, TlsMode};

/// How often the demo polls its simulators.
pub const DEMO_INTERVAL: Duration = Duration::from_secs(5);
/// How often a player joins or leaves.
const CHURN_EVERY: Duration = Duration::from_secs(2);

/// What `demo` was asked for beyond its simulators.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// `--allow-probes`: ad-hoc probes of loopback addresses (`/probe?module=M&target=…`,
    /// `/probe?protocol=P&address=…`), as `probe_allowed_networks` allows them in a real
    /// configuration, so docs/blackbox-probes.md can be tried against the simulators.
    pub allow_probes: bool,
}

/// A2S games whose health (or player names) only their admin console gives: `demo` adds one
/// target per title, `demo-<id>`, polled as `game = "<id>"` with `rcon`, so the dashboard's
/// health panels have every console's families (Rust's WebRCON, 7 Days to Die's telnet, the
/// Source RCON of Project Zomboid and Conan Exiles; srcds health is `demo-a2s`'s own).
pub const CONSOLE_TITLES: [&str; 4] = ["rust", "sdtd", "projectzomboid", "conanexiles"];

/// The simulators of one demo, with the worlds that drive them.
pub struct Demo {
    pub servers: Vec<(Protocol, World, SimServer)>,
    /// [`CONSOLE_TITLES`] that started: each an A2S simulator with its console.
    pub titles: Vec<(&'static Game, World, SimServer)>,
}

/// Starts one simulator per protocol (each simulator's `spawn_demo` dresses its world as a
/// typical server of its kind). A simulator that cannot start is reported and left out, so
/// the others still demo.
pub async fn spawn_all() -> std::io::Result<Demo> {
    let mut servers = Vec::new();
    for p in Protocol::ALL {
        let world = World::default();
        match (simulate::simulator(p).spawn_demo)(world.clone()).await {
            Ok(server) => servers.push((p, world, server)),
            Err(e) => {
                tracing::warn!(protocol = %p, error = %e, "simulator did not start; left out")
            }
        }
    }
    if servers.is_empty() {
        return Err(std::io::Error::other("no simulator could start"));
    }
    let mut titles = Vec::new();
    for game in CONSOLE_TITLES.iter().filter_map(|id| Game::find(id)) {
        let world = World::new(WorldState {
            name: format!("Demo {}", game.name),
            game: game.name.to_string(),
            max: 50,
            // Names from the first poll on: Project Zomboid's and Conan's come from the console.
            players: vec![("alice".into(), 3, 60.0), ("bob".into(), 1, 30.0)],
            ..WorldState::default()
        });
        let console = game.quirks.console;
        match simulate::titles::spawn_demo(game.id, console, world.clone()).await {
            Ok(server) => titles.push((game, world, server)),
            Err(e) => {
                tracing::warn!(game = game.id, error = %e, "simulator did not start; left out")
            }
        }
    }
    Ok(Demo { servers, titles })
}

impl Demo {
    /// The exporter configuration polling these simulators.
    pub fn config(&self, listen: SocketAddr, options: Options) -> Config {
        let mut c = config::parse("demo", "").expect("the empty configuration is valid");
        c.exporter.listen = listen;
        if options.allow_probes {
            // Loopback only: the simulators' addresses, never anyone else's.
            c.exporter.probe_allowed_networks = ["127.0.0.0/8", "::1/128"]
                .iter()
                .filter_map(|n| IpNet::parse(n))
                .collect();
        }
        c.exporter.interval = DEMO_INTERVAL;
        c.exporter.timeout = Duration::from_secs(2);
        for (p, _, server) in &self.servers {
            let address = Address::new(server.addr.ip().to_string(), Some(server.addr.port()));
            // Every opt-in series on, so the dashboard's player and rule panels have data.
            let sim = simulate::simulator(*p);
            let rules = sim.demo_rules;
            // A server that answers only after a login (Factorio's RCON): the demo knows its
            // password, as an operator's `password_file` would hold it.
            let mut credentials = sim.password.map(Credentials::password);
            // A console beside the query port (Minecraft's RCON): server health.
            if let Some((console, pw)) = server.rcon {
                let c = credentials.get_or_insert_with(Credentials::default);
                c.rcon = Some(Rcon::with_password(console.port(), pw));
            }
            let credentials = credentials.map(Arc::new);
            let mut target = Target {
                labels: [("env".to_string(), "demo".to_string())].into(),
                players: Some(PlayerSeries::default()),
                rules: rules.iter().map(|r| r.to_string()).collect(),
                credentials,
                ..c.exporter.target(format!("demo-{p}"), *p, address)
            };
            if *p == Protocol::Satisfactory {
                // Its HTTPS API, as an operator sets it up: the token and the pinned
                // self-signed certificate.
                target.credentials = Some(Arc::new(Credentials {
                    api_token: Some(Secret::new(simulate::satisfactory::DEMO_TOKEN)),
                    tls_pin: Some(simulate::satisfactory::demo_tls().1),
                    ..Credentials::default()
                }));
                target.tls = TlsMode::Pinned;
            }
            c.targets.push(Arc::new(target));
        }
        for (game, _, server) in &self.titles {
            let address = Address::new(server.addr.ip().to_string(), Some(server.addr.port()));
            // The console in the dialect the game's preset picks, as `check-config` sets it.
            let credentials = server.rcon.map(|(console, pw)| Credentials {
                rcon: Some(Rcon::with_password(console.port(), pw).speaking(game.quirks.console)),
                ..Credentials::default()
            });
            let target = Target {
                labels: [("env".to_string(), "demo".to_string())].into(),
                players: Some(PlayerSeries::default()),
                game: Some(game.id),
                credentials: credentials.map(Arc::new),
                ..c.exporter
                    .target(format!("demo-{}", game.id), Protocol::A2s, address)
            };
            c.targets.push(Arc::new(target));
        }
        c
    }

    /// Players join and leave every couple of seconds, between 0 and the world's capacity.
    pub fn churn(&self) -> tokio::task::JoinHandle<()> {
        let servers = self.servers.iter().map(|(_, w, _)| w.clone());
        let titles = self.titles.iter().map(|(_, w, _)| w.clone());
        let worlds: Vec<World> = servers.chain(titles).collect();
        tokio::spawn(async move {
            let mut tick = 0u64;
            let mut ticker = tokio::time::interval(CHURN_EVERY);
            loop {
                ticker.tick().await;
                tick += 1;
                for (i, w) in worlds.iter().enumerate() {
                    w.update(|s| churn_step(s, tick + i as u64 * 7));
                }
            }
        })
    }
}

/// One step of a deterministic wave: mostly joins while rising, mostly leaves while falling.
pub fn churn_step(s: &mut WorldState, tick: u64) {
    let cap = s.max.saturating_sub(s.bots).min(24) as usize;
    let rising = (tick / 15).is_multiple_of(2);
    let n = s.players.len();
    if (rising && n < cap) || n == 0 {
        let id = tick % 1000;
        s.players
            .push((format!("player{id}"), (tick % 50) as i32, 0.0));
    } else if n > 0 {
        s.players.remove((tick as usize) % n);
    }
    for p in &mut s.players {
        p.2 += CHURN_EVERY.as_secs_f32();
        p.1 += (tick % 3) as i32;
    }
}

/// Runs the demo on `listen` until `shutdown` resolves. Prints the metrics URL once listening.
pub async fn run(
    listen: SocketAddr,
    options: Options,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let listener = TcpListener::bind(listen).await?;
    run_on(listener, options, shutdown).await
}

/// [`run`] on a listener the caller bound (tests use port 0).
pub async fn run_on(
    listener: TcpListener,
    options: Options,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let demo = spawn_all().await?;
    let local = listener.local_addr()?;
    let config = demo.config(local, options);
    for (p, _, s) in &demo.servers {
        println!("{p:>16} simulator on {}", s.addr);
    }
    // Worded apart from the lines above: scripts count those as one per protocol.
    for (game, _, s) in &demo.titles {
        let console = s.rcon.map(|(c, _)| c.to_string()).unwrap_or_default();
        println!(
            "{:>16} game on {}, its console on {console}",
            game.id, s.addr
        );
    }
    println!("metrics: http://{local}/metrics");
    if options.allow_probes {
        if let Some((p, _, s)) = demo.servers.first() {
            println!(
                "probes of 127.0.0.0/8 allowed, e.g. http://{local}/probe?module={p}&target={}",
                s.addr
            );
        }
    }
    let churn = demo.churn();
    let result = crate::serve::run(
        config,
        None,
        Arc::new(crate::scheduler::QueryProber),
        listener,
        shutdown,
    )
    .await;
    churn.abort();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The player count rises to the cap, then falls, and never exceeds capacity.
    #[test]
    fn churn_moves_within_bounds() {
        let mut w = WorldState {
            max: 50,
            ..WorldState::default()
        };
        let mut counts = Vec::new();
        for tick in 0..60 {
            churn_step(&mut w, tick);
            counts.push(w.players.len());
        }
        assert!(counts.iter().all(|&n| n <= 24));
        assert_eq!(counts[14], 15);
        assert!(counts[29] < counts[14]);
    }
}
