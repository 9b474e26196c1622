//! Serves one protocol's simulator for third-party clients (`.ci/interop/*.sh`) until killed,
//! after printing `addr 127.0.0.1:PORT`.
//!
//! Usage: sim_serve PROTOCOL [--idle]
//! The world: "Interop <protocol>", map "interop-map", game "Interop", 3 players of 16 slots.
//! TeamSpeak's is named "Interop teamspeak3 | EU/West" (every escape a name needs) and runs
//! version "3.13.7 [Build: 1655727713]".
//! `--idle`: Satisfactory reports the idle state (no save loaded) instead of playing.
//! `--api TOKEN`: Satisfactory also serves its HTTPS API (the demo's self-signed certificate,
//! printed as `sha256 <hex>`) accepting `Authorization: Bearer TOKEN`.
//! `--code CODE`: Farming Simulator's feed answers only with `?code=CODE`.
//! `--login PASSWORD`: the Nadeo server wants `Authenticate("User", PASSWORD)` before any read.

use gameserver_exporter::protocol::satisfactory::ServerState;
use gameserver_exporter::simulate::{
    self, farmingsimulator, nadeo, satisfactory, World, WorldState,
};
use gameserver_exporter::target::Protocol;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let id = args.get(1).map(String::as_str).unwrap_or("");
    let protocol = Protocol::from_name(id).ok_or_else(|| format!("unknown protocol {id:?}"))?;
    let world = World::new(WorldState {
        name: format!("Interop {id}"),
        map: "interop-map".into(),
        game: "Interop".into(),
        version: "385883".into(),
        max: 16,
        bots: 0,
        players: vec![
            ("alice".into(), 3, 60.0),
            ("bob".into(), 2, 30.0),
            ("carol".into(), 1, 10.0),
        ],
        rules: Vec::new(),
        password: false,
    });
    if protocol == Protocol::Teamspeak3 {
        world.update(|w| {
            w.name = "Interop teamspeak3 | EU/West".into();
            w.version = "3.13.7 [Build: 1655727713]".into();
        });
    }
    let idle = args.iter().any(|a| a == "--idle");
    let token = args
        .iter()
        .position(|a| a == "--api")
        .and_then(|i| args.get(i + 1));
    let code = args
        .iter()
        .position(|a| a == "--code")
        .and_then(|i| args.get(i + 1));
    let login = args
        .iter()
        .position(|a| a == "--login")
        .and_then(|i| args.get(i + 1));
    let server = if let (Protocol::Nadeo, Some(password)) = (protocol, login) {
        let config = nadeo::NadeoConfig {
            login: Some(("User".into(), password.clone())),
            ..Default::default()
        };
        nadeo::spawn(world, config).await?
    } else if let (Protocol::Farmingsimulator, Some(code)) = (protocol, code) {
        let config = farmingsimulator::FarmingSimulatorConfig {
            code: Some(code.clone()),
            ..Default::default()
        };
        farmingsimulator::spawn(world, config).await?
    } else if protocol == Protocol::Satisfactory && (idle || token.is_some()) {
        let (tls, pin) = satisfactory::demo_tls();
        if token.is_some() {
            let hex: String = pin.iter().map(|b| format!("{b:02x}")).collect();
            println!("sha256 {hex}");
        }
        let config = satisfactory::SatisfactoryConfig {
            state: if idle {
                ServerState::Idle
            } else {
                ServerState::Playing
            },
            api: token.map(|t| satisfactory::ApiConfig::new(t.as_str(), tls)),
            ..Default::default()
        };
        satisfactory::spawn(world, config).await?
    } else {
        (simulate::simulator(protocol).spawn)(world).await?
    };
    println!("addr {}", server.addr);
    std::future::pending::<()>().await;
    Ok(())
}
