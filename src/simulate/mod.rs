//! In-process servers for every protocol, on real sockets bound to 127.0.0.1 port 0. They
//! serve `demo` (with players that come and go) and the tests (with knobs for misbehaviour).
//!
//! Each protocol module offers `spawn(world, config) -> io::Result<SimServer>`; the server runs
//! until its [`SimServer`] is dropped.

pub mod a2s;
pub mod bedrock;
pub mod churn;
pub mod datagrams;
pub mod mcquery;
pub mod minecraft;
pub mod mumble;
pub mod quake3;
pub mod samp;
pub mod teeworlds;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::task::JoinHandle;

/// A running simulated server. Dropping it stops the server.
#[derive(Debug)]
pub struct SimServer {
    pub addr: SocketAddr,
    tasks: Vec<JoinHandle<()>>,
}

impl SimServer {
    pub fn new(addr: SocketAddr, tasks: Vec<JoinHandle<()>>) -> SimServer {
        SimServer { addr, tasks }
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
