//! Simulated TeamSpeak 2 server's TCP query port: the `[TS]` banner, `sel`, `si`, `pl`, `cl`,
//! `ver` and `quit`, with `si <port>` / `pl <port>` selecting in one go (as qstat asks) and
//! commands pipelined on one connection; knobs for hostile replies.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::churn;
use super::hostile::{start, Hostile};
use super::tcp::{self, serve_tcp};
use super::{SimServer, World, WorldState};
use crate::protocol::teamspeak2 as ts2;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Teamspeak2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Every answer goes out one byte per write.
    Bytewise,
    /// Accepts the connection and says nothing.
    Silence,
    /// Another service on the port (an SSH banner).
    NotTs2,
    /// `si` answers a line every 50 ms, forever, never its `OK`.
    NeverEnds,
    /// `si` answers one line of 1 MiB.
    HugeLine,
    /// `si` answers 100,000 short lines before its `OK`.
    ManyLines,
    /// `server_currentusers` says 4,000,000,000.
    LyingCount,
    /// Closes the connection after answering `sel`.
    CloseAfterSel,
    /// `pl` answers `ERROR, ...` (the status stands without the list).
    PlayersRefused,
}

#[derive(Debug, Clone)]
pub struct Ts2Config {
    pub misbehaviour: Misbehaviour,
    /// The voice port of the one virtual server.
    pub voice_port: u16,
}

impl Default for Ts2Config {
    fn default() -> Self {
        Ts2Config {
            misbehaviour: Misbehaviour::None,
            voice_port: ts2::DEFAULT_VOICE_PORT,
        }
    }
}

/// Serves the query port on 127.0.0.1, on a port of the system's choosing
/// ([`serve_tcp`]: Nagle off, each connection cut after [`super::tcp::MAX_CONNECTION`]).
pub async fn spawn(world: World, config: Ts2Config) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        session(stream, world, &config).await
    })
    .await
}

/// A voice server whose users come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo Voice 2".into(),
        map: String::new(),
        game: String::new(),
        version: "2.0.24.1".into(),
        max: 50,
        players: vec![("alice".into(), 0, 300.0), ("bob".into(), 0, 60.0)],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Ts2Config::default());
    churn::demo(world, state, serve, Duration::from_secs(8), 0, |t| {
        format!("talker{t}")
    })
    .await
}

/// The hostile fleet's TeamSpeak 2 servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                Ts2Config {
                    misbehaviour: m,
                    ..Ts2Config::default()
                },
            )
        })
    };
    let other_port = start(|w| {
        spawn(
            w,
            Ts2Config {
                voice_port: 8768,
                ..Ts2Config::default()
            },
        )
    });
    use Misbehaviour as M;
    vec![
        // The fleet's world: 2 players and 2 bots (voice clients here), 24 slots.
        Hostile::up("ok", 4, 24, None, with(M::None)),
        Hostile::up("bytewise", 4, 24, None, with(M::Bytewise)),
        Hostile::up("players-refused", 4, 24, None, with(M::PlayersRefused)),
        Hostile::down("silent", "timeout", with(M::Silence)),
        Hostile::down("not-ts2", "malformed", with(M::NotTs2)),
        Hostile::down("never-ends", "timeout", with(M::NeverEnds)),
        Hostile::down("huge-line", "too_large", with(M::HugeLine)).heavy(),
        Hostile::down("many-lines", "too_large", with(M::ManyLines)),
        Hostile::down("lying-count", "malformed", with(M::LyingCount)),
        Hostile::down("close-after-sel", "incomplete", with(M::CloseAfterSel)),
        Hostile::down("other-voice-port", "malformed", other_port),
    ]
}

/// The voice clients: the world's players, then its bots.
fn clients(w: &WorldState) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = w.players.iter().map(|(n, _, t)| (n.clone(), *t)).collect();
    for b in 0..w.bots {
        out.push((format!("musicbot {b}"), 0.0));
    }
    out
}

/// `si`'s lines for the world, in the order TeamSpeak 2.0.24 prints them.
pub fn server_info(w: &WorldState, voice_port: u16, lying: bool) -> Vec<(String, String)> {
    let online = if lying {
        4_000_000_000
    } else {
        clients(w).len() as u64
    };
    [
        ("server_id", "1".to_string()),
        ("server_name", w.name.clone()),
        ("server_platform", "Linux".into()),
        ("server_welcomemessage", "Welcome to TeamSpeak".into()),
        ("server_webpost_linkurl", String::new()),
        ("server_webpost_posturl", String::new()),
        ("server_password", u8::from(w.password).to_string()),
        ("server_clan_server", "0".into()),
        ("server_udpport", voice_port.to_string()),
        ("server_maxusers", w.max.to_string()),
        ("server_allow_codec_celp51", "1".into()),
        ("server_allow_codec_gsm", "1".into()),
        ("server_allow_codec_speex", "1".into()),
        ("server_packetssend", "1000".into()),
        ("server_bytessend", "64000".into()),
        ("server_packetsreceived", "900".into()),
        ("server_bytesreceived", "60000".into()),
        ("server_uptime", "86400".into()),
        ("server_currentusers", online.to_string()),
        ("server_currentchannels", "2".into()),
        ("server_bwinlastsec", "0".into()),
        ("server_bwoutlastsec", "0".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

async fn session(mut stream: TcpStream, world: World, config: &Ts2Config) -> io::Result<()> {
    let m = config.misbehaviour;
    // Byte by byte: every line split across as many segments as it has bytes.
    let bytewise = (m == Misbehaviour::Bytewise).then_some(1);
    match m {
        Misbehaviour::Silence => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return Ok(());
        }
        Misbehaviour::NotTs2 => {
            return stream
                .write_all(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
                .await;
        }
        _ => {}
    }
    tcp::write_split(&mut stream, b"[TS]\r\n", bytewise).await?;
    let mut selected = false;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk).await? {
            0 => return Ok(()),
            n => buf.extend_from_slice(&chunk[..n]),
        }
        if buf.len() > 64 * 1024 {
            return Ok(());
        }
        // Every command that has arrived is answered in one write, as qstat (which parses
        // each TCP read on its own, starting again at `si`'s format) needs for its pipelined
        // `si`, `pl`, `quit`.
        let mut out = Vec::new();
        let mut then = After::Continue;
        while let Some(lf) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=lf).collect();
            let text = String::from_utf8_lossy(&line).trim().to_string();
            if text.is_empty() {
                continue;
            }
            then = answer(&text, &world, config, &mut selected, &mut out);
            if then != After::Continue {
                break;
            }
        }
        tcp::write_split(&mut stream, &out, bytewise).await?;
        match then {
            After::Continue => {}
            After::Close => return stream.shutdown().await,
            After::Drip => loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                stream.write_all(b"server_welcomemessage=more\r\n").await?;
            },
        }
    }
}

/// What the session does after a batch of answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum After {
    Continue,
    Close,
    /// A line every 50 ms, forever ([`Misbehaviour::NeverEnds`]).
    Drip,
}

/// Answers one command into `out`.
fn answer(
    text: &str,
    world: &World,
    config: &Ts2Config,
    selected: &mut bool,
    out: &mut Vec<u8>,
) -> After {
    let m = config.misbehaviour;
    let (word, arg) = text.split_once(' ').unwrap_or((text, ""));
    let word = word.to_ascii_lowercase();
    let port_ok = |arg: &str| arg.trim() == config.voice_port.to_string();
    // `si <port>` and `pl <port>` select in passing (qstat's way).
    if matches!(word.as_str(), "si" | "pl" | "cl") && !arg.is_empty() {
        *selected = port_ok(arg);
    }
    let w = world.snapshot();
    match word.as_str() {
        "sel" => {
            *selected = port_ok(arg);
            if !*selected {
                out.extend_from_slice(b"ERROR, invalid id\r\n");
                return After::Continue;
            }
            out.extend_from_slice(b"OK\r\n");
            if m == Misbehaviour::CloseAfterSel {
                return After::Close;
            }
        }
        "si" | "pl" | "cl" if !*selected => out.extend_from_slice(b"ERROR, invalid id\r\n"),
        "si" => match m {
            Misbehaviour::NeverEnds => {
                out.extend_from_slice(b"server_id=1\r\n");
                return After::Drip;
            }
            Misbehaviour::HugeLine => {
                out.extend_from_slice(b"server_name=");
                out.resize(out.len() + (1 << 20), b'x');
                out.extend_from_slice(b"\r\nOK\r\n");
            }
            Misbehaviour::ManyLines => {
                for i in 0..100_000 {
                    out.extend_from_slice(format!("k{i}=v\r\n").as_bytes());
                }
                out.extend_from_slice(b"OK\r\n");
            }
            _ => ts2::encode_info(
                &server_info(&w, config.voice_port, m == Misbehaviour::LyingCount),
                out,
            ),
        },
        "pl" if m == Misbehaviour::PlayersRefused => {
            out.extend_from_slice(b"ERROR, insufficient privileges\r\n")
        }
        "pl" => {
            ts2::encode_player_header(out);
            for (i, (name, seconds)) in clients(&w).iter().enumerate() {
                let ping = 20 + 5 * i as u32;
                ts2::encode_player(i as u32 + 1, ping, *seconds as u32, name, out);
            }
            out.extend_from_slice(b"OK\r\n");
        }
        "cl" => {
            out.extend_from_slice(
                b"id\tcodec\tparent\td\tmaxusers\tname\tflags\tpassword\ttopic\r\n\
                  1\t10\t-1\t1\t0\t\"Lobby\"\t\"RD\"\t0\t\"\"\r\n\
                  2\t10\t-1\t2\t0\t\"AFK\"\t\"R\"\t0\t\"\"\r\nOK\r\n",
            );
        }
        "ver" => out.extend_from_slice(b"2.0.24.1 Linux Freeware\r\nOK\r\n"),
        // A clean close after what was asked.
        "quit" => return After::Close,
        _ => out.extend_from_slice(b"ERROR, unknown command\r\n"),
    }
    After::Continue
}
