//! Simulated Rust (Facepunch) WebRCON console: the WebSocket upgrade with the password as its
//! path, `serverinfo` answered from the world, console broadcasts between replies, and
//! knobs for misbehaviour. Written from what WebRCON clients expect of the real server
//! (protocol::webrcon's sources): a wrong password is upgraded, then closed at once.

use std::io;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tungstenite::protocol::frame::coding::{Control, Data, OpCode};
use tungstenite::protocol::frame::FrameHeader;

use super::hostile::Quoted;
use super::tcp::{serve_tcp, write_split, MAX_CONNECTION};
use super::{SimServer, World, WorldState};

/// The longest upgrade request or client frame read.
const MAX_REQUEST: usize = 16 * 1024;

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Everything after the upgrade request is written in pieces of this many bytes.
    Split(usize),
    /// The reply starts (a non-final fragment) and never ends: a continuation every 50 ms.
    Endless,
    /// The reply's frame header announces 2^31-1 bytes.
    HugeLength,
    /// Console broadcasts, forever, never the reply.
    Flood,
    /// A broadcast quoting the password (raw, URL-encoded, base64, hex) before the reply.
    EchoPassword,
}

#[derive(Debug, Clone)]
pub struct WebRconConfig {
    pub password: String,
    pub misbehaviour: Misbehaviour,
}

impl Default for WebRconConfig {
    fn default() -> Self {
        WebRconConfig {
            password: "secret".into(),
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// What `serverinfo` reports: the world's players and capacity, fixed figures besides.
pub fn serverinfo(state: &WorldState) -> String {
    let info = serde_json::json!({
        "Hostname": state.name,
        "MaxPlayers": state.max,
        "Players": state.players.len(),
        "Queued": 2,
        "Joining": 1,
        "ReservedSlots": 0,
        "EntityCount": 184213,
        "GameTime": "11/29/2026 10:31:12",
        "Uptime": 86400,
        "Map": state.map,
        "Framerate": 59.0,
        "Memory": 6144,
        "MemoryUsageSystem": 9120,
        "Collections": 412,
        "NetworkIn": 51234,
        "NetworkOut": 812345,
        "Restarting": false,
        "SaveCreatedTime": "2026-11-28T10:00:00",
    });
    // Pretty-printed, as the game sends it.
    serde_json::to_string_pretty(&info).unwrap_or_default()
}

/// Serves WebRCON on 127.0.0.1, on a port of the system's choosing, until the returned
/// [`SimServer`] is dropped.
pub async fn spawn(world: World, config: WebRconConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

/// A server frame (never masked), final unless `fin` is false.
fn frame(opcode: OpCode, fin: bool, payload: &[u8]) -> Vec<u8> {
    let header = FrameHeader {
        is_final: fin,
        opcode,
        ..FrameHeader::default()
    };
    let mut out = Vec::new();
    let _ = header.format(payload.len() as u64, &mut out);
    out.extend_from_slice(payload);
    out
}

fn message(identifier: i64, text: &str, kind: &str) -> Vec<u8> {
    let json = serde_json::json!({
        "Message": text,
        "Identifier": identifier,
        "Type": kind,
        "Stacktrace": "",
    });
    frame(OpCode::Data(Data::Text), true, json.to_string().as_bytes())
}

async fn send(stream: &mut TcpStream, bytes: &[u8], config: &WebRconConfig) -> io::Result<()> {
    let piece = match config.misbehaviour {
        Misbehaviour::Split(n) => Some(n),
        _ => None,
    };
    write_split(stream, bytes, piece).await
}

/// The path of a GET request head, percent-decoded.
fn path_of(head: &str) -> Option<String> {
    let line = head.lines().next()?;
    let mut words = line.split(' ');
    (words.next()? == "GET").then_some(())?;
    let raw = words.next()?;
    let mut out = Vec::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) => {
                let hex = std::str::from_utf8(hex).ok()?;
                out.push(u8::from_str_radix(hex, 16).ok()?);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().skip(1).find_map(|line| {
        let (n, v) = line.split_once(':')?;
        n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

async fn serve(mut stream: TcpStream, world: World, config: &WebRconConfig) -> io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // The upgrade request.
    let end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        let n = stream.read(&mut chunk).await?;
        if n == 0 || buf.len() > MAX_REQUEST {
            return Ok(());
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    buf.drain(..end + 4);
    let Some(key) = header(&head, "Sec-WebSocket-Key") else {
        stream
            .write_all(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            .await?;
        return Ok(());
    };
    let accept = tungstenite::handshake::derive_accept_key(key.as_bytes());
    let upgrade = format!(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Accept: {accept}\r\n\r\n"
    );
    send(&mut stream, upgrade.as_bytes(), config).await?;
    let authed = path_of(&head).is_some_and(|p| p == format!("/{}", config.password));
    if !authed {
        // As the game does: upgraded, then closed at once.
        send(
            &mut stream,
            &frame(OpCode::Control(Control::Close), true, &[]),
            config,
        )
        .await?;
        return Ok(());
    }
    loop {
        // The client's frames, unmasked.
        let (header, len, start) = loop {
            let mut cursor = io::Cursor::new(&buf[..]);
            match FrameHeader::parse(&mut cursor) {
                Ok(Some((h, len))) if len as usize <= MAX_REQUEST => {
                    let start = cursor.position() as usize;
                    if buf.len() >= start + len as usize {
                        break (h, len as usize, start);
                    }
                }
                Ok(None) | Ok(Some(_)) if buf.len() <= MAX_REQUEST => {}
                _ => return Ok(()),
            }
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        };
        let mut payload = buf[start..start + len].to_vec();
        buf.drain(..start + len);
        if let Some(mask) = header.mask {
            for (i, b) in payload.iter_mut().enumerate() {
                *b ^= mask[i % 4];
            }
        }
        match header.opcode {
            OpCode::Control(Control::Close) => {
                let _ = stream
                    .write_all(&frame(OpCode::Control(Control::Close), true, &payload))
                    .await;
                return Ok(());
            }
            OpCode::Control(Control::Ping) => {
                send(
                    &mut stream,
                    &frame(OpCode::Control(Control::Pong), true, &payload),
                    config,
                )
                .await?;
                continue;
            }
            OpCode::Data(Data::Text) => {}
            _ => continue,
        }
        let Ok(request) = serde_json::from_slice::<serde_json::Value>(&payload) else {
            continue;
        };
        let id = request["Identifier"].as_i64().unwrap_or(0);
        let command = request["Message"]
            .as_str()
            .unwrap_or_default()
            .trim()
            .to_string();
        let text = match command.as_str() {
            "serverinfo" => serverinfo(&world.snapshot()),
            other => format!("Command '{other}' not found"),
        };
        // A console line before every reply, as a busy server's log interleaves.
        let mut out = message(
            0,
            "[event] assets/prefabs/npc/cargo plane spawned",
            "Generic",
        );
        match config.misbehaviour {
            Misbehaviour::Endless => {
                send(
                    &mut stream,
                    &frame(OpCode::Data(Data::Text), false, b"{\"Message\":\""),
                    config,
                )
                .await?;
                loop {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let more = frame(OpCode::Data(Data::Continue), false, b"more ");
                    send(&mut stream, &more, config).await?;
                }
            }
            Misbehaviour::HugeLength => {
                out.extend_from_slice(&[0x81, 127]);
                out.extend_from_slice(&(i32::MAX as u64).to_be_bytes());
                out.extend_from_slice(b"{\"Message\":");
                send(&mut stream, &out, config).await?;
                // Hold the connection: the client must give up by itself.
                tokio::time::sleep(MAX_CONNECTION).await;
                return Ok(());
            }
            Misbehaviour::Flood => loop {
                let line = message(0, "[event] flood", "Generic");
                send(&mut stream, &line, config).await?;
                tokio::time::sleep(Duration::from_millis(1)).await;
            },
            Misbehaviour::EchoPassword => {
                let pw = &config.password;
                let Quoted { url, base64, hex } = Quoted::new(pw);
                let echo = format!(
                    "[rcon] connection from 127.0.0.1 on /{pw} (url /{url}, base64 {base64}, hex {hex})"
                );
                out.extend(message(-1, &echo, "Warning"));
            }
            Misbehaviour::None | Misbehaviour::Split(_) => {}
        }
        out.extend(message(id, &text, "Generic"));
        send(&mut stream, &out, config).await?;
    }
}
