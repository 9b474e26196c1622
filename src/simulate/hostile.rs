//! The hostile fleet's catalogue: each simulator says how it can misbehave and what the
//! exporter must publish for each misbehaviour, so `tests/it/hostile.rs` builds its fleet by
//! walking [`Protocol::ALL`](crate::target::Protocol::ALL) through
//! [`simulator`](super::simulator) instead of naming every server by hand. A protocol added
//! to the table brings its hostile servers with it.

use std::sync::Arc;

use super::{Spawning, World, WorldState};

/// The world every server of the fleet starts on, named after its target: 2 players and 2
/// bots of 24 slots. The counts of an [`Outcome::Up`] are what the exporter publishes for it
/// (4 online where bots count as players, 2 where they do not).
pub fn world(name: &str) -> World {
    World::new(WorldState {
        name: name.into(),
        map: "dm_lockdown".into(),
        game: "Half-Life 2: Deathmatch".into(),
        version: "2.0.0.1".into(),
        max: 24,
        bots: 2,
        players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        rules: Vec::new(),
        password: false,
    })
}

/// Largest server name a UDP reply can carry with room for the rest of the datagram.
pub const UDP_NAME_BYTES: usize = 60_000;

/// A server name with everything that breaks naive exposition encoders (quotes, backslashes,
/// newlines, direction marks and overrides, tab, CR, HTML, multi-byte characters; a NUL if
/// `nul`), padded to `len` bytes.
pub fn nasty_name(len: usize, nul: bool) -> String {
    let mut s = String::from(
        "q\"uote back\\slash new\nline rtl\u{200F}mark\u{202E}over tab\tcr\r <script>&amp; ",
    );
    if nul {
        s.push_str("nul\u{0}byte ");
    }
    s.push_str("é€");
    while s.len() < len {
        s.push_str("x\\\"\n");
    }
    s.truncate(len);
    s
}

/// What the exporter must publish for one simulated server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// `gameserver_up 1` with these counts; `bots: None` means no bots series. The `name`
    /// label is the world's name as the exporter publishes it (cut and cleaned), unless
    /// `name` overrides it with the name the server sends (`Some("")` for protocols that
    /// carry no name): the exporter publishes that one cut and cleaned.
    Up {
        online: u32,
        max: u32,
        bots: Option<u32>,
        name: Option<String>,
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
    /// Unique within the protocol: the target is named `<protocol>-<name>`. `ok` for the
    /// simulator's default configuration; a `str-` prefix marks a server sending hostile
    /// strings, which the suite also renders through `/probe`.
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

    /// The server sends `name` instead of the world's: the exporter must publish it cut and
    /// cleaned.
    pub fn expect_name(mut self, name: impl Into<String>) -> Hostile {
        if let Outcome::Up { name: n, .. } = &mut self.outcome {
            *n = Some(name.into());
        }
        self
    }

    /// Serves `name` (rewriting the world's) and must publish it cut and cleaned.
    pub fn serving_name(mut self, name: String) -> Hostile {
        let inner = self.start;
        let served = name.clone();
        self.start = Arc::new(move |w: World| {
            w.update(|s| s.name = served.clone());
            inner(w)
        });
        self.expect_name(name)
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

/// A password as a console echoing it might quote it, for the misbehaviours that leak the
/// credential into what they send (the exporter must never pass any form on).
pub struct Quoted {
    /// Percent-encoded, unreserved characters as they are.
    pub url: String,
    pub base64: String,
    /// Lowercase hex of the bytes.
    pub hex: String,
}

impl Quoted {
    pub fn new(password: &str) -> Quoted {
        use base64::Engine;
        let url = password
            .bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    char::from(b).to_string()
                }
                _ => format!("%{b:02X}"),
            })
            .collect();
        Quoted {
            url,
            base64: base64::engine::general_purpose::STANDARD.encode(password),
            hex: password.bytes().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// Every form, the raw password first: what a test searches the exporter's output for.
    pub fn forms(password: &str) -> Vec<String> {
        let Quoted { url, base64, hex } = Quoted::new(password);
        vec![password.to_string(), url, base64, hex]
    }
}
