//! Simulated Minecraft Bedrock server: answers RakNet unconnected pings with a pong whose ID
//! string layout is chosen (vanilla, or the shorter and longer ones other implementations
//! send), with knobs for hostile replies.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use super::churn;
use super::hostile::{self, start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::bedrock::{self, MAGIC, PONG_HEADER_LEN};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::MinecraftBedrock,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The server GUID the simulator reports by default.
pub const SERVER_GUID: u64 = 0x5eed_b00c_0123_4567;
/// The largest UDP payload over IPv4; the huge ID string fills a datagram of this size.
pub const MAX_UDP_PAYLOAD: usize = 65_507;

/// How much of the ID string the server writes, as the implementations seen in the wild.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum IdLayout {
    /// The vanilla layout: all twelve fields and a trailing `;`.
    #[default]
    Full,
    /// Stops after the game mode name.
    StopAfterGameMode,
    /// Stops right after the GUID.
    StopAfterGuid,
    /// The full layout with a 0 GUID.
    ZeroGuid,
    /// The full layout plus fields nobody documents.
    ExtraFields,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Every pong is cut in the middle of its header.
    Short,
    /// The magic is wrong.
    BadMagic,
    /// The pong echoes another time than the ping's.
    WrongTime,
    /// The ID string length claims more bytes than follow (up to 4000 more), but no more than
    /// a client accepts: a lie about the datagram, not an oversized string, whatever the
    /// world's name.
    LengthBeyondDatagram,
    /// The ID string fills the largest UDP datagram (about 64 KiB).
    HugeId,
}

#[derive(Debug, Clone)]
pub struct BedrockConfig {
    /// `MCPE` or `MCEE`.
    pub edition: String,
    pub protocol: u32,
    pub game_mode: String,
    pub server_guid: u64,
    pub layout: IdLayout,
    pub misbehaviour: Misbehaviour,
}

impl Default for BedrockConfig {
    fn default() -> Self {
        BedrockConfig {
            edition: "MCPE".into(),
            protocol: 766,
            game_mode: "Survival".into(),
            server_guid: SERVER_GUID,
            layout: IdLayout::Full,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves Bedrock pings on 127.0.0.1, on a port of the system's choosing. MOTD line 1 is the
/// world's name, line 2 its map; online counts players and bots.
pub async fn spawn(world: World, config: BedrockConfig) -> io::Result<SimServer> {
    datagrams::spawn(move |req: &[u8], _from, own: SocketAddr| {
        answer(req, own.port(), &world.snapshot(), &config)
            .into_iter()
            .collect()
    })
    .await
}

/// A Bedrock server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "§bDemo §lBedrock".into(),
        map: "Demo level".into(),
        game: "Survival".into(),
        version: "1.21.50".into(),
        max: 20,
        players: vec![("Steve".into(), 0, 0.0), ("Alex".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, BedrockConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(6), 0, |t| {
        format!("Player{t}")
    })
    .await
}

/// The ID string in the configured layout.
fn id_string(port: u16, w: &WorldState, config: &BedrockConfig) -> String {
    let online = (w.players.len() as u32).saturating_add(w.bots);
    let guid = match config.layout {
        IdLayout::ZeroGuid => 0,
        _ => config.server_guid,
    };
    let head = format!(
        "{};{};{};{};{};{};{}",
        config.edition, w.name, config.protocol, w.version, online, w.max, guid
    );
    match config.layout {
        IdLayout::StopAfterGuid => head,
        IdLayout::StopAfterGameMode => format!("{head};{};{}", w.map, config.game_mode),
        IdLayout::Full | IdLayout::ZeroGuid => {
            format!("{head};{};{};1;{port};{port};", w.map, config.game_mode)
        }
        IdLayout::ExtraFields => format!(
            "{head};{};{};1;{port};{port};0;extra;fields",
            w.map, config.game_mode
        ),
    }
}

/// The pong for one datagram, if any.
fn answer(datagram: &[u8], port: u16, w: &WorldState, config: &BedrockConfig) -> Option<Vec<u8>> {
    let ping = bedrock::decode_ping(datagram).ok()?;
    let time = match config.misbehaviour {
        Misbehaviour::Silence => return None,
        Misbehaviour::WrongTime => ping.time.wrapping_add(1),
        _ => ping.time,
    };
    let id = match config.misbehaviour {
        Misbehaviour::HugeId => vec![b'A'; MAX_UDP_PAYLOAD - PONG_HEADER_LEN],
        _ => id_string(port, w, config).into_bytes(),
    };
    let mut out = Vec::with_capacity(PONG_HEADER_LEN + id.len());
    bedrock::encode_pong(time, config.server_guid, &id, &mut out);
    match config.misbehaviour {
        Misbehaviour::Short => out.truncate(20),
        Misbehaviour::BadMagic => {
            // The magic sits after the id byte, the time and the GUID.
            let at = 1 + 8 + 8;
            out[at..at + MAGIC.len()].copy_from_slice(&[0xAB; 16]);
        }
        Misbehaviour::LengthBeyondDatagram => {
            // Over the cap it would read as too large rather than as a lie (the fleet's world
            // names are long enough to tip a fixed +4000 over).
            let claimed = (id.len() + 4000)
                .min(bedrock::MAX_ID_BYTES)
                .max(id.len() + 1)
                .min(usize::from(u16::MAX)) as u16;
            out[PONG_HEADER_LEN - 2..PONG_HEADER_LEN].copy_from_slice(&claimed.to_be_bytes());
        }
        _ => {}
    }
    Some(out)
}

/// The hostile fleet's Bedrock servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> BedrockConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || BedrockConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    // The ID string is `;`-separated and capped at 4 KiB: no `;` in the name, and a name that
    // leaves room for the other fields. Bots count among players; there is no bots gauge.
    let nasty = hostile::nasty_name(3_000, true).replace(';', ",");
    vec![
        Hostile::up("ok", 4, 24, None, with(Default::default)),
        Hostile::up("str-nasty", 4, 24, None, with(Default::default)).serving_name(nasty),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("short", "malformed", Misbehaviour::Short),
        bad("magic", "mismatch", Misbehaviour::BadMagic),
        bad("time", "mismatch", Misbehaviour::WrongTime),
        bad("length", "malformed", Misbehaviour::LengthBeyondDatagram),
        bad("64k", "too_large", Misbehaviour::HugeId),
    ]
}
