//! Simulated 7 Days to Die telnet console: the password prompt, the banner, log lines
//! streaming by, `mem` answered from the world, `exit`; with knobs for misbehaviour. Written
//! from the console's documented behaviour (protocol::sdtd), not from a capture.

use std::io;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpStream;

use super::hostile::Quoted;
use super::tcp::{serve_tcp, write_split, MAX_CONNECTION};
use super::{SimServer, World, WorldState};

/// Wrong passwords before the console hangs up.
const MAX_TRIES: u32 = 3;

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Everything is written in pieces of this many bytes.
    Split(usize),
    /// `mem` starts a line that never ends: bytes without a newline, forever.
    Endless,
    /// `mem` is answered by a line announcing itself 2^31-1 bytes long (telnet has no length
    /// field: the line just goes on), 64 KiB of it then silence.
    Huge,
    /// Log lines, forever, never the `mem` line.
    Flood,
    /// A log line quoting the password (raw, URL-encoded, base64, hex) after the login.
    EchoPassword,
}

#[derive(Debug, Clone)]
pub struct SdtdConfig {
    pub password: String,
    pub misbehaviour: Misbehaviour,
}

impl Default for SdtdConfig {
    fn default() -> Self {
        SdtdConfig {
            password: "secret".into(),
            misbehaviour: Misbehaviour::None,
        }
    }
}

const BANNER: &str = "Logon successful.\r\n\r\n\r\n\r\n*** Connected with 7DTD server.\r\n\
    *** Server version: V 1.0 (b333) Compatibility Version: V 1.0\r\n\
    *** Dedicated server only build\r\n\r\nServer IP:   Any\r\nServer port: 26900\r\n\
    Max players: 8\r\nGame mode:   GameModeSurvival\r\nWorld:       Navezgane\r\n\
    Game name:   Simulated\r\nDifficulty:  2\r\n\r\n\
    Press 'help' to get a list of all commands. Press 'exit' to end session.\r\n\r\n";

/// `mem`'s line, from the world's player count; fixed figures besides.
pub fn mem(state: &WorldState) -> String {
    format!(
        "Time: 90.00m FPS: 35.12 Heap: 512.0MB Max: 1024.0MB Chunks: 123 CGO: 45 Ply: {} \
         Zom: 12 Ent: 20 (45) Items: 7 CO: 2 RSS: 1234.5MB\r\n",
        state.players.len()
    )
}

/// Serves the console on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: SdtdConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

async fn send(stream: &mut TcpStream, text: &[u8], config: &SdtdConfig) -> io::Result<()> {
    let piece = match config.misbehaviour {
        Misbehaviour::Split(n) => Some(n),
        _ => None,
    };
    write_split(stream, text, piece).await
}

fn echo_line(pw: &str) -> String {
    let Quoted { url, base64, hex } = Quoted::new(pw);
    format!(
        "2026-11-29T10:00:00 5400.000 INF Telnet login from 127.0.0.1 with {pw} \
         (url {url}, base64 {base64}, hex {hex})\r\n"
    )
}

async fn serve(mut stream: TcpStream, world: World, config: &SdtdConfig) -> io::Result<()> {
    send(&mut stream, b"Please enter password:", config).await?;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    let mut authed = false;
    let mut tries = 0;
    loop {
        let n = stream.read(&mut chunk).await?;
        if n == 0 || buf.len() > 4096 {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
        while let Some(end) = buf.iter().position(|&b| b == b'\n') {
            let raw: Vec<u8> = buf.drain(..=end).collect();
            let line = String::from_utf8_lossy(&raw).trim().to_string();
            if !authed {
                if line == config.password {
                    authed = true;
                    send(&mut stream, BANNER.as_bytes(), config).await?;
                    if config.misbehaviour == Misbehaviour::EchoPassword {
                        send(&mut stream, echo_line(&config.password).as_bytes(), config).await?;
                    }
                    continue;
                }
                tries += 1;
                if tries >= MAX_TRIES {
                    return Ok(());
                }
                send(
                    &mut stream,
                    b"Password incorrect, please enter password:",
                    config,
                )
                .await?;
                continue;
            }
            match line.as_str() {
                "exit" => return Ok(()),
                "mem" => {}
                "" => continue,
                other => {
                    let text = format!("*** ERROR: unknown command '{other}'\r\n");
                    send(&mut stream, text.as_bytes(), config).await?;
                    continue;
                }
            }
            // A log line before the answer, as the game's log streams to every session.
            let log = "2026-11-29T10:00:00 5400.000 INF Executing command 'mem' by Telnet from 127.0.0.1:0\r\n";
            send(&mut stream, log.as_bytes(), config).await?;
            match config.misbehaviour {
                Misbehaviour::Endless => loop {
                    send(&mut stream, b"Time: 90.00m FPS: ", config).await?;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                },
                Misbehaviour::Huge => {
                    let head = format!("[{} bytes follow] ", i32::MAX);
                    send(&mut stream, head.as_bytes(), config).await?;
                    send(&mut stream, &[b'x'; 64 * 1024], config).await?;
                    tokio::time::sleep(MAX_CONNECTION).await;
                    return Ok(());
                }
                Misbehaviour::Flood => loop {
                    send(
                        &mut stream,
                        b"2026-11-29T10:00:00 5400.000 INF noise\r\n",
                        config,
                    )
                    .await?;
                    tokio::time::sleep(Duration::from_millis(1)).await;
                },
                _ => {}
            }
            send(&mut stream, mem(&world.snapshot()).as_bytes(), config).await?;
        }
    }
}
