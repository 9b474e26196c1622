//! Simulated Minecraft Query server: tokens per client address and port, as vanilla keeps
//! them, with knobs for token rotation, GeyserMC-style padding and hostile replies.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time::Instant;

use super::hostile::{self, start, Hostile};
use super::{SimServer, World, WorldState};
use crate::protocol::minecraft::query::{self as mcq, BasicStat, Charset, FullStat, Request};
use crate::target::MAX_DATAGRAM;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::MinecraftQuery,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["gametype"],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The handshake token is not a number.
    NonNumericToken,
    /// Stat replies are cut in half.
    Truncated,
    /// Every reply echoes another session id.
    WrongSession,
    /// Junk datagrams before every real reply.
    JunkFlood,
}

/// Counters and a rotation trigger shared between a test and the running server.
#[derive(Debug, Clone, Default)]
pub struct Control(Arc<Counters>);

#[derive(Debug, Default)]
struct Counters {
    handshakes: AtomicU32,
    stats: AtomicU32,
    generation: AtomicU32,
}

impl Control {
    /// Handshakes answered so far.
    pub fn handshakes(&self) -> u32 {
        self.0.handshakes.load(Ordering::Relaxed)
    }

    /// Stat requests answered so far.
    pub fn stats(&self) -> u32 {
        self.0.stats.load(Ordering::Relaxed)
    }

    /// Forgets every issued token now; stats carrying one are then silently ignored.
    pub fn rotate(&self) {
        self.0.generation.fetch_add(1, Ordering::Relaxed);
    }
}

#[derive(Debug, Clone)]
pub struct McQueryConfig {
    /// The 11 bytes between the session id and the full-stat key/values (vanilla:
    /// `splitnum\0\x80\0`; GeyserMC puts other text there).
    pub padding: [u8; 11],
    /// GeyserMC also sends the key/values in another order.
    pub reorder_keys: bool,
    pub plugins: String,
    /// How strings are written: UTF-8 (vanilla) or ISO-8859-1, as older servers and plugins
    /// send them (`§` as the single byte A7).
    pub charset: Charset,
    /// Forget tokens this long after issuing them (vanilla: 30 s), besides [`Control::rotate`].
    pub token_lifetime: Option<Duration>,
    pub misbehaviour: Misbehaviour,
    pub control: Control,
}

impl Default for McQueryConfig {
    fn default() -> Self {
        McQueryConfig {
            padding: mcq::VANILLA_PADDING,
            reorder_keys: false,
            plugins: String::new(),
            charset: Charset::Utf8,
            token_lifetime: None,
            misbehaviour: Misbehaviour::None,
            control: Control::default(),
        }
    }
}

impl McQueryConfig {
    /// Padding and key order as GeyserMC sends them.
    pub fn geyser() -> Self {
        McQueryConfig {
            padding: *b"GeyserMC\x00\x80\x00",
            reorder_keys: true,
            ..McQueryConfig::default()
        }
    }
}

pub async fn spawn(world: World, config: McQueryConfig) -> io::Result<SimServer> {
    let socket = UdpSocket::bind("127.0.0.1:0").await?;
    let addr = socket.local_addr()?;
    let task = tokio::spawn(serve(socket, world, config));
    Ok(SimServer::new(addr, vec![task]))
}

/// A vanilla-like server (tokens forgotten after 30 s) for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "A Minecraft Server".into(),
            map: "world".into(),
            game: "SMP".into(),
            version: "1.21.4".into(),
            max: 20,
            players: vec![
                ("barneygale".into(), 0, 0.0),
                ("Vivalahelvig".into(), 0, 0.0),
            ],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let config = McQueryConfig {
        plugins: "Paper on 1.21.4: WorldEdit 7.3".into(),
        token_lifetime: Some(Duration::from_secs(30)),
        ..McQueryConfig::default()
    };
    spawn(world, config).await
}

struct Issued {
    token: i32,
    at: Instant,
    generation: u32,
}

async fn serve(socket: UdpSocket, world: World, config: McQueryConfig) {
    let port = socket.local_addr().map(|a| a.port()).unwrap_or_default();
    let mut buf = vec![0u8; MAX_DATAGRAM];
    let mut tokens: HashMap<SocketAddr, Issued> = HashMap::new();
    let mut next_token: i32 = 9_513_307;
    loop {
        let (n, from) = match socket.recv_from(&mut buf).await {
            Ok(x) => x,
            Err(_) => continue,
        };
        if config.misbehaviour == Misbehaviour::Silence {
            continue;
        }
        let Ok(req) = mcq::decode_request(&buf[..n]) else {
            continue;
        };
        let generation = config.control.0.generation.load(Ordering::Relaxed);
        let mut out = Vec::new();
        match req {
            Request::Handshake { session } => {
                config.control.0.handshakes.fetch_add(1, Ordering::Relaxed);
                next_token = next_token.wrapping_add(7919) & 0x00FF_FFFF;
                tokens.insert(
                    from,
                    Issued {
                        token: next_token,
                        at: Instant::now(),
                        generation,
                    },
                );
                if config.misbehaviour == Misbehaviour::NonNumericToken {
                    mcq::encode_handshake_reply(echo(session, &config), 0, &mut out);
                    out.truncate(5);
                    out.extend_from_slice(b"abc\x00");
                } else {
                    mcq::encode_handshake_reply(echo(session, &config), next_token, &mut out);
                }
            }
            Request::BasicStat { session, token } | Request::FullStat { session, token } => {
                let valid = tokens.get(&from).is_some_and(|t| {
                    t.token == token
                        && t.generation == generation
                        && config
                            .token_lifetime
                            .is_none_or(|life| t.at.elapsed() < life)
                });
                if !valid {
                    continue;
                }
                config.control.0.stats.fetch_add(1, Ordering::Relaxed);
                let w = world.snapshot();
                if matches!(req, Request::FullStat { .. }) {
                    let stat = full(&w, &config, port);
                    mcq::encode_full_stat_reply_in(
                        echo(session, &config),
                        &stat,
                        &config.padding,
                        config.charset,
                        &mut out,
                    );
                } else {
                    let stat = basic(&w, port);
                    mcq::encode_basic_stat_reply_in(
                        echo(session, &config),
                        &stat,
                        config.charset,
                        &mut out,
                    );
                }
                if config.misbehaviour == Misbehaviour::Truncated {
                    out.truncate(out.len() / 2);
                }
            }
        }
        if config.misbehaviour == Misbehaviour::JunkFlood {
            for junk in junk() {
                let _ = socket.send_to(&junk, from).await;
            }
        }
        let _ = socket.send_to(&out, from).await;
    }
}

fn echo(session: i32, config: &McQueryConfig) -> i32 {
    match config.misbehaviour {
        Misbehaviour::WrongSession => session ^ 0x0101_0101,
        _ => session,
    }
}

fn basic(w: &WorldState, port: u16) -> BasicStat {
    BasicStat {
        motd: w.name.clone(),
        gametype: w.game.clone(),
        map: w.map.clone(),
        online: w.players.len() as u32,
        max: w.max,
        host_port: port,
        host_ip: "127.0.0.1".into(),
    }
}

fn full(w: &WorldState, config: &McQueryConfig, port: u16) -> FullStat {
    let mut values: Vec<(String, String)> = [
        ("hostname", w.name.clone()),
        ("gametype", w.game.clone()),
        ("game_id", "MINECRAFT".into()),
        ("version", w.version.clone()),
        ("plugins", config.plugins.clone()),
        ("map", w.map.clone()),
        ("numplayers", w.players.len().to_string()),
        ("maxplayers", w.max.to_string()),
        ("hostport", port.to_string()),
        ("hostip", "127.0.0.1".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if config.reorder_keys {
        values.reverse();
    }
    FullStat {
        values,
        players: w.players.iter().map(|(name, _, _)| name.clone()).collect(),
    }
}

/// Datagrams no client should take for an answer.
fn junk() -> Vec<Vec<u8>> {
    vec![
        Vec::new(),
        vec![0; 2],
        // Not zeros: a zero session id, though unlikely, would make those look like ours.
        vec![0xEE; 64],
        b"\x09\x7f\x7f\x7f\x7f123\x00".to_vec(),
        b"\x00\x7f\x7f\x7f\x7fjunk\x00".to_vec(),
        (0..=255u8).rev().collect(),
    ]
}

/// The hostile fleet's Minecraft Query servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> McQueryConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || McQueryConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    vec![
        Hostile::up("ok", 2, 24, None, with(Default::default)),
        // Junk datagrams before every real reply.
        Hostile::up(
            "junk-flood",
            2,
            24,
            None,
            with(|| McQueryConfig {
                misbehaviour: Misbehaviour::JunkFlood,
                ..Default::default()
            }),
        ),
        Hostile::up("str-long", 2, 24, None, with(Default::default))
            .serving_name(hostile::nasty_name(hostile::UDP_NAME_BYTES, false)),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("token", "malformed", Misbehaviour::NonNumericToken),
        bad("truncated", "malformed", Misbehaviour::Truncated),
        bad("wrong-session", "mismatch", Misbehaviour::WrongSession),
    ]
}
