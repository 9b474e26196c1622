//! The hostile fleet's catalogue: each simulator says how it can misbehave and what the
//! exporter must publish for each misbehaviour, so `tests/hostile.rs` builds its fleet by
//! walking [`Protocol::ALL`](crate::target::Protocol::ALL) through
//! [`simulator`](super::simulator) instead of naming every server by hand. A protocol added
//! to the table brings its hostile servers with it.

use std::sync::Arc;

use super::{Spawning, World};

/// What the exporter must publish for one simulated server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `gameserver_up 1` with these counts; `bots: None` means no bots series. The `name`
    /// label is the world's name as the exporter publishes it (cut and cleaned), unless
    /// `name` overrides it (`Some("")` for protocols that carry no name).
    Up {
        online: u32,
        max: u32,
        bots: Option<u32>,
        name: Option<&'static str>,
    },
    /// `gameserver_up 0`, every failure counted under this `reason`.
    Down(&'static str),
}

/// Starts a simulator, configured one way, on a world.
pub type Start = Arc<dyn Fn(World) -> Spawning + Send + Sync>;

/// One server of the fleet: a simulator misbehaving one way (or a healthy one that must stay
/// up beside noise), and what must be published for it.
#[derive(Clone)]
pub struct Hostile {
    /// Unique within the protocol: the target is named `<protocol>-<name>`.
    pub name: &'static str,
    /// Starts the server; the world's name is the target's name.
    pub start: Start,
    pub outcome: Outcome,
    /// Does heavy work per request (megabytes per reply): runs on a runtime of its own so
    /// that it cannot delay the others' replies.
    pub heavy: bool,
    /// Extra lines for the target's config table (`max_reply_bytes = ...`), or empty.
    pub config: &'static str,
}

impl Hostile {
    /// A server that must be down for `reason`.
    pub fn down(name: &'static str, reason: &'static str, start: Start) -> Hostile {
        Hostile {
            name,
            start,
            outcome: Outcome::Down(reason),
            heavy: false,
            config: "",
        }
    }

    /// A server that must be up with these counts and the world's name.
    pub fn up(
        name: &'static str,
        online: u32,
        max: u32,
        bots: Option<u32>,
        start: Start,
    ) -> Hostile {
        Hostile {
            name,
            start,
            outcome: Outcome::Up {
                online,
                max,
                bots,
                name: None,
            },
            heavy: false,
            config: "",
        }
    }

    /// Runs on a runtime of its own (see [`Hostile::heavy`]).
    pub fn heavy(mut self) -> Hostile {
        self.heavy = true;
        self
    }

    /// Adds config lines to the target.
    pub fn with_config(mut self, config: &'static str) -> Hostile {
        self.config = config;
        self
    }
}

/// Wraps a `spawn(world, config)` call as a [`Start`]:
/// `start(move |w| mumble::spawn(w, cfg.clone()))`.
pub fn start<F, Fut>(f: F) -> Start
where
    F: Fn(World) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = std::io::Result<super::SimServer>> + Send + 'static,
{
    Arc::new(move |w| Box::pin(f(w)))
}
