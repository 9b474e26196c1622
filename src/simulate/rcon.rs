//! Simulated Source RCON server, as the three families of real servers behave
//! (docs/protocols/factorio.md): SRCDS, vanilla Minecraft and Factorio, each answering
//! commands from the world through a per-game responder, with knobs for misbehaviour.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::timeout;

use super::{SimServer, World, WorldState};
use crate::protocol::rcon::{
    decode, encode, AUTH_REFUSED_ID, TYPE_AUTH, TYPE_AUTH_RESPONSE, TYPE_EXEC, TYPE_RESPONSE,
};

/// The pause between SRCDS's empty reply and its login answer, so they leave as two
/// segments as from the real server.
const SRCDS_GAP: Duration = Duration::from_millis(20);

/// A connection is dropped after this long, whatever the client does.
const MAX_CONNECTION: Duration = Duration::from_secs(30);

/// Which real server family the simulator behaves as.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Flavour {
    /// An empty RESPONSE_VALUE before each login answer; an empty command is answered with an
    /// empty reply of its id.
    Srcds,
    /// Long replies cut into 4096-byte packets (mid-word, no newline); an empty command is
    /// answered with an error text; a read holding two packets closes the connection.
    Minecraft,
    /// Empty commands are never answered; every reply is one packet.
    #[default]
    Factorio,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Replies come in packets of this many body bytes.
    Split(usize),
    /// A packet of an id nobody sent comes before every reply packet.
    Interleave,
    /// The login is answered, commands never.
    Silence,
    /// A command's reply announces a 1 MiB packet.
    Oversized,
    /// The login is answered with a reply to something else, forever.
    Flood,
}

/// What the server answers a command with, from the world.
pub type Responder = fn(&WorldState, &str) -> String;

#[derive(Debug, Clone)]
pub struct RconConfig {
    pub flavour: Flavour,
    pub password: String,
    pub respond: Responder,
    pub misbehaviour: Misbehaviour,
}

impl Default for RconConfig {
    fn default() -> Self {
        RconConfig {
            flavour: Flavour::Factorio,
            password: "secret".into(),
            respond: factorio,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Factorio's answers: `/players online count` and `/players online`.
pub fn factorio(state: &WorldState, command: &str) -> String {
    let n = state.players.len();
    match command.trim() {
        "/players online count" | "/p o c" => format!("Online players ({n}):"),
        "/players online" | "/p o" => {
            let mut text = format!("Online players ({n}):");
            for (name, _, _) in &state.players {
                text.push_str(&format!("\n  {name} (online)"));
            }
            text
        }
        other => format!("Unknown command \"{other}\"."),
    }
}

/// A Source dedicated server's console (Orange Box layout, as CS:S, Garry's Mod and L4D2
/// print it): `stats` with the world's player count; any other command is unknown, as
/// srcds says it.
pub fn srcds(state: &WorldState, command: &str) -> String {
    match command.trim() {
        "stats" => format!(
            "CPU   In (KB/s)  Out (KB/s)  Uptime  Map changes  FPS      Players  Connects\n\
             12.50 3.25       16.50       95      2            66.67    {:<8} 31\n",
            state.players.len()
        ),
        other => format!("Unknown command \"{other}\"\n"),
    }
}

/// Serves RCON on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: RconConfig) -> io::Result<SimServer> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let config = Arc::new(config);
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let _ = stream.set_nodelay(true);
            let (world, config) = (world.clone(), config.clone());
            tokio::spawn(async move {
                let _ = timeout(MAX_CONNECTION, serve(stream, world, &config)).await;
            });
        }
    });
    Ok(SimServer::new(addr, vec![task]))
}

async fn serve(mut stream: TcpStream, world: World, config: &RconConfig) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    let mut authed = false;
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        let mut packets = Vec::new();
        while let Ok(Some((p, used))) = decode(&buf) {
            buf.drain(..used);
            packets.push(p);
        }
        if decode(&buf).is_err() || buf.len() > 8192 {
            return Ok(());
        }
        // Vanilla Minecraft reads one packet per read and drops the connection otherwise.
        if config.flavour == Flavour::Minecraft && packets.len() > 1 {
            return Ok(());
        }
        for p in packets {
            let mut out = Vec::new();
            match p.kind {
                TYPE_AUTH => {
                    if config.flavour == Flavour::Srcds {
                        // Its own send, as SRCDS does: clients that read one packet per
                        // receive (opengsq, PyPI rcon) rely on the two arriving apart.
                        let mut empty = Vec::new();
                        encode(p.id, TYPE_RESPONSE, b"", &mut empty);
                        stream.write_all(&empty).await?;
                        tokio::time::sleep(SRCDS_GAP).await;
                    }
                    authed = p.body == config.password.as_bytes();
                    let id = if authed { p.id } else { AUTH_REFUSED_ID };
                    if config.misbehaviour == Misbehaviour::Flood && authed {
                        for k in 0..1000 {
                            encode(p.id.wrapping_add(1000 + k), TYPE_RESPONSE, b"x", &mut out);
                        }
                    } else {
                        encode(id, TYPE_AUTH_RESPONSE, b"", &mut out);
                    }
                }
                TYPE_EXEC if !authed => return Ok(()),
                TYPE_EXEC if p.body.is_empty() => match config.flavour {
                    Flavour::Srcds => encode(p.id, TYPE_RESPONSE, b"", &mut out),
                    Flavour::Minecraft => {
                        let text = b"Unknown or incomplete command, see below for error";
                        encode(p.id, TYPE_RESPONSE, text, &mut out)
                    }
                    Flavour::Factorio => {}
                },
                TYPE_EXEC => {
                    let text =
                        (config.respond)(&world.snapshot(), &String::from_utf8_lossy(&p.body));
                    reply(config, p.id, text.as_bytes(), &mut out);
                }
                _ => {}
            }
            if !out.is_empty() {
                stream.write_all(&out).await?;
            }
        }
    }
}

/// A command's reply, as the flavour and misbehaviour cut it.
fn reply(config: &RconConfig, id: i32, body: &[u8], out: &mut Vec<u8>) {
    let piece = match (config.misbehaviour, config.flavour) {
        (Misbehaviour::Silence, _) => return,
        (Misbehaviour::Oversized, _) => {
            out.extend_from_slice(&(1i32 << 20).to_le_bytes());
            out.extend_from_slice(&id.to_le_bytes());
            return;
        }
        (Misbehaviour::Split(n), _) => n.max(1),
        (_, Flavour::Factorio) => usize::MAX,
        _ => 4096,
    };
    let mut chunks: Vec<&[u8]> = body.chunks(piece.min(body.len().max(1))).collect();
    if chunks.is_empty() {
        chunks.push(b"");
    }
    for c in chunks {
        if config.misbehaviour == Misbehaviour::Interleave {
            encode(
                id.wrapping_add(5000),
                TYPE_RESPONSE,
                b"[log] something happened",
                out,
            );
        }
        raw(id, TYPE_RESPONSE, c, out);
    }
}

/// A packet without the request-side length cut ([`encode`] cuts bodies at 1400 bytes).
fn raw(id: i32, kind: i32, body: &[u8], out: &mut Vec<u8>) {
    let size = (body.len() + 10) as i32;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&[0, 0]);
}
