//! Simulated Frostbite server (Battlefield 4 or Bad Company 2 shaped): answers `serverInfo`,
//! `version` and `listPlayers all` from the world over TCP, with knobs for the ways a server
//! or something pretending to be one can misbehave.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn;
use super::hostile::{start, Hostile};
use super::tcp::{self, serve_tcp};
use super::{SimServer, World, WorldState};
use crate::protocol::battlefield::{decode, encode, MAX_PACKET, RESPONSE};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Battlefield,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["gamemode", "region"],
    hostile,
    password: None,
};

/// Which game's `serverInfo` layout the simulator sends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Flavour {
    /// BF4: 2 teams, the full tail through the country and the blaze fields.
    #[default]
    Bf4,
    /// Bad Company 2: its game mod and map pack before the address, no `listPlayers`
    /// without a login.
    Bc2,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Every answer goes out one byte per write.
    Bytewise,
    /// A server event (not a response) comes before every answer.
    Events,
    /// The header's size is less than the words take.
    LyingSize,
    /// The header announces 2^31 words.
    HugeWordCount,
    /// The header announces a packet the size of the largest allowed, then a byte every
    /// 50 ms, forever.
    NeverEnds,
    /// The header announces 1 MiB.
    Oversized,
    /// Requests are read, never answered.
    Silence,
    /// Every request is answered `UnknownCommand`.
    NotOk,
    /// Packets that answer nothing, forever.
    Flood,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct BattlefieldConfig {
    pub flavour: Flavour,
    pub misbehaviour: Misbehaviour,
}

/// The words a request is answered with.
pub fn answer(state: &WorldState, flavour: Flavour, request: &[String]) -> Vec<String> {
    let s = |v: &str| v.to_string();
    match (request.first().map(String::as_str), flavour) {
        (Some("serverInfo"), _) => {
            let mut w = vec![
                s("OK"),
                state.name.clone(),
                state.players.len().to_string(),
                state.max.to_string(),
                s("ConquestLarge0"),
                state.map.clone(),
                s("0"),
                s("2"),
                s("2"),
                s("812.5"),
                s("640"),
                s("0"),
                s(""),
                s("true"),
                s("true"),
                state.password.to_string(),
                s("53212"),
                s("1140"),
            ];
            if flavour == Flavour::Bc2 {
                w.extend([s("BC2"), s("")]);
            }
            w.extend([s("127.0.0.1:25200"), s("v1.891 | A1390 C2.358")]);
            if flavour == Flavour::Bf4 {
                w.extend([s("false"), s("EU"), s("ams"), s("NL"), s("0"), s("IN_GAME")]);
            }
            w
        }
        (Some("version"), Flavour::Bf4) => vec![s("OK"), s("BF4"), s("179665")],
        (Some("version"), Flavour::Bc2) => vec![s("OK"), s("BC2"), s("795745")],
        (Some("listPlayers"), Flavour::Bc2) => vec![s("LogInRequired")],
        (Some("listPlayers"), Flavour::Bf4) => {
            let fields = [
                "name", "guid", "teamId", "squadId", "kills", "deaths", "score", "rank", "ping",
                "type",
            ];
            let mut w = vec![s("OK"), fields.len().to_string()];
            w.extend(fields.iter().map(|f| s(f)));
            w.push(state.players.len().to_string());
            for (i, (name, score, _)) in state.players.iter().enumerate() {
                w.extend([
                    name.clone(),
                    format!("EA_{i:032X}"),
                    (i % 2 + 1).to_string(),
                    s("1"),
                    s("3"),
                    s("1"),
                    score.to_string(),
                    s("12"),
                    (30 + i).to_string(),
                    s("0"),
                ]);
            }
            w
        }
        _ => vec![s("UnknownCommand")],
    }
}

/// Serves the protocol on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: BattlefieldConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

async fn serve(mut stream: TcpStream, world: World, config: &BattlefieldConfig) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        loop {
            let (request, used) = match decode(&buf, MAX_PACKET) {
                Ok(Some(p)) => p,
                Ok(None) => break,
                Err(_) => return Ok(()),
            };
            buf.drain(..used);
            let words = answer(&world.snapshot(), config.flavour, &request.words);
            let sequence = request.sequence | RESPONSE;
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            let mut out = Vec::new();
            match config.misbehaviour {
                Misbehaviour::None | Misbehaviour::Bytewise => encode(sequence, &refs, &mut out),
                Misbehaviour::Events => {
                    encode(0, &["player.onJoin", "newcomer", "EA_0"], &mut out);
                    encode(sequence, &refs, &mut out);
                }
                Misbehaviour::LyingSize => {
                    encode(sequence, &refs, &mut out);
                    let size = (out.len() as u32).saturating_sub(7);
                    out[4..8].copy_from_slice(&size.to_le_bytes());
                }
                Misbehaviour::HugeWordCount => {
                    encode(sequence, &refs, &mut out);
                    out[8..12].copy_from_slice(&(1u32 << 31).to_le_bytes());
                }
                Misbehaviour::NeverEnds => {
                    out.extend_from_slice(&sequence.to_le_bytes());
                    out.extend_from_slice(&(MAX_PACKET as u32).to_le_bytes());
                    out.extend_from_slice(&2u32.to_le_bytes());
                    stream.write_all(&out).await?;
                    loop {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        stream.write_all(b"x").await?;
                    }
                }
                Misbehaviour::Oversized => {
                    out.extend_from_slice(&sequence.to_le_bytes());
                    out.extend_from_slice(&(1u32 << 20).to_le_bytes());
                    out.extend_from_slice(&2u32.to_le_bytes());
                }
                Misbehaviour::Silence => {}
                Misbehaviour::NotOk => encode(sequence, &["UnknownCommand"], &mut out),
                Misbehaviour::Flood => loop {
                    let mut other = Vec::new();
                    encode(RESPONSE | 7, &["OK"], &mut other);
                    stream.write_all(&other).await?;
                    tokio::task::yield_now().await;
                },
            }
            // Byte by byte: a reply split across as many segments as it has bytes.
            let bytewise = config.misbehaviour == Misbehaviour::Bytewise;
            tcp::write_split(&mut stream, &out, bytewise.then_some(1)).await?;
        }
        if buf.len() > MAX_PACKET {
            return Ok(());
        }
    }
}

/// A Battlefield 4 conquest server with soldiers coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Battlefield 4 Demo | Conquest 24/7".into(),
        map: "MP_Siege".into(),
        game: "Battlefield 4".into(),
        version: "179665".into(),
        max: 64,
        players: vec![
            ("Sniper_Wolf".into(), 2410, 0.0),
            ("medic42".into(), 980, 0.0),
        ],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, BattlefieldConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(11), 0, |t| {
        format!("soldier{t}")
    })
    .await
}

/// The hostile fleet's Frostbite servers (no bots: the fleet's 2 players, 24 slots).
pub fn hostile() -> Vec<Hostile> {
    let with = |flavour: Flavour, misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                BattlefieldConfig {
                    flavour,
                    misbehaviour,
                },
            )
        })
    };
    use Flavour::{Bc2, Bf4};
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(Bf4, M::None)),
        Hostile::up("bad-company-2", 2, 24, None, with(Bc2, M::None)),
        Hostile::up("bytewise", 2, 24, None, with(Bf4, M::Bytewise)),
        Hostile::up("events", 2, 24, None, with(Bf4, M::Events)),
        Hostile::down("lying-size", "malformed", with(Bf4, M::LyingSize)),
        Hostile::down("word-count-2^31", "malformed", with(Bf4, M::HugeWordCount)),
        Hostile::down("never-ends", "timeout", with(Bf4, M::NeverEnds)),
        Hostile::down("oversized", "too_large", with(Bf4, M::Oversized)),
        Hostile::down("silent", "timeout", with(Bf4, M::Silence)),
        Hostile::down("not-ok", "malformed", with(Bf4, M::NotOk)),
        Hostile::down("flood", "mismatch", with(Bf4, M::Flood)),
    ]
}
