//! Simulated Source RCON server, as the three families of real servers behave
//! (docs/protocols/factorio.md): SRCDS, vanilla Minecraft and Factorio, each answering
//! commands from the world through a per-game responder, with knobs for misbehaviour.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::tcp::{self, serve_tcp};
use super::{SimServer, World, WorldState};
use crate::protocol::rcon::{
    decode, encode, AUTH_REFUSED_ID, TYPE_AUTH, TYPE_AUTH_RESPONSE, TYPE_EXEC, TYPE_RESPONSE,
};

/// The pause between SRCDS's empty reply and its login answer, so they leave as two
/// segments as from the real server.
const SRCDS_GAP: Duration = Duration::from_millis(20);

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
    /// A command's reply announces a 2^31-1 byte packet (the largest `size` an i32 holds).
    MaxLength,
    /// Every byte goes out in a write of its own (TCP segments of one byte).
    Drip,
    /// Every reply quotes the RCON password back (a console echoing what it was sent).
    EchoPassword,
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

/// CS2's console (Source 2): no `stats` (it prints nothing the engine reads as a table);
/// `status` in the layout other projects captured from real servers (docs of
/// `protocol::a2s::console_status`), humans and bots from the world.
pub fn cs2(state: &WorldState, command: &str) -> String {
    match command.trim() {
        "stats" => String::new(),
        "status" => {
            let mut text = format!(
                "Server:  Running [0.0.0.0:27015]\n\
                 Client:  Disconnected\n\
                 ----- Status -----\n\
                 @ Current  :  game\n\
                 source   : console\n\
                 hostname : {}\n\
                 spawngroup count : 1\n\
                 version  : 1.41.7.5/14175 10847 secure  public\n\
                 os/type  : Linux dedicated\n\
                 players  : {} humans, {} bots ({} max) (not hibernating) (unreserved)\n\
                 ---------spawngroups----\n\
                 loaded spawngroup(  1)  : SV:  [1: {} | main lump | mapload]\n\
                 ---------players--------\n  \
                   id     time ping loss      state   rate adr name\n",
                state.name,
                state.players.len(),
                state.bots,
                state.max,
                state.map
            );
            for (i, (name, _, secs)) in state.players.iter().enumerate() {
                let (m, s) = ((*secs as u32) / 60, (*secs as u32) % 60);
                text.push_str(&format!(
                    "{:>5}    {m:02}:{s:02}   18    0     active 196608 192.0.2.{}:27005 '{name}'\n",
                    i + 2,
                    i + 10
                ));
            }
            for b in 0..state.bots {
                let id = state.players.len() as u32 + 2 + b;
                text.push_str(&format!(
                    "{id:>5}      BOT    0    0     active      0 'Bot{b}'\n"
                ));
            }
            text.push_str("#end\n");
            text
        }
        other => format!("Unknown command '{other}'!\n"),
    }
}

/// Project Zomboid's console: `players`, `Players connected (N): ` and a `-name` line each.
pub fn zomboid(state: &WorldState, command: &str) -> String {
    match command.trim() {
        "players" => {
            let mut text = format!("Players connected ({}): \n", state.players.len());
            for (name, _, _) in &state.players {
                text.push_str(&format!("-{name}\n"));
            }
            text
        }
        other => format!("Unknown command {other}\n"),
    }
}

/// Conan Exiles' console: `listplayers`, a `|` table with the character name second.
pub fn conan(state: &WorldState, command: &str) -> String {
    match command.trim() {
        "listplayers" => {
            let mut text = String::from(
                "Idx | Char name | Player name |      User ID |       Platform ID | Platform Name\n",
            );
            for (i, (name, _, _)) in state.players.iter().enumerate() {
                text.push_str(&format!(
                    "{i:>3} | {name} | {name}#{:04} | A-SIM{i:07} | 7656119800000{i:04} |         STEAM\n",
                    1000 + i
                ));
            }
            text
        }
        other => format!("Couldn't find the command: {other}. Try \"help\"\n"),
    }
}

/// ARK: Survival Ascended's console: `ListPlayers` as `N. Name, EOSID` lines (a 32-hex-digit
/// Epic product user id), or `No Players Connected`, each reply padded with ` \n` as ARK
/// pads them; anything else is unknown.
pub fn asa(state: &WorldState, command: &str) -> String {
    let command = command.trim();
    if command.eq_ignore_ascii_case("ListPlayers") {
        if state.players.is_empty() {
            return "No Players Connected\n \n".into();
        }
        let mut text = String::from("\n");
        for (i, (name, _, _)) in state.players.iter().enumerate() {
            text.push_str(&format!("{i}. {name}, 0002{:028x}\n", 0x5eed_0000 + i));
        }
        text.push_str(" \n");
        return text;
    }
    "Server received, But no response!! \n".into()
}

/// The config line naming a file that holds `password`, for the hostile fleet's targets
/// (its `config` lines are static): the file is written once per process into `cell`'s
/// line, readable by its owner only, in the system's temporary directory, and left there
/// (a few bytes of a test password).
pub(super) fn password_file_line(
    cell: &'static std::sync::OnceLock<String>,
    tag: &str,
    password: &str,
) -> &'static str {
    cell.get_or_init(|| {
        let path =
            std::env::temp_dir().join(format!("gse-{tag}-sim-{}.password", std::process::id()));
        let written = {
            use std::io::Write;
            #[cfg(unix)]
            use std::os::unix::fs::OpenOptionsExt;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            options.mode(0o600);
            options
                .open(&path)
                .and_then(|mut f| f.write_all(password.as_bytes()))
        };
        if let Err(e) = written {
            tracing::warn!(error = %e, tag, "could not write a simulator's password file");
        }
        format!("password_file = {:?}", path.display().to_string())
    })
}

/// Serves RCON on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: RconConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
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
                    let mut text =
                        (config.respond)(&world.snapshot(), &String::from_utf8_lossy(&p.body));
                    if config.misbehaviour == Misbehaviour::EchoPassword {
                        text = format!("rcon_password \"{}\"\n{text}", config.password);
                    }
                    reply(config, p.id, text.as_bytes(), &mut out);
                }
                _ => {}
            }
            // Byte by byte: a reply split across as many segments as it has bytes.
            let bytewise = config.misbehaviour == Misbehaviour::Drip;
            tcp::write_split(&mut stream, &out, bytewise.then_some(1)).await?;
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
        (Misbehaviour::MaxLength, _) => {
            out.extend_from_slice(&i32::MAX.to_le_bytes());
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

/// A demo server of a game asked over RCON (Factorio, ARK): the world dressed as `state`,
/// served with `config`, a player named by `name` joining or leaving every 13 s.
pub async fn spawn_demo(
    world: World,
    state: WorldState,
    config: RconConfig,
    name: fn(u32) -> String,
) -> io::Result<SimServer> {
    world.update(|w| *w = state);
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(13), 0, name));
    Ok(server)
}

/// The hostile servers of a game the exporter asks over RCON for its player count alone
/// (Factorio, ARK: no name, no capacity): its default configuration (`config`) well behaved
/// and with each RCON misbehaviour, a wrong password, and `stranger`, a console of another
/// game (its name, and what it answers every command with). `line` is the config line naming
/// the file with the password the targets log in with.
pub fn count_only_hostile(
    config: fn() -> RconConfig,
    line: &'static str,
    stranger: (&'static str, Responder),
) -> Vec<Hostile> {
    let m = |misbehaviour: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                RconConfig {
                    misbehaviour,
                    ..config()
                },
            )
        })
    };
    let (stranger, respond) = stranger;
    vec![
        // The fleet's world: 2 players (neither game counts bots), no capacity reported.
        Hostile::up("ok", 2, 0, None, m(Misbehaviour::None)).expect_name(""),
        Hostile::up("split", 2, 0, None, m(Misbehaviour::Split(3))).expect_name(""),
        Hostile::up("interleaved", 2, 0, None, m(Misbehaviour::Interleave)).expect_name(""),
        Hostile::down(
            "wrong-password",
            "auth_refused",
            start(move |w| {
                let password = "not-the-configured-one".into();
                spawn(
                    w,
                    RconConfig {
                        password,
                        ..config()
                    },
                )
            }),
        ),
        Hostile::down("silent", "timeout", m(Misbehaviour::Silence)),
        Hostile::down("oversized", "too_large", m(Misbehaviour::Oversized)),
        Hostile::down("flood", "mismatch", m(Misbehaviour::Flood)),
        Hostile::down(
            stranger,
            "malformed",
            start(move |w| {
                spawn(
                    w,
                    RconConfig {
                        respond,
                        ..config()
                    },
                )
            }),
        ),
    ]
    .into_iter()
    .map(|h| h.with_config(line))
    .collect()
}
