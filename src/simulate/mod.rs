//! In-process servers for every protocol, on real sockets bound to 127.0.0.1 port 0. They
//! serve `demo` (with players that come and go) and the tests (with knobs for misbehaviour).
//!
//! Each protocol module offers `spawn(world, config) -> io::Result<SimServer>` and
//! `spawn_demo(world)`; the server runs until its [`SimServer`] is dropped. [`simulator`] is
//! the one table from a [`Protocol`] to its simulator, so `demo` and the tests that cover every
//! protocol dispatch through it instead of naming each one.

pub mod a2s;
pub mod arkrcon;
pub mod armagetron;
pub mod ase;
pub mod assettocorsa;
pub mod battlefield;
pub mod bedrock;
pub mod buildandshoot;
pub mod churn;
pub mod cs2d;
pub mod datagrams;
pub mod doom3;
pub mod eco;
pub mod eldewrito;
pub mod factorio;
pub mod farmingsimulator;
pub mod ffow;
pub mod fivem;
pub mod gamespy1;
pub mod gamespy2;
pub mod gamespy3;
pub mod hexen2;
pub mod hostile;
pub mod http;
pub mod hytale;
pub mod jc2mp;
pub mod json_page;
pub mod kspdmp;
pub mod mcquery;
pub mod minecraft;
pub mod mumble;
pub mod nadeo;
pub mod openttd;
pub mod palworld;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod rcon;
pub mod rfactor;
pub mod samp;
pub mod satisfactory;
pub mod sdtd;
pub mod starmade;
pub mod tcp;
pub mod teamspeak2;
pub mod teamspeak3;
pub mod teeworlds;
pub mod terraria;
pub mod titles;
pub mod unreal2;
pub mod vcmp;
pub mod webrcon;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::task::JoinHandle;

use crate::target::Protocol;

/// A simulator starting up.
pub type Spawning = Pin<Box<dyn Future<Output = io::Result<SimServer>> + Send>>;

/// How a simulator is started on a world.
pub type SpawnFn = fn(World) -> Spawning;

/// One protocol's simulator, as `demo` and the every-protocol tests use it.
#[derive(Clone, Copy)]
pub struct Simulator {
    pub protocol: Protocol,
    /// The simulator with its default configuration, serving the world as given.
    pub spawn: SpawnFn,
    /// The simulator dressed as a typical server of its kind (it rewrites the world), with
    /// players that come and go: what `demo` runs.
    pub spawn_demo: SpawnFn,
    /// Rules of the demo world that `demo` publishes as series, so the dashboard's rule
    /// panels have data.
    pub demo_rules: &'static [&'static str],
    /// The hostile fleet's servers of this protocol: each misbehaviour the simulator knows,
    /// with what the exporter must publish for it (`tests/it/hostile.rs` runs them all).
    pub hostile: fn() -> Vec<hostile::Hostile>,
    /// The password the default configuration (and the demo server) logs in with, for a
    /// protocol that answers nothing without one (its `Protocol::required_credential`):
    /// harnesses write it into the file the target's credential key names.
    pub password: Option<&'static str>,
}

/// The simulator of `protocol`. A new protocol adds its arm here (the compiler asks for it).
pub fn simulator(protocol: Protocol) -> Simulator {
    let (spawn, spawn_demo, demo_rules): (SpawnFn, SpawnFn, _) = match protocol {
        Protocol::A2s => (
            |w| Box::pin(a2s::spawn(w, Default::default())),
            |w| Box::pin(a2s::spawn_demo_with_console(w)),
            &["mp_friendlyfire"][..],
        ),
        Protocol::Minecraft => (
            |w| Box::pin(minecraft::spawn(w, Default::default())),
            |w| Box::pin(minecraft::spawn_dressed_demo(w)),
            &[][..],
        ),
        Protocol::MinecraftQuery => (
            |w| Box::pin(mcquery::spawn(w, Default::default())),
            |w| Box::pin(mcquery::spawn_demo(w)),
            &["gametype"][..],
        ),
        Protocol::MinecraftBedrock => (
            |w| Box::pin(bedrock::spawn(w, Default::default())),
            |w| Box::pin(bedrock::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Samp => (
            |w| Box::pin(samp::spawn(w, Default::default())),
            |w| Box::pin(samp::spawn_demo(w)),
            &["weather", "weburl"][..],
        ),
        Protocol::Mumble => (
            |w| Box::pin(mumble::spawn(w, Default::default())),
            |w| Box::pin(mumble::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Quake3 => (
            |w| Box::pin(quake3::spawn(w, Default::default())),
            |w| Box::pin(quake3::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Quake2 => (
            |w| Box::pin(quake2::spawn(w, Default::default())),
            |w| Box::pin(quake2::spawn_demo(w)),
            &["fraglimit"][..],
        ),
        Protocol::Quake1 => (
            |w| Box::pin(quake1::spawn(w, Default::default())),
            |w| Box::pin(quake1::spawn_demo(w)),
            &["fraglimit"][..],
        ),
        Protocol::Teeworlds => (
            |w| Box::pin(teeworlds::spawn(w, Default::default())),
            |w| Box::pin(teeworlds::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Gamespy3 => (
            |w| Box::pin(gamespy3::spawn(w, Default::default())),
            |w| Box::pin(gamespy3::spawn_demo(w)),
            &["bf2_ranked"][..],
        ),
        Protocol::Ase => (
            |w| Box::pin(ase::spawn(w, Default::default())),
            |w| Box::pin(ase::spawn_demo(w)),
            &["weather"][..],
        ),
        Protocol::Unreal2 => (
            |w| Box::pin(unreal2::spawn(w, Default::default())),
            |w| Box::pin(unreal2::spawn_demo(w)),
            &["GoalScore"][..],
        ),
        Protocol::Doom3 => (
            |w| Box::pin(doom3::spawn(w, Default::default())),
            |w| Box::pin(doom3::spawn_demo(w)),
            &["si_fragLimit"][..],
        ),
        Protocol::Gamespy1 => (
            |w| Box::pin(gamespy1::spawn(w, Default::default())),
            |w| Box::pin(gamespy1::spawn_demo(w)),
            &["fraglimit"][..],
        ),
        Protocol::Gamespy2 => (
            |w| Box::pin(gamespy2::spawn(w, Default::default())),
            |w| Box::pin(gamespy2::spawn_demo(w)),
            &["friendlyfire"][..],
        ),
        Protocol::Terraria => (
            |w| Box::pin(terraria::spawn(w, Default::default())),
            |w| Box::pin(terraria::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Palworld => (
            |w| Box::pin(palworld::spawn(w, Default::default())),
            |w| Box::pin(palworld::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Fivem => (
            |w| Box::pin(fivem::spawn(w, Default::default())),
            |w| Box::pin(fivem::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Satisfactory => (
            |w| Box::pin(satisfactory::spawn(w, Default::default())),
            |w| Box::pin(satisfactory::spawn_demo(w)),
            &["server_state", "server_state_code"][..],
        ),
        Protocol::Teamspeak3 => (
            |w| Box::pin(teamspeak3::spawn(w, Default::default())),
            |w| Box::pin(teamspeak3::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Factorio => (
            |w| Box::pin(factorio::spawn(w, factorio::config())),
            |w| Box::pin(factorio::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Battlefield => (
            |w| Box::pin(battlefield::spawn(w, Default::default())),
            |w| Box::pin(battlefield::spawn_demo(w)),
            &["gamemode", "region"][..],
        ),
        Protocol::Arkrcon => (
            |w| Box::pin(arkrcon::spawn(w, arkrcon::config())),
            |w| Box::pin(arkrcon::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Farmingsimulator => (
            |w| Box::pin(farmingsimulator::spawn(w, Default::default())),
            |w| Box::pin(farmingsimulator::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Hexen2 => (
            |w| Box::pin(hexen2::spawn(w, Default::default())),
            |w| Box::pin(hexen2::spawn_demo(w)),
            &["fraglimit"][..],
        ),
        Protocol::Assettocorsa => (
            |w| Box::pin(assettocorsa::spawn(w, Default::default())),
            |w| Box::pin(assettocorsa::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Eco => (
            |w| Box::pin(eco::spawn(w, Default::default())),
            |w| Box::pin(eco::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Buildandshoot => (
            |w| Box::pin(buildandshoot::spawn(w, Default::default())),
            |w| Box::pin(buildandshoot::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Eldewrito => (
            |w| Box::pin(eldewrito::spawn(w, Default::default())),
            |w| Box::pin(eldewrito::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Openttd => (
            |w| Box::pin(openttd::spawn(w, Default::default())),
            |w| Box::pin(openttd::spawn_demo(w)),
            &["companies_on", "landscape"][..],
        ),
        Protocol::Armagetron => (
            |w| Box::pin(armagetron::spawn(w, Default::default())),
            |w| Box::pin(armagetron::spawn_demo(w)),
            &["options", "url"][..],
        ),
        Protocol::Jc2mp => (
            |w| Box::pin(jc2mp::spawn(w, Default::default())),
            |w| Box::pin(jc2mp::spawn_demo(w)),
            &["gametype"][..],
        ),
        Protocol::Vcmp => (
            |w| Box::pin(vcmp::spawn(w, Default::default())),
            |w| Box::pin(vcmp::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Cs2d => (
            |w| Box::pin(cs2d::spawn(w, Default::default())),
            |w| Box::pin(cs2d::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Teamspeak2 => (
            |w| Box::pin(teamspeak2::spawn(w, Default::default())),
            |w| Box::pin(teamspeak2::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Rfactor => (
            |w| Box::pin(rfactor::spawn(w, Default::default())),
            |w| Box::pin(rfactor::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Ffow => (
            |w| Box::pin(ffow::spawn(w, Default::default())),
            |w| Box::pin(ffow::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Nadeo => (
            |w| Box::pin(nadeo::spawn(w, Default::default())),
            |w| Box::pin(nadeo::spawn_demo(w)),
            &["title_id", "environment"][..],
        ),
        Protocol::Kspdmp => (
            |w| Box::pin(kspdmp::spawn(w, Default::default())),
            |w| Box::pin(kspdmp::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Hytale => (
            |w| Box::pin(hytale::spawn(w, Default::default())),
            |w| Box::pin(hytale::spawn_demo(w)),
            &[][..],
        ),
        Protocol::Starmade => (
            |w| Box::pin(starmade::spawn(w, Default::default())),
            |w| Box::pin(starmade::spawn_demo(w)),
            &[][..],
        ),
    };
    let password = match protocol {
        Protocol::Factorio => Some(factorio::PASSWORD),
        Protocol::Arkrcon => Some(arkrcon::PASSWORD),
        Protocol::Nadeo => Some(nadeo::PASSWORD),
        _ => None,
    };
    Simulator {
        protocol,
        spawn,
        spawn_demo,
        demo_rules,
        hostile: hostile_of(protocol),
        password,
    }
}

/// The hostile servers of `protocol` (see [`hostile`]). Each list holds at least one server
/// that must be up (`ok`: the default configuration, on [`hostile::world`]) and one that must
/// be down: `tests/it/hostile.rs` fails for a protocol without both.
fn hostile_of(protocol: Protocol) -> fn() -> Vec<hostile::Hostile> {
    match protocol {
        Protocol::A2s => a2s::hostile,
        Protocol::Minecraft => minecraft::hostile,
        Protocol::MinecraftQuery => mcquery::hostile,
        Protocol::MinecraftBedrock => bedrock::hostile,
        Protocol::Samp => samp::hostile,
        Protocol::Mumble => mumble::hostile,
        Protocol::Quake3 => quake3::hostile,
        Protocol::Quake2 => quake2::hostile,
        Protocol::Quake1 => quake1::hostile,
        Protocol::Teeworlds => teeworlds::hostile,
        Protocol::Gamespy3 => gamespy3::hostile,
        Protocol::Ase => ase::hostile,
        Protocol::Unreal2 => unreal2::hostile,
        Protocol::Doom3 => doom3::hostile,
        Protocol::Gamespy1 => gamespy1::hostile,
        Protocol::Gamespy2 => gamespy2::hostile,
        Protocol::Terraria => terraria::hostile,
        Protocol::Palworld => palworld::hostile,
        Protocol::Fivem => fivem::hostile,
        Protocol::Satisfactory => satisfactory::hostile,
        Protocol::Teamspeak3 => teamspeak3::hostile,
        Protocol::Factorio => factorio::hostile,
        Protocol::Battlefield => battlefield::hostile,
        Protocol::Arkrcon => arkrcon::hostile,
        Protocol::Farmingsimulator => farmingsimulator::hostile,
        Protocol::Hexen2 => hexen2::hostile,
        Protocol::Assettocorsa => assettocorsa::hostile,
        Protocol::Eco => eco::hostile,
        Protocol::Buildandshoot => buildandshoot::hostile,
        Protocol::Eldewrito => eldewrito::hostile,
        Protocol::Openttd => openttd::hostile,
        Protocol::Armagetron => armagetron::hostile,
        Protocol::Jc2mp => jc2mp::hostile,
        Protocol::Vcmp => vcmp::hostile,
        Protocol::Cs2d => cs2d::hostile,
        Protocol::Teamspeak2 => teamspeak2::hostile,
        Protocol::Rfactor => rfactor::hostile,
        Protocol::Ffow => ffow::hostile,
        Protocol::Nadeo => nadeo::hostile,
        Protocol::Kspdmp => kspdmp::hostile,
        Protocol::Hytale => hytale::hostile,
        Protocol::Starmade => starmade::hostile,
    }
}

/// A running simulated server. Dropping it stops the server.
#[derive(Debug)]
pub struct SimServer {
    pub addr: SocketAddr,
    /// An RCON console the server runs beside its query port, and its password (Minecraft
    /// with `enable-rcon`): `demo` gives the target `rcon = { port, password_file }` for it.
    pub rcon: Option<(SocketAddr, &'static str)>,
    tasks: Vec<JoinHandle<()>>,
}

impl SimServer {
    pub fn new(addr: SocketAddr, tasks: Vec<JoinHandle<()>>) -> SimServer {
        SimServer {
            addr,
            rcon: None,
            tasks,
        }
    }

    /// This server, with `console` (a running RCON simulator, logged in to with
    /// `password`) as its RCON console: both stop when it is dropped.
    pub fn with_rcon(mut self, mut console: SimServer, password: &'static str) -> SimServer {
        self.rcon = Some((console.addr, password));
        self.tasks.append(&mut console.tasks);
        self
    }
}

impl Drop for SimServer {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

/// What a simulated server reports about itself; shared so tests and `demo` can change it
/// while the server runs.
#[derive(Debug, Clone, PartialEq)]
pub struct WorldState {
    pub name: String,
    pub map: String,
    pub game: String,
    pub version: String,
    pub max: u32,
    pub bots: u32,
    /// Human players: (name, score, seconds connected).
    pub players: Vec<(String, i32, f32)>,
    pub rules: Vec<(String, String)>,
    pub password: bool,
}

impl Default for WorldState {
    fn default() -> Self {
        WorldState {
            name: "Simulated Server".into(),
            map: "de_dust2".into(),
            game: "Counter-Strike: Source".into(),
            version: "1.0.0.0".into(),
            max: 32,
            bots: 0,
            players: Vec::new(),
            rules: vec![("mp_friendlyfire".into(), "0".into())],
            password: false,
        }
    }
}

/// A [`WorldState`] behind a lock, cheap to clone and share between server tasks.
#[derive(Debug, Clone, Default)]
pub struct World(Arc<Mutex<WorldState>>);

impl World {
    pub fn new(state: WorldState) -> World {
        World(Arc::new(Mutex::new(state)))
    }

    /// A copy of the current state; servers answer from a snapshot so a reply is consistent.
    pub fn snapshot(&self) -> WorldState {
        self.lock().clone()
    }

    pub fn update(&self, f: impl FnOnce(&mut WorldState)) {
        f(&mut self.lock())
    }

    fn lock(&self) -> MutexGuard<'_, WorldState> {
        // A panic while holding the lock cannot leave the state half-written in a way that
        // matters to a simulator; keep serving.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
