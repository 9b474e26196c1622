//! Simulated TeamSpeak 3 server's ServerQuery interface (TCP): the banner, `use`, `login`,
//! `serverinfo`, `clientlist`, `channellist`, `version`, `quit`, with the flood protection
//! real servers apply (an address sending more than 10 commands within 3 s is banned for
//! 600 s, unless allowlisted as in `query_ip_allowlist.txt`) and knobs for hostile replies.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::time::Instant;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::tcp::serve_on;
use super::{SimServer, World, WorldState};
use crate::protocol::teamspeak3::{self as ts3, decode_records, ids, Record};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Teamspeak3,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The banner a real server sends on connect.
pub const BANNER: &[u8] = b"TS3\n\rWelcome to the TeamSpeak 3 ServerQuery interface, type \"help\" for a list of commands and \"help <command>\" for information on a specific command.\n\r";

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Accepts the connection and says nothing.
    Silence,
    /// Another service on the port (an SSH banner).
    NotTs3,
    /// `serverinfo` answers one line of 1 MiB.
    HugeLine,
    /// Closes the connection after answering `use`.
    CloseAfterUse,
    /// More query clients than clients (online would go negative: it saturates at 0).
    LyingCounts,
    /// `serverinfo` needs a login (error 2568 without one).
    RequireLogin,
}

/// Flood protection, as `serverinstance_serverquery_flood_*` sets it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FloodRule {
    /// Commands allowed within [`FloodRule::window`]; the next one bans.
    pub commands: usize,
    pub window: Duration,
    pub ban: Duration,
}

/// TeamSpeak 3's defaults: 10 commands per 3 s, 600 s ban.
pub const TS3_FLOOD: FloodRule = FloodRule {
    commands: 10,
    window: Duration::from_secs(3),
    ban: Duration::from_secs(600),
};

#[derive(Debug, Clone)]
pub struct Ts3Config {
    pub misbehaviour: Misbehaviour,
    /// The voice port of the one virtual server.
    pub voice_port: u16,
    /// A ServerQuery account, if the test wants one: (user, password).
    pub login: Option<(String, String)>,
    pub flood: FloodRule,
    /// Addresses exempt from flood protection (`query_ip_allowlist.txt`).
    pub allowlist: Vec<IpAddr>,
    pub counters: Arc<Counters>,
}

impl Default for Ts3Config {
    fn default() -> Self {
        Ts3Config {
            misbehaviour: Misbehaviour::None,
            voice_port: ts3::DEFAULT_VOICE_PORT,
            login: None,
            flood: TS3_FLOOD,
            allowlist: Vec::new(),
            counters: Arc::default(),
        }
    }
}

/// What the server saw.
#[derive(Debug, Default)]
pub struct Counters {
    commands: AtomicU32,
    bans: AtomicU32,
    connections: AtomicU32,
    logins_refused: AtomicU32,
}

impl Counters {
    pub fn commands(&self) -> u32 {
        self.commands.load(Ordering::Relaxed)
    }
    /// Addresses banned for flooding.
    pub fn bans(&self) -> u32 {
        self.bans.load(Ordering::Relaxed)
    }
    pub fn connections(&self) -> u32 {
        self.connections.load(Ordering::Relaxed)
    }
    pub fn logins_refused(&self) -> u32 {
        self.logins_refused.load(Ordering::Relaxed)
    }
}

#[derive(Debug, Default)]
struct Flood {
    recent: VecDeque<Instant>,
    banned_until: Option<Instant>,
}

type Floods = Arc<Mutex<HashMap<IpAddr, Flood>>>;

/// Serves ServerQuery on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Ts3Config) -> io::Result<SimServer> {
    let floods: Floods = Arc::default();
    let config = Arc::new(config);
    // Its own session, not `serve_tcp`'s: the flood ban counts connections by address, and
    // the console keeps Nagle on and no overall limit, as a real ServerQuery does.
    serve_on(
        TcpListener::bind("127.0.0.1:0").await?,
        move |stream, peer| {
            config.counters.connections.fetch_add(1, Ordering::Relaxed);
            let session = Session {
                world: world.clone(),
                config: config.clone(),
                floods: floods.clone(),
                ip: peer.ip(),
                selected: false,
                logged_in: false,
            };
            session.run(stream)
        },
    )
}

/// A voice server whose users come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "Demo Voice".into(),
            map: String::new(),
            game: String::new(),
            version: "3.13.7 [Build: 1655727713]".into(),
            max: 32,
            players: vec![
                ("alice".into(), 0, 0.0),
                ("bob".into(), 0, 0.0),
                ("carol".into(), 0, 0.0),
            ],
            ..WorldState::default()
        }
    });
    // Loopback is allowlisted, as an operator allowlists the exporter: `demo` is polled by
    // several exporters at once (the e2e run's shards, /probe), which share one address.
    let config = Ts3Config {
        allowlist: vec![
            IpAddr::V4(std::net::Ipv4Addr::LOCALHOST),
            IpAddr::V6(std::net::Ipv6Addr::LOCALHOST),
        ],
        ..Ts3Config::default()
    };
    let mut server = spawn(world.clone(), config).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(8), 0, |t| {
            format!("talker{t}")
        }));
    Ok(server)
}

/// The hostile fleet's TeamSpeak servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                Ts3Config {
                    misbehaviour: m,
                    ..Ts3Config::default()
                },
            )
        })
    };
    let other_port = start(|w| {
        spawn(
            w,
            Ts3Config {
                voice_port: 9988,
                ..Ts3Config::default()
            },
        )
    });
    vec![
        // The fleet's world: 2 players and 2 bots (voice clients here), 24 slots.
        Hostile::up("healthy", 4, 24, None, with(Misbehaviour::None)),
        Hostile::up("lying", 0, 24, None, with(Misbehaviour::LyingCounts)),
        Hostile::down("silent", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("not-ts3", "malformed", with(Misbehaviour::NotTs3)),
        Hostile::down("huge-line", "too_large", with(Misbehaviour::HugeLine)).heavy(),
        Hostile::down(
            "close-after-use",
            "incomplete",
            with(Misbehaviour::CloseAfterUse),
        ),
        Hostile::down("needs-login", "malformed", with(Misbehaviour::RequireLogin)),
        Hostile::down("other-voice-port", "malformed", other_port),
    ]
}

struct Session {
    world: World,
    config: Arc<Ts3Config>,
    floods: Floods,
    ip: IpAddr,
    selected: bool,
    logged_in: bool,
}

/// A ban's error line.
fn ban_line(out: &mut Vec<u8>, seconds: u64) {
    let mut line = format!("error id={} msg=", ids::BANNED);
    ts3::escape("connection failed, you are banned", &mut line);
    line.push_str(" extra_msg=");
    ts3::escape(&format!("you may retry in {seconds} seconds"), &mut line);
    line.push_str("\n\r");
    out.extend_from_slice(line.as_bytes());
}

impl Session {
    /// Whether this address is banned now; otherwise counts one command and bans on the
    /// one past the limit. Returns the ban's seconds left when banned.
    fn flood_check(&self, count: bool) -> Option<u64> {
        if self.config.allowlist.contains(&self.ip) {
            return None;
        }
        let now = Instant::now();
        let mut floods = self.floods.lock().unwrap_or_else(|e| e.into_inner());
        let f = floods.entry(self.ip).or_default();
        if let Some(until) = f.banned_until.filter(|u| *u > now) {
            return Some(until.saturating_duration_since(now).as_secs().max(1));
        }
        if !count {
            return None;
        }
        let window = self.config.flood.window;
        while f
            .recent
            .front()
            .is_some_and(|t| now.saturating_duration_since(*t) >= window)
        {
            f.recent.pop_front();
        }
        f.recent.push_back(now);
        if f.recent.len() > self.config.flood.commands {
            f.banned_until = Some(now + self.config.flood.ban);
            f.recent.clear();
            self.config.counters.bans.fetch_add(1, Ordering::Relaxed);
            return Some(self.config.flood.ban.as_secs());
        }
        None
    }

    async fn run(mut self, mut stream: TcpStream) {
        let mut out = Vec::new();
        if let Some(left) = self.flood_check(false) {
            ban_line(&mut out, left);
            let _ = stream.write_all(&out).await;
            return;
        }
        match self.config.misbehaviour {
            Misbehaviour::Silence => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                return;
            }
            Misbehaviour::NotTs3 => {
                let _ = stream
                    .write_all(b"SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n")
                    .await;
                return;
            }
            _ => {}
        }
        if stream.write_all(BANNER).await.is_err() {
            return;
        }
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            let Some(lf) = buf.iter().position(|&b| b == b'\n') else {
                if buf.len() > 64 * 1024 {
                    return;
                }
                match stream.read(&mut chunk).await {
                    Ok(n) if n > 0 => buf.extend_from_slice(&chunk[..n]),
                    _ => return,
                }
                continue;
            };
            let line: Vec<u8> = buf.drain(..=lf).collect();
            let text = String::from_utf8_lossy(&line).trim().to_string();
            if text.is_empty() {
                continue;
            }
            self.config
                .counters
                .commands
                .fetch_add(1, Ordering::Relaxed);
            out.clear();
            if let Some(left) = self.flood_check(true) {
                ban_line(&mut out, left);
                let _ = stream.write_all(&out).await;
                return;
            }
            let close = self.command(&text, &mut out);
            if stream.write_all(&out).await.is_err() {
                return;
            }
            if close {
                // A clean close (FIN), then whatever the client still sends is read until it
                // hangs up: unread bytes at close would turn the close into a reset, and the
                // client would see `network` or `incomplete` by a race.
                let _ = stream.shutdown().await;
                let drain =
                    async { while matches!(stream.read(&mut chunk).await, Ok(n) if n > 0) {} };
                let _ = tokio::time::timeout(Duration::from_secs(5), drain).await;
                return;
            }
        }
    }

    /// Answers one command into `out`; true when the connection closes after it.
    fn command(&mut self, text: &str, out: &mut Vec<u8>) -> bool {
        let (word, rest) = text.split_once(' ').unwrap_or((text, ""));
        let (args, _) = decode_records(rest.as_bytes());
        let args = args.into_iter().next().unwrap_or_default();
        let arg = |k: &str| ts3::field(&args, k).map(str::to_string);
        let positional: Vec<&str> = rest.split(' ').filter(|s| !s.is_empty()).collect();
        let w = self.world.snapshot();
        match word.to_ascii_lowercase().as_str() {
            "use" => {
                let port = arg("port").or_else(|| {
                    positional
                        .first()
                        .filter(|p| !p.contains('='))
                        .map(|p| p.to_string())
                });
                let sid = arg("sid");
                if sid.as_deref() == Some("1")
                    || port.as_deref() == Some(self.config.voice_port.to_string().as_str())
                {
                    self.selected = true;
                    ts3::encode_error_line(0, "ok", out);
                    return self.config.misbehaviour == Misbehaviour::CloseAfterUse;
                }
                ts3::encode_error_line(ids::INVALID_SERVER_ID, "invalid serverID", out);
            }
            "login" => {
                let user = arg("client_login_name")
                    .or_else(|| positional.first().map(|s| ts3::unescape(s)));
                let pass = arg("client_login_password")
                    .or_else(|| positional.get(1).map(|s| ts3::unescape(s)));
                let ok = match (&self.config.login, user, pass) {
                    (Some((u, p)), Some(user), Some(pass)) => *u == user && *p == pass,
                    _ => false,
                };
                if ok {
                    self.logged_in = true;
                    ts3::encode_error_line(0, "ok", out);
                } else {
                    self.config
                        .counters
                        .logins_refused
                        .fetch_add(1, Ordering::Relaxed);
                    ts3::encode_error_line(ids::BAD_LOGIN, "invalid loginname or password", out);
                }
            }
            "serverinfo" => {
                if !self.selected {
                    ts3::encode_error_line(ids::INVALID_SERVER_ID, "invalid serverID", out);
                } else if self.config.misbehaviour == Misbehaviour::RequireLogin && !self.logged_in
                {
                    ts3::encode_error_line(
                        ids::PERMISSIONS,
                        "insufficient client permissions",
                        out,
                    );
                } else if self.config.misbehaviour == Misbehaviour::HugeLine {
                    out.extend_from_slice(b"virtualserver_name=");
                    out.resize(out.len() + (1 << 20), b'x');
                    out.extend_from_slice(b"\n\r");
                    ts3::encode_error_line(0, "ok", out);
                } else {
                    ts3::encode_records(&[self.serverinfo(&w)], out);
                    ts3::encode_error_line(0, "ok", out);
                }
            }
            "clientlist" => {
                if self.selected {
                    ts3::encode_records(&clients(&w), out);
                    ts3::encode_error_line(0, "ok", out);
                } else {
                    ts3::encode_error_line(ids::INVALID_SERVER_ID, "invalid serverID", out);
                }
            }
            "channellist" => {
                let rec = |cid: &str, name: &str| -> Record {
                    [
                        ("cid", cid),
                        ("pid", "0"),
                        ("channel_order", "0"),
                        ("channel_name", name),
                        ("channel_topic", ""),
                    ]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect()
                };
                ts3::encode_records(&[rec("1", "Default Channel"), rec("2", "AFK")], out);
                ts3::encode_error_line(0, "ok", out);
            }
            "version" => {
                let rec: Record = vec![
                    ("version".into(), "3.13.7".into()),
                    ("build".into(), "1655727713".into()),
                    ("platform".into(), "Linux".into()),
                ];
                ts3::encode_records(&[rec], out);
                ts3::encode_error_line(0, "ok", out);
            }
            "quit" => {
                ts3::encode_error_line(0, "ok", out);
                return true;
            }
            _ => ts3::encode_error_line(256, "command not found", out),
        }
        false
    }

    fn serverinfo(&self, w: &WorldState) -> Record {
        let voice = (w.players.len() as u64).saturating_add(u64::from(w.bots));
        let query: u64 = if self.config.misbehaviour == Misbehaviour::LyingCounts {
            voice + 5
        } else {
            1
        };
        let version = if w.version.is_empty() || w.version == "1.0.0.0" {
            "3.13.7 [Build: 1655727713]".to_string()
        } else {
            w.version.clone()
        };
        [
            (
                "virtualserver_unique_identifier",
                "c2ltdWxhdGVkLXNlcnZlci1pZA=".to_string(),
            ),
            ("virtualserver_name", w.name.clone()),
            (
                "virtualserver_welcomemessage",
                "Welcome to TeamSpeak, check [URL]www.teamspeak.com[/URL] for latest info.".into(),
            ),
            ("virtualserver_platform", "Linux".into()),
            ("virtualserver_version", version),
            ("virtualserver_maxclients", w.max.to_string()),
            ("virtualserver_password", String::new()),
            (
                "virtualserver_clientsonline",
                (voice
                    + if self.config.misbehaviour == Misbehaviour::LyingCounts {
                        0
                    } else {
                        query
                    })
                .to_string(),
            ),
            ("virtualserver_channelsonline", "2".into()),
            ("virtualserver_uptime", "86400".into()),
            ("virtualserver_port", self.config.voice_port.to_string()),
            (
                "virtualserver_flag_password",
                u8::from(w.password).to_string(),
            ),
            ("virtualserver_queryclientsonline", query.to_string()),
            ("virtualserver_reserved_slots", "0".into()),
            ("virtualserver_status", "online".into()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }
}

/// The client list: our own query client first, then the world's voice clients.
fn clients(w: &WorldState) -> Vec<Record> {
    let rec = |clid: usize, dbid: usize, name: &str, kind: &str| -> Record {
        vec![
            ("clid".into(), clid.to_string()),
            ("cid".into(), "1".into()),
            ("client_database_id".into(), dbid.to_string()),
            ("client_nickname".into(), name.to_string()),
            ("client_type".into(), kind.to_string()),
        ]
    };
    let mut out = vec![rec(1, 1, "serveradmin from 127.0.0.1:40000", "1")];
    for (i, (name, _, _)) in w.players.iter().enumerate() {
        out.push(rec(i + 2, i + 10, name, "0"));
    }
    for b in 0..w.bots as usize {
        let n = w.players.len() + b;
        out.push(rec(n + 2, n + 10, &format!("musicbot {b}"), "0"));
    }
    out
}
