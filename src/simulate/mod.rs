//! In-process servers for every protocol, on real sockets bound to 127.0.0.1 port 0. They
//! serve `demo` (with players that come and go) and the tests (with knobs for misbehaviour).
//!
//! Each protocol module offers `spawn(world, config) -> io::Result<SimServer>` and
//! `spawn_demo(world)`; the server runs until its [`SimServer`] is dropped. It states what
//! `demo` and the every-protocol tests need from it once, in its `pub const SIM: Simulator`
//! (spawners, demo rules, hostile servers, password), and [`simulator`] is the one table from
//! a [`Protocol`] to those: one line per protocol, so `demo` and the tests that cover every
//! protocol dispatch through it instead of naming each one.

pub mod a2s;
pub mod arkrcon;
pub mod armagetron;
pub mod ase;
pub mod assettocorsa;
pub mod battlefield;
pub mod bedrock;
pub mod buildandshoot;
pub mod bzflag;
pub mod churn;
pub mod cs2d;
pub mod cube2;
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
pub mod mafia2mp;
pub mod mafia2online;
pub mod mcquery;
pub mod minecraft;
pub mod mumble;
pub mod nadeo;
pub mod netquake;
pub mod openttd;
pub mod palworld;
pub mod quake1;
pub mod quake2;
pub mod quake3;
pub mod rcon;
pub mod rfactor;
pub mod samp;
pub mod satisfactory;
pub mod savage2;
pub mod sdtd;
pub mod soldat;
pub mod starmade;
pub mod tcp;
pub mod teamspeak2;
pub mod teamspeak3;
pub mod teeworlds;
pub mod terraria;
pub mod titles;
pub mod tribes1;
pub mod unreal2;
pub mod vcmp;
pub mod ventrilo;
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

/// One protocol's simulator, as `demo` and the every-protocol tests use it: each simulator
/// module exports its own as `pub const SIM: Simulator`.
#[derive(Clone, Copy)]
pub struct Simulator {
    /// The protocol it serves (`tests/it/protocol_checklist.rs` checks that [`simulator`]'s
    /// line for a protocol names the module whose `SIM` says so).
    pub protocol: Protocol,
    /// The simulator with its default configuration, serving the world as given.
    pub spawn: SpawnFn,
    /// The simulator dressed as a typical server of its kind (it rewrites the world), with
    /// players that come and go: what `demo` runs.
    pub spawn_demo: SpawnFn,
    /// Rules of the demo world that `demo` publishes as series, so the dashboard's rule
    /// panels have data.
    pub demo_rules: &'static [&'static str],
    /// The hostile fleet's servers of this protocol (see [`hostile`]): each misbehaviour the
    /// simulator knows, with what the exporter must publish for it. Each list holds at least
    /// one server that must be up (`ok`: the default configuration, on [`hostile::world`])
    /// and one that must be down: `tests/it/hostile.rs` runs them all and fails for a
    /// protocol without both.
    pub hostile: fn() -> Vec<hostile::Hostile>,
    /// The password the default configuration (and the demo server) logs in with, for a
    /// protocol that answers nothing without one (its `Protocol::required_credential`):
    /// harnesses write it into the file the target's credential key names.
    pub password: Option<&'static str>,
}

/// The simulator of `protocol`: one line per protocol, naming the `SIM` its module exports (a
/// new protocol adds its line here; the compiler asks for it).
pub const fn simulator(protocol: Protocol) -> Simulator {
    match protocol {
        Protocol::A2s => a2s::SIM,
        Protocol::Minecraft => minecraft::SIM,
        Protocol::MinecraftQuery => mcquery::SIM,
        Protocol::MinecraftBedrock => bedrock::SIM,
        Protocol::Samp => samp::SIM,
        Protocol::Mumble => mumble::SIM,
        Protocol::Quake3 => quake3::SIM,
        Protocol::Quake2 => quake2::SIM,
        Protocol::Quake1 => quake1::SIM,
        Protocol::Teeworlds => teeworlds::SIM,
        Protocol::Gamespy3 => gamespy3::SIM,
        Protocol::Ase => ase::SIM,
        Protocol::Unreal2 => unreal2::SIM,
        Protocol::Doom3 => doom3::SIM,
        Protocol::Gamespy1 => gamespy1::SIM,
        Protocol::Gamespy2 => gamespy2::SIM,
        Protocol::Terraria => terraria::SIM,
        Protocol::Palworld => palworld::SIM,
        Protocol::Fivem => fivem::SIM,
        Protocol::Satisfactory => satisfactory::SIM,
        Protocol::Teamspeak3 => teamspeak3::SIM,
        Protocol::Factorio => factorio::SIM,
        Protocol::Battlefield => battlefield::SIM,
        Protocol::Arkrcon => arkrcon::SIM,
        Protocol::Farmingsimulator => farmingsimulator::SIM,
        Protocol::Hexen2 => hexen2::SIM,
        Protocol::Assettocorsa => assettocorsa::SIM,
        Protocol::Eco => eco::SIM,
        Protocol::Buildandshoot => buildandshoot::SIM,
        Protocol::Eldewrito => eldewrito::SIM,
        Protocol::Openttd => openttd::SIM,
        Protocol::Armagetron => armagetron::SIM,
        Protocol::Jc2mp => jc2mp::SIM,
        Protocol::Vcmp => vcmp::SIM,
        Protocol::Cs2d => cs2d::SIM,
        Protocol::Teamspeak2 => teamspeak2::SIM,
        Protocol::Rfactor => rfactor::SIM,
        Protocol::Ffow => ffow::SIM,
        Protocol::Nadeo => nadeo::SIM,
        Protocol::Tribes1 => tribes1::SIM,
        Protocol::Starsiege => tribes1::SIM_STARSIEGE,
        Protocol::Savage2 => savage2::SIM,
        Protocol::Mafia2mp => mafia2mp::SIM,
        Protocol::Mafia2online => mafia2online::SIM,
        Protocol::Soldat => soldat::SIM,
        Protocol::Kspdmp => kspdmp::SIM,
        Protocol::Hytale => hytale::SIM,
        Protocol::Starmade => starmade::SIM,
        Protocol::Cube2 => cube2::SIM,
        Protocol::Ventrilo => ventrilo::SIM,
        Protocol::Bzflag => bzflag::SIM,
        Protocol::Netquake => netquake::SIM,
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
