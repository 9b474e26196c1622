//! Simulated Minecraft Java server for the server list ping: 1.7+ and the three legacy pings,
//! with knobs for the shapes real servers send (MOTD forms, chunked writes, silent pings,
//! favicons, trailing data) and a [`Misbehaviour`] for the hostile suite.
//!
//! It records every handshake and legacy ping it receives ([`McConfig::seen`]), so tests can
//! check what the client sent.

use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::{timeout, Instant};

use super::hostile::{self, start, Hostile};
use super::tcp::{serve_tcp, MAX_CONNECTION};
use super::{SimServer, World, WorldState};
use crate::protocol::minecraft::legacy::{self, LegacyStatus, PingHost, Variant};
use crate::protocol::minecraft::slp::{self, Handshake};
use crate::protocol::minecraft::varint::{decode_frame, encode_frame, encode_varint, Frame};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Minecraft,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_dressed_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// How long a connection may sit idle before the simulator hangs up.
const IDLE: Duration = Duration::from_secs(5);

/// Which protocol generation the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// 1.7+ only: legacy pings are dropped unanswered.
    #[default]
    Modern,
    /// Vanilla 1.20: 1.7+, and also `FE` (old format) and `FE 01` (`§1` format), but it
    /// drops the 1.6 `FE 01 FA` ping unanswered.
    Vanilla120,
    /// A 1.6 server: answers `FE 01 FA` only (`§1` format); closes on anything else.
    Legacy16,
    /// A 1.4-1.5 server: answers exactly `FE 01` (`§1` format); closes on anything else.
    Legacy14,
    /// A beta 1.8-1.3 server: answers exactly `FE` (`motd§online§max`); closes otherwise.
    Beta,
}

/// The shape of the `description`. Each renders to `WorldState::name` as plain text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MotdStyle {
    /// `"description": "<name>"`.
    #[default]
    Plain,
    /// A chat component nesting each word inside the previous one's `extra`, with colours.
    Component,
    /// An array: the first word as a string with a `§6` code, the rest as components.
    Array,
}

/// Ways to be hostile, for the tests that prove the client survives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Accept, read, never answer.
    AcceptSilent,
    /// A valid status response, one byte per second.
    Slowloris,
    /// A frame length VarInt of six bytes.
    VarIntTooLong,
    /// A frame announcing i32::MAX bytes (2 GiB - 1: 2 GiB itself is a negative i32), then junk.
    Announce2GiB,
    /// A well-framed status response whose JSON is cut short.
    InvalidJson,
    /// A description nested this many arrays deep.
    DeepJson(usize),
    /// Valid JSON of about this many bytes (a padded description).
    HugeJson(usize),
    /// An `FF` kick to everything, with one `§` where the old format needs two.
    LegacyOddSections,
    /// Half a status response, then a TCP reset.
    ResetMidReply,
}

/// What the server received: handshakes (1.7+) and legacy pings, in arrival order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Received {
    pub handshakes: Vec<Handshake>,
    pub legacy: Vec<(Variant, PingHost)>,
}

/// A shared log of [`Received`]; clone it into the config and read it from the test.
#[derive(Debug, Clone, Default)]
pub struct Seen(Arc<Mutex<Received>>);

impl Seen {
    pub fn snapshot(&self) -> Received {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn record(&self, f: impl FnOnce(&mut Received)) {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Knobs for one simulated server.
#[derive(Debug, Clone)]
pub struct McConfig {
    pub mode: Mode,
    pub motd: MotdStyle,
    /// Write replies in chunks of this many bytes with this pause between them.
    pub chunks: Option<(usize, Duration)>,
    /// Answer the ping packet (many non-vanilla servers do not).
    pub answer_ping: bool,
    /// A favicon data URL of this many KiB of base64.
    pub favicon_kib: usize,
    /// Append bytes after the JSON inside the status string, as some mods do.
    pub trailing_data: bool,
    /// The protocol number in `version.protocol`.
    pub protocol_version: i32,
    /// Protocol numbers the server accepts in a status handshake; it closes the connection
    /// without a byte on any other (`-1` included), as some server implementations do.
    /// `None`: any number, as vanilla.
    pub known_protocols: Option<Vec<i32>>,
    pub misbehaviour: Misbehaviour,
    pub seen: Seen,
}

impl Default for McConfig {
    fn default() -> Self {
        McConfig {
            mode: Mode::Modern,
            motd: MotdStyle::Plain,
            chunks: None,
            answer_ping: true,
            favicon_kib: 0,
            trailing_data: false,
            protocol_version: 763,
            known_protocols: None,
            misbehaviour: Misbehaviour::None,
            seen: Seen::default(),
        }
    }
}

/// Starts a server on 127.0.0.1, port 0. It runs until the returned [`SimServer`] is dropped.
pub async fn spawn(world: World, config: McConfig) -> io::Result<SimServer> {
    serve_tcp(world, config, |stream, world, config| async move {
        serve(stream, world, &config).await
    })
    .await
}

/// The password of the simulated RCON consoles ([`spawn_console`]).
pub const RCON_PASSWORD: &str = "minecraft-sim-rcon";

/// Which server's console answers the health commands over RCON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Console {
    /// Vanilla 1.20.3 and later: `tick query`.
    Vanilla,
    /// Paper before 1.20.3: `tps` and `mspt`, no `tick query`.
    Paper,
}

/// The simulated mean tick time, in milliseconds: busier with more players, so the demo's
/// tick panels move.
fn tick_ms(state: &WorldState) -> f64 {
    1.5 + 0.75 * state.players.len() as f64
}

/// Vanilla's answers over RCON: `tick query` with its messages joined as RCON joins them (no
/// newline between them), anything else unknown.
pub fn vanilla_console(state: &WorldState, command: &str) -> String {
    let ms = tick_ms(state);
    match command.trim() {
        "tick query" => format!(
            "The game is running normallyTarget tick rate: 20.0 per second.\nAverage time per \
             tick: {ms:.1}ms (Target: 50.0ms)Percentiles: P50: {:.1}ms P95: {:.1}ms P99: \
             {:.1}ms, sample: 100",
            ms * 0.9,
            ms * 1.6,
            ms * 2.4
        ),
        other => format!("Unknown or incomplete command, see below for error{other}<--[HERE]"),
    }
}

/// Paper's (before 1.20.3) answers over RCON: `tps` and `mspt` with their colour codes.
pub fn paper_console(state: &WorldState, command: &str) -> String {
    let ms = tick_ms(state);
    let tps = (1000.0 / ms).min(20.0);
    match command.trim() {
        "tps" => format!("§6TPS from last 1m, 5m, 15m: §a{tps:.2}, §a20.0, §a20.0"),
        "mspt" => format!(
            "§6Server tick times §e(§7avg§e/§7min§e/§7max§e)§6 from last 5s§7,§6 10s§7,§6 \
             1m§e:\n§6◴ §a{ms:.1}§7/§a{:.1}§7/§a{:.1}§7, §a{ms:.1}§7/§a{:.1}§7/§a{:.1}",
            ms * 0.5,
            ms * 3.0,
            ms * 0.5,
            ms * 3.0
        ),
        _ => "Unknown command. Type \"/help\" for help.".into(),
    }
}

/// A Minecraft RCON console (vanilla's behaviour: one packet per read, 4096-byte packets)
/// answering the health commands from the world, logged in to with [`RCON_PASSWORD`].
pub async fn spawn_console(world: World, console: Console) -> io::Result<SimServer> {
    let respond = match console {
        Console::Vanilla => vanilla_console,
        Console::Paper => paper_console,
    };
    let config = super::rcon::RconConfig {
        flavour: super::rcon::Flavour::Minecraft,
        password: RCON_PASSWORD.into(),
        respond,
        misbehaviour: super::rcon::Misbehaviour::None,
    };
    super::rcon::spawn(world, config).await
}

/// [`spawn_demo`] on a world dressed as a small survival server, as the other simulators'
/// `spawn_demo`s dress theirs (this one serves whatever world it is given), with a vanilla
/// RCON console beside it for server health.
pub async fn spawn_dressed_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "A Demo Minecraft Server".into(),
            map: "world".into(),
            game: "Minecraft".into(),
            version: "1.21.4".into(),
            max: 20,
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let console = spawn_console(world.clone(), Console::Vanilla).await?;
    Ok(spawn_demo(world).await?.with_rcon(console, RCON_PASSWORD))
}

/// A well-behaved 1.20 server for `demo`: component MOTD, player sample, a small favicon.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    spawn(
        world,
        McConfig {
            mode: Mode::Vanilla120,
            motd: MotdStyle::Component,
            favicon_kib: 2,
            ..McConfig::default()
        },
    )
    .await
}

async fn serve(mut stream: TcpStream, world: World, config: &McConfig) -> io::Result<()> {
    let mut buf = Vec::new();
    if !read_more(&mut stream, &mut buf).await? {
        return Ok(());
    }
    let state = world.snapshot();
    match config.misbehaviour {
        Misbehaviour::None => {}
        other => return misbehave(stream, other, &state, config).await,
    }
    if buf[0] == 0xfe {
        return serve_legacy(stream, buf, &state, config).await;
    }
    match config.mode {
        Mode::Modern | Mode::Vanilla120 => serve_modern(stream, buf, &state, config).await,
        // A pre-1.7 server reads the handshake as an unknown packet and hangs up.
        Mode::Legacy16 | Mode::Legacy14 | Mode::Beta => Ok(()),
    }
}

/// Reads what is available into `buf`; false at end of stream or after [`IDLE`].
async fn read_more(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<bool> {
    let mut chunk = [0u8; 4096];
    match timeout(IDLE, stream.read(&mut chunk)).await {
        Ok(Ok(0)) | Err(_) => Ok(false),
        Ok(Ok(n)) => {
            buf.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Ok(Err(e)) => Err(e),
    }
}

async fn next_frame(stream: &mut TcpStream, buf: &mut Vec<u8>) -> io::Result<Option<Frame>> {
    loop {
        match decode_frame(buf, 64 * 1024) {
            Ok(Some((frame, used))) => {
                buf.drain(..used);
                return Ok(Some(frame));
            }
            Ok(None) => {
                if !read_more(stream, buf).await? {
                    return Ok(None);
                }
            }
            Err(_) => return Ok(None),
        }
    }
}

async fn serve_modern(
    mut stream: TcpStream,
    mut buf: Vec<u8>,
    state: &WorldState,
    config: &McConfig,
) -> io::Result<()> {
    let Some(frame) = next_frame(&mut stream, &mut buf).await? else {
        return Ok(());
    };
    let Ok(handshake) = slp::decode_handshake(&frame) else {
        return Ok(());
    };
    let known = config
        .known_protocols
        .as_ref()
        .is_none_or(|k| k.contains(&handshake.protocol_version));
    config.seen.record(|r| r.handshakes.push(handshake));
    if !known {
        return Ok(());
    }
    let Some(request) = next_frame(&mut stream, &mut buf).await? else {
        return Ok(());
    };
    if request.id != slp::PACKET_STATUS || !request.body.is_empty() {
        return Ok(());
    }
    let mut out = Vec::new();
    slp::encode_status_response(&status_text(state, config), &mut out);
    send(&mut stream, &out, config.chunks).await?;
    let Some(ping) = next_frame(&mut stream, &mut buf).await? else {
        return Ok(());
    };
    if let (true, Ok(payload)) = (config.answer_ping, slp::decode_ping(&ping)) {
        let mut out = Vec::new();
        slp::encode_ping(payload, &mut out);
        send(&mut stream, &out, config.chunks).await?;
    } else {
        // A server that ignores pings keeps the connection until the client gives up.
        while read_more(&mut stream, &mut buf).await? {}
    }
    Ok(())
}

/// The status JSON text (plus trailing bytes when asked for).
pub fn status_text(state: &WorldState, config: &McConfig) -> String {
    let mut status = json!({
        "version": {"name": state.version, "protocol": config.protocol_version},
        "players": {
            "max": state.max,
            "online": state.players.len(),
            "sample": state.players.iter().enumerate().map(|(i, (name, _, _))| json!({
                "name": name,
                "id": format!("00000000-0000-4000-8000-{i:012x}"),
            })).collect::<Vec<_>>(),
        },
        "description": description(&state.name, config.motd),
    });
    if config.favicon_kib > 0 {
        status["favicon"] = Value::String(format!(
            "data:image/png;base64,{}",
            "A".repeat(config.favicon_kib * 1024)
        ));
    }
    let mut text = status.to_string();
    if config.trailing_data {
        text.push_str("\u{0}\u{1}{\"mod\":\"appended\"");
    }
    text
}

fn description(name: &str, style: MotdStyle) -> Value {
    let words: Vec<&str> = name.split_inclusive(' ').collect();
    match style {
        MotdStyle::Plain => json!(name),
        MotdStyle::Component => {
            let mut inner: Option<Value> = None;
            for word in words.iter().rev() {
                let mut c = json!({"text": word, "color": "gold", "bold": true});
                if let Some(child) = inner.take() {
                    c["extra"] = json!([child]);
                }
                inner = Some(c);
            }
            inner.unwrap_or_else(|| json!({"text": ""}))
        }
        MotdStyle::Array => {
            let mut items = Vec::new();
            for (i, word) in words.iter().enumerate() {
                if i == 0 {
                    items.push(json!(format!("§6{word}")));
                } else {
                    items.push(json!({"text": word, "color": "#ff8800"}));
                }
            }
            Value::Array(items)
        }
    }
}

async fn serve_legacy(
    mut stream: TcpStream,
    mut buf: Vec<u8>,
    state: &WorldState,
    config: &McConfig,
) -> io::Result<()> {
    // The client sends each ping in one write; wait briefly in case it arrives in pieces.
    let (variant, host) = loop {
        match legacy::decode_ping(&buf) {
            Ok(Some((Variant::V16, host))) => break (Variant::V16, host),
            Ok(Some((short, host))) => {
                let mut more = Vec::new();
                match timeout(Duration::from_millis(30), read_more(&mut stream, &mut more)).await {
                    Ok(Ok(true)) => buf.extend_from_slice(&more),
                    _ => break (short, host),
                }
            }
            Ok(None) => {
                if !read_more(&mut stream, &mut buf).await? {
                    return Ok(());
                }
            }
            Err(_) => return Ok(()),
        }
    };
    config.seen.record(|r| r.legacy.push((variant, host)));
    let online = state.players.len() as u32;
    let modern_format = |protocol: i32, version: &str| LegacyStatus {
        protocol: Some(protocol),
        version: Some(version.to_string()),
        motd: state.name.clone(),
        online,
        max: state.max,
    };
    let old_format = LegacyStatus {
        protocol: None,
        version: None,
        motd: state.name.clone(),
        online,
        max: state.max,
    };
    let reply = match (config.mode, variant) {
        (Mode::Legacy16, Variant::V16) => modern_format(78, "1.6.4"),
        (Mode::Legacy14, Variant::V14) => modern_format(61, "1.5.2"),
        (Mode::Beta, Variant::Beta) => old_format,
        (Mode::Vanilla120, Variant::V14) => modern_format(127, &state.version),
        (Mode::Vanilla120, Variant::Beta) => old_format,
        // Ignored (or an error, for a beta server): hang up without a word.
        _ => return Ok(()),
    };
    let mut out = Vec::new();
    legacy::encode_kick(&legacy::encode_kick_text(&reply), &mut out);
    send(&mut stream, &out, config.chunks).await?;
    stream.shutdown().await
}

async fn send(
    stream: &mut TcpStream,
    bytes: &[u8],
    chunks: Option<(usize, Duration)>,
) -> io::Result<()> {
    match chunks {
        None => stream.write_all(bytes).await,
        Some((size, pause)) => {
            for (i, piece) in bytes.chunks(size.max(1)).enumerate() {
                if i > 0 {
                    tokio::time::sleep(pause).await;
                }
                stream.write_all(piece).await?;
            }
            Ok(())
        }
    }
}

async fn misbehave(
    mut stream: TcpStream,
    how: Misbehaviour,
    state: &WorldState,
    config: &McConfig,
) -> io::Result<()> {
    let plain = McConfig {
        misbehaviour: Misbehaviour::None,
        ..config.clone()
    };
    let mut out = Vec::new();
    match how {
        Misbehaviour::None => return Ok(()),
        Misbehaviour::AcceptSilent => {
            let mut sink = Vec::new();
            while read_more(&mut stream, &mut sink).await? {
                sink.clear();
            }
            return Ok(());
        }
        Misbehaviour::Slowloris => {
            slp::encode_status_response(&status_text(state, &plain), &mut out);
            let started = Instant::now();
            for b in out {
                stream.write_all(&[b]).await?;
                if started.elapsed() > MAX_CONNECTION {
                    break;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            return Ok(());
        }
        Misbehaviour::VarIntTooLong => {
            out.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00]);
        }
        Misbehaviour::Announce2GiB => {
            encode_varint(i32::MAX, &mut out);
            out.extend_from_slice(&[0x00; 1024]);
        }
        Misbehaviour::InvalidJson => {
            slp::encode_status_response(
                r#"{"version":{"name":"1.20","protocol":763},"players":"#,
                &mut out,
            );
        }
        Misbehaviour::DeepJson(depth) => {
            let json = format!(
                r#"{{"description":{}{}}}"#,
                "[".repeat(depth),
                "]".repeat(depth)
            );
            slp::encode_status_response(&json, &mut out);
        }
        Misbehaviour::HugeJson(bytes) => {
            // Spliced by hand: serialising megabytes through serde_json::Value per request
            // takes a debug build longer than a poll's timeout.
            let json = format!(
                r#"{{"version":{{"name":{},"protocol":{}}},"players":{{"max":{},"online":0}},"description":"{}"}}"#,
                Value::String(state.version.clone()),
                config.protocol_version,
                state.max,
                "x".repeat(bytes)
            );
            let mut body = Vec::new();
            crate::protocol::minecraft::varint::encode_string(&json, &mut body);
            encode_frame(0x00, &body, &mut out);
        }
        Misbehaviour::LegacyOddSections => {
            legacy::encode_kick(&format!("{}§5", state.name), &mut out);
        }
        Misbehaviour::ResetMidReply => {
            slp::encode_status_response(&status_text(state, &plain), &mut out);
            out.truncate(out.len() / 2);
            stream.write_all(&out).await?;
            stream.flush().await?;
            // Let the half reply reach the client before the reset does.
            tokio::time::sleep(Duration::from_millis(50)).await;
            stream.set_zero_linger()?;
            drop(stream);
            return Ok(());
        }
    }
    // Writes may fail once the client has seen enough and gone: that is its right.
    let _ = stream.write_all(&out).await;
    let mut sink = Vec::new();
    while let Ok(true) = read_more(&mut stream, &mut sink).await {
        sink.clear();
    }
    Ok(())
}

/// The hostile fleet's Minecraft servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> McConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || McConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    vec![
        Hostile::up("ok", 2, 24, None, with(Default::default)),
        // A 1 MB MOTD: over the default reply cap, so the target raises it.
        Hostile::up("str-1mb", 2, 24, None, with(Default::default))
            .serving_name(hostile::nasty_name(1_000_000, true))
            .with_config("max_reply_bytes = 4194304\n"),
        bad("silent", "timeout", Misbehaviour::AcceptSilent),
        bad("slowloris", "timeout", Misbehaviour::Slowloris),
        bad("varint", "malformed", Misbehaviour::VarIntTooLong),
        bad("2gib", "too_large", Misbehaviour::Announce2GiB),
        bad("bad-json", "malformed", Misbehaviour::InvalidJson),
        bad("deep-json", "malformed", Misbehaviour::DeepJson(10_000)),
        // Building 16 MB of JSON per request takes a debug build a while.
        bad("16mb-json", "too_large", Misbehaviour::HugeJson(16 << 20)).heavy(),
        bad("legacy-odd", "malformed", Misbehaviour::LegacyOddSections),
        bad("reset", "network", Misbehaviour::ResetMidReply),
    ]
}
