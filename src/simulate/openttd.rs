//! Simulated OpenTTD server (12 or later): answers `CLIENT_GAME_INFO` over TCP with a
//! `SERVER_GAME_INFO` made from the world, with knobs for the ways a server or something
//! pretending to be one can misbehave.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::tcp::{self, serve_tcp};
use super::{SimServer, World, WorldState};
use crate::protocol::openttd::{
    decode_packet, encode_game_info, encode_packet, GameInfo, CLIENT_GAME_INFO, MAX_PACKET,
    SERVER_FULL, SERVER_GAME_INFO,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Openttd,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["companies_on", "landscape"],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// The answer goes out one byte per write.
    Bytewise,
    /// Packets of another type (a chat, a map chunk) come before the answer.
    Foreign,
    /// The size field is 10 less than the packet: the info ends early.
    LyingSize,
    /// 255 NewGRFs announced, none sent.
    LyingGrfCount,
    /// The server name runs to the end of the packet without its NUL.
    EndlessString,
    /// The header announces OpenTTD's largest packet, then a byte every 50 ms, forever.
    NeverEnds,
    /// The header announces 65535 bytes, more than OpenTTD ever sends.
    Oversized,
    /// The request is read, never answered.
    Silence,
    /// `SERVER_FULL` instead of the answer.
    Full,
    /// Packets of another type, forever.
    Flood,
    /// Game info version 8, a layout no one knows yet.
    FutureVersion,
}

/// Which layout the answer takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenttdConfig {
    /// Game info version: 6 (OpenTTD 12-13) or 7 (14 and later), or older.
    pub version: u8,
    pub misbehaviour: Misbehaviour,
}

impl Default for OpenttdConfig {
    fn default() -> Self {
        OpenttdConfig {
            version: 6,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// The game info a world is announced with (its players as clients; no bots in OpenTTD).
pub fn game_info(state: &WorldState, version: u8) -> GameInfo {
    let byte = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
    let mut name: String = state.name.chars().filter(|c| *c != '\0').collect();
    name.truncate(name.floor_char_boundary(1024));
    GameInfo {
        version,
        ticks_playing: (version >= 7).then_some(74 * 400),
        gamescript: (version >= 5).then(|| (-1, String::new())),
        grfs: Vec::new(),
        game_date: Some(712_223 + 400),
        start_date: Some(712_223),
        companies_max: (version >= 2).then_some(15),
        companies_on: (version >= 2).then_some(byte(state.players.len().div_ceil(2))),
        spectators_max: (version >= 2).then_some(byte(state.max as usize)),
        name,
        revision: state.version.clone(),
        language: (version <= 5).then_some(0),
        password: state.password,
        clients_max: byte(state.max as usize),
        clients_on: byte(state.players.len()),
        spectators_on: 0,
        map_name: (version <= 5).then(|| state.map.clone()),
        map_width: 256,
        map_height: 256,
        landscape: 0,
        dedicated: true,
    }
}

/// Serves the protocol on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: OpenttdConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

async fn serve(mut stream: TcpStream, world: World, config: &OpenttdConfig) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 512];
    let request = loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        match decode_packet(&buf, MAX_PACKET) {
            Ok(Some((p, _))) => break p,
            Ok(None) if buf.len() < MAX_PACKET => {}
            _ => return Ok(()),
        }
    };
    if request.kind != CLIENT_GAME_INFO {
        return Ok(());
    }
    let info = game_info(&world.snapshot(), config.version);
    let mut body = Vec::new();
    encode_game_info(&info, &mut body);
    let mut out = Vec::new();
    match config.misbehaviour {
        Misbehaviour::None | Misbehaviour::Bytewise => {
            encode_packet(SERVER_GAME_INFO, &body, &mut out)
        }
        Misbehaviour::Foreign => {
            encode_packet(9, b"chat", &mut out);
            encode_packet(12, &[0; 40], &mut out);
            encode_packet(SERVER_GAME_INFO, &body, &mut out);
        }
        Misbehaviour::LyingSize => {
            encode_packet(SERVER_GAME_INFO, &body, &mut out);
            let size = (out.len() as u16).saturating_sub(10);
            out[..2].copy_from_slice(&size.to_le_bytes());
        }
        Misbehaviour::LyingGrfCount => {
            // Version 6: the count follows the version, the NewGRF type and the game script's
            // version and (empty) name; version 7 has the ticks in front.
            let at = if config.version >= 7 { 15 } else { 7 };
            body[at] = 255;
            encode_packet(SERVER_GAME_INFO, &body, &mut out);
        }
        Misbehaviour::EndlessString => {
            // The body up to the name, then the name without its NUL to the packet's end.
            let marked = GameInfo {
                name: "\u{1}name\u{1}".into(),
                ..info.clone()
            };
            let mut cut = Vec::new();
            encode_game_info(&marked, &mut cut);
            let at = cut.windows(6).position(|w| w == b"\x01name").unwrap_or(0);
            cut.truncate(at);
            cut.extend(std::iter::repeat_n(b'x', 200));
            encode_packet(SERVER_GAME_INFO, &cut, &mut out);
        }
        Misbehaviour::NeverEnds => {
            out.extend_from_slice(&(MAX_PACKET as u16).to_le_bytes());
            out.push(SERVER_GAME_INFO);
            stream.write_all(&out).await?;
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                stream.write_all(b"x").await?;
            }
        }
        Misbehaviour::Oversized => out.extend_from_slice(&[0xFF, 0xFF, SERVER_GAME_INFO]),
        Misbehaviour::Silence => {
            // Hold the connection open until the client goes.
            let _ = stream.read(&mut chunk).await;
            return Ok(());
        }
        Misbehaviour::Full => encode_packet(SERVER_FULL, &[], &mut out),
        Misbehaviour::Flood => loop {
            let mut other = Vec::new();
            encode_packet(9, b"chat", &mut other);
            stream.write_all(&other).await?;
            tokio::task::yield_now().await;
        },
        Misbehaviour::FutureVersion => {
            body[0] = 8;
            encode_packet(SERVER_GAME_INFO, &body, &mut out);
        }
    }
    // Byte by byte: a reply split across as many segments as it has bytes.
    let bytewise = config.misbehaviour == Misbehaviour::Bytewise;
    tcp::write_split(&mut stream, &out, bytewise.then_some(1)).await?;
    // OpenTTD closes after the answer.
    stream.shutdown().await
}

/// An OpenTTD server with companies founded and players coming and going, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "OpenTTD Demo | Cargodist".into(),
            map: "256x256 temperate".into(),
            game: "OpenTTD".into(),
            version: "14.1".into(),
            max: 25,
            players: vec![("railfan".into(), 0, 0.0), ("busdriver".into(), 0, 0.0)],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let mut server = spawn(
        world.clone(),
        OpenttdConfig {
            version: 7,
            ..OpenttdConfig::default()
        },
    )
    .await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(13), 0, |t| {
            format!("tycoon{t}")
        }));
    Ok(server)
}

/// The hostile fleet's OpenTTD servers (no bots: the fleet's 2 players, 24 slots).
pub fn hostile() -> Vec<Hostile> {
    let with = |version: u8, misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                OpenttdConfig {
                    version,
                    misbehaviour,
                },
            )
        })
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(6, M::None)),
        Hostile::up("version-7", 2, 24, None, with(7, M::None)),
        Hostile::up("version-4", 2, 24, None, with(4, M::None)),
        Hostile::up("bytewise", 2, 24, None, with(6, M::Bytewise)),
        Hostile::up("foreign-packets", 2, 24, None, with(6, M::Foreign)),
        Hostile::down("lying-size", "malformed", with(6, M::LyingSize)),
        Hostile::down("newgrf-count-255", "malformed", with(6, M::LyingGrfCount)),
        Hostile::down("endless-string", "malformed", with(6, M::EndlessString)),
        Hostile::down("never-ends", "timeout", with(6, M::NeverEnds)),
        Hostile::down("oversized", "too_large", with(6, M::Oversized)),
        Hostile::down("silent", "timeout", with(6, M::Silence)),
        Hostile::down("full", "refused", with(6, M::Full)),
        Hostile::down("flood", "mismatch", with(6, M::Flood)),
        Hostile::down("version-8", "malformed", with(6, M::FutureVersion)),
    ]
}
