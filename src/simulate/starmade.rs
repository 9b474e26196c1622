//! Simulated StarMade server: the status request on TCP answered with the typed parameters
//! qstat and gamedig read (info version, a float version, name, description, start time,
//! players, max players), and the ways a broken server answers.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::hostile::{start, Hostile};
use super::tcp::{serve_tcp, write_split};
use super::{SimServer, World, WorldState};
use crate::protocol::starmade::{encode_reply, Param, HEADER, REQUEST};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Starmade,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The start time the simulator reports (ms since 1970, December 2023). Its bytes
/// (00 00 01 8c 12 00 00 00) also keep gamedig 5.3.3's reader in step: it has no case for
/// the long type and reads the long's bytes as type marks.
pub const START_TIME: i64 = 0x0000_018c_1200_0000;

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// The answer one byte per write.
    Bytewise,
    /// The length claims 1000 bytes more than come; then the connection closes.
    LyingLength,
    /// The length announces 60000 bytes, then a byte every 50 ms, forever.
    NeverEnds,
    /// The length announces 2 GB.
    Oversized,
    /// The request is read, never answered.
    Silence,
    /// A ping packet (0x20) where the status packet should be.
    NotAPacket,
    /// A player count of -1.
    NegativeCount,
    /// A parameter of a type that does not exist (9).
    UnknownType,
}

pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    serve_tcp(world, misbehaviour, |stream, world, m| async move {
        serve(stream, world, *m).await
    })
    .await
}

/// A small universe, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "StarMade Demo Sector".into(),
            map: String::new(),
            game: "StarMade".into(),
            version: "0.199".into(),
            max: 32,
            players: vec![("Pilot".into(), 0, 0.0), ("Engineer".into(), 0, 0.0)],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    spawn(world, Misbehaviour::None).await
}

/// The status parameters of `w`.
pub fn info_params(w: &WorldState) -> Vec<Param> {
    vec![
        Param::Byte(2),
        Param::Float(w.version.parse().unwrap_or(0.199)),
        Param::Str(w.name.clone()),
        Param::Str("A simulated StarMade universe".into()),
        Param::Long(START_TIME),
        Param::Int(w.players.len().min(i32::MAX as usize) as i32),
        Param::Int(w.max.min(i32::MAX as u32) as i32),
    ]
}

/// The reply `w` gets, as `m` breaks it.
pub fn reply(w: &WorldState, m: Misbehaviour) -> Vec<u8> {
    let mut params = info_params(w);
    if m == Misbehaviour::NegativeCount {
        params[5] = Param::Int(-1);
    }
    let mut out = Vec::new();
    encode_reply(&params, 1_700_000_000_000, &mut out);
    match m {
        Misbehaviour::LyingLength => {
            let n = u32::from_be_bytes([out[0], out[1], out[2], out[3]]) + 1000;
            out[..4].copy_from_slice(&n.to_be_bytes());
        }
        Misbehaviour::NotAPacket => out[HEADER] = 0x20,
        Misbehaviour::UnknownType => {
            // The first parameter's type byte (after the packet header and the count).
            out[HEADER + 9] = 9;
        }
        _ => {}
    }
    out
}

async fn serve(mut stream: TcpStream, world: World, m: Misbehaviour) -> io::Result<()> {
    // The request: its length field, then that many bytes (13 in all).
    let mut request = [0u8; REQUEST.len()];
    stream.read_exact(&mut request).await?;
    let w = world.snapshot();
    match m {
        Misbehaviour::Silence => {
            let mut sink = [0u8; 64];
            while stream.read(&mut sink).await? > 0 {}
            Ok(())
        }
        Misbehaviour::Oversized => stream.write_all(&0x7fff_ffffu32.to_be_bytes()).await,
        Misbehaviour::NeverEnds => {
            stream.write_all(&60_000u32.to_be_bytes()).await?;
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                stream.write_all(&[0]).await?;
            }
        }
        Misbehaviour::Bytewise => write_split(&mut stream, &reply(&w, m), Some(1)).await,
        _ => stream.write_all(&reply(&w, m)).await,
    }
}

/// The hostile fleet's StarMade servers.
pub fn hostile() -> Vec<Hostile> {
    use Misbehaviour as M;
    let with = |m: M| start(move |w| spawn(w, m));
    vec![
        Hostile::up("ok", 2, 24, None, with(M::None)),
        Hostile::up("bytewise", 2, 24, None, with(M::Bytewise)),
        Hostile::down("lying-length", "incomplete", with(M::LyingLength)),
        Hostile::down("never-ends", "timeout", with(M::NeverEnds)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("silent", "timeout", with(M::Silence)),
        Hostile::down("not-a-packet", "malformed", with(M::NotAPacket)),
        Hostile::down("negative-count", "malformed", with(M::NegativeCount)),
        Hostile::down("unknown-type", "malformed", with(M::UnknownType)),
    ]
}
