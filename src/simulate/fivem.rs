//! Simulated Cfx.re (FiveM/RedM) server: `getinfo` over UDP on the game port with the
//! per-address rate limit current servers apply, and the HTTP side on the same port number
//! over TCP (`/info.json`, `/dynamic.json`, `/players.json`) that third-party readers
//! (gamedig, opengsq) fetch. Knobs for hostile replies.

use std::collections::HashMap;
use std::io;
use std::net::IpAddr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream, UdpSocket};
use tokio::time::Instant;

use super::churn;
use super::hostile::{start, Hostile};
use super::tcp::accept_loop;
use super::{SimServer, World, WorldState};
use crate::protocol::fivem;
use crate::target::MAX_DATAGRAM;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Fivem,
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
    /// Answers nothing.
    Silence,
    /// Echoes another challenge (every reply looks like a late one).
    WrongChallenge,
    /// Sends a stale reply (another challenge) first, then the right one.
    StaleFirst,
    /// The infostring is cut in the middle of a key.
    Broken,
}

/// The rate limit of `getinfo` per address: a bucket of [`RateLimit::burst`] tokens
/// refilled at [`RateLimit::per_second`]; a request without a token is dropped silently.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub burst: f64,
    pub per_second: f64,
}

/// What current Cfx.re servers allow (about 2 a second, burst 10).
pub const CFX_RATE_LIMIT: RateLimit = RateLimit {
    burst: 10.0,
    per_second: 2.0,
};

/// What `/players.json` answers.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PlayersJson {
    /// Names and pings, identifiers left out (a current server's default).
    #[default]
    Listed,
    /// `[]` whoever is on: the list hidden.
    Hidden,
    /// Cut JSON (`[{"name":`).
    BadJson,
    /// HTTP 404 (an old or locked-down server).
    Missing,
}

#[derive(Debug, Clone)]
pub struct FivemConfig {
    pub misbehaviour: Misbehaviour,
    pub players_json: PlayersJson,
    /// `None`: answer every request.
    pub rate_limit: Option<RateLimit>,
    /// Requests answered, and dropped by the rate limit.
    pub counters: Arc<Counters>,
}

impl Default for FivemConfig {
    fn default() -> Self {
        FivemConfig {
            misbehaviour: Misbehaviour::None,
            players_json: PlayersJson::Listed,
            rate_limit: Some(CFX_RATE_LIMIT),
            counters: Arc::default(),
        }
    }
}

/// What the server saw.
#[derive(Debug, Default)]
pub struct Counters {
    answered: AtomicU32,
    limited: AtomicU32,
}

impl Counters {
    pub fn answered(&self) -> u32 {
        self.answered.load(Ordering::Relaxed)
    }
    /// Requests the rate limit dropped: a polite client never sees one.
    pub fn limited(&self) -> u32 {
        self.limited.load(Ordering::Relaxed)
    }
}

/// The build fingerprint the simulator reports as `iv`.
pub const IV: &str = "-1398345911";

/// Serves `getinfo` on UDP and the JSON endpoints on TCP, both on one port of 127.0.0.1.
pub async fn spawn(world: World, config: FivemConfig) -> io::Result<SimServer> {
    let (udp, tcp) = bind_pair().await?;
    let addr = udp.local_addr()?;
    let udp_world = world.clone();
    let players_json = config.players_json;
    let udp_task = tokio::spawn(async move {
        let mut buf = vec![0u8; MAX_DATAGRAM];
        let mut buckets: HashMap<IpAddr, (f64, Instant)> = HashMap::new();
        loop {
            let Ok((n, from)) = udp.recv_from(&mut buf).await else {
                continue;
            };
            if let Some(limit) = config.rate_limit {
                if !take_token(&mut buckets, from.ip(), limit, Instant::now()) {
                    config.counters.limited.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
            }
            let replies = answer(&buf[..n], &udp_world.snapshot(), config.misbehaviour);
            if !replies.is_empty() {
                config.counters.answered.fetch_add(1, Ordering::Relaxed);
            }
            for reply in replies {
                let _ = udp.send_to(&reply, from).await;
            }
        }
    });
    let http_task = accept_loop(tcp, move |stream, _| {
        serve_http(stream, world.snapshot(), players_json)
    });
    Ok(SimServer::new(addr, vec![udp_task, http_task]))
}

/// A roleplay server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "^1Los ^7Santos ^5Roleplay".into(),
        map: "fivem-map-skater".into(),
        game: "Roleplay".into(),
        version: String::new(),
        max: 64,
        bots: 0,
        players: vec![
            ("Franklin".into(), 0, 0.0),
            ("Trevor".into(), 0, 0.0),
            ("Lamar".into(), 0, 0.0),
        ],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, FivemConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(6), 0, |t| {
        format!("Citizen{t}")
    })
    .await
}

/// The hostile fleet's FiveM servers.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                FivemConfig {
                    misbehaviour: m,
                    ..FivemConfig::default()
                },
            )
        })
    };
    let listed = |name, list: PlayersJson| {
        let start = start(move |w| {
            spawn(
                w,
                FivemConfig {
                    players_json: list,
                    ..FivemConfig::default()
                },
            )
        });
        Hostile::up(name, 4, 24, None, start).with_config("players = true\n")
    };
    vec![
        Hostile::down("silent", "timeout", with(Misbehaviour::Silence)),
        Hostile::down(
            "wrong-challenge",
            "mismatch",
            with(Misbehaviour::WrongChallenge),
        ),
        Hostile::down("broken", "malformed", with(Misbehaviour::Broken)),
        // The fleet's world: 2 players and 2 bots (all counted in `clients`), 24 slots.
        Hostile::up("healthy", 4, 24, None, with(Misbehaviour::None)),
        Hostile::up("stale-first", 4, 24, None, with(Misbehaviour::StaleFirst)),
        // `/players.json` is best effort: whatever it answers, the server is up with
        // `getinfo`'s counts.
        listed("players-listed", PlayersJson::Listed),
        listed("players-hidden", PlayersJson::Hidden),
        listed("players-bad-json", PlayersJson::BadJson),
        listed("players-missing", PlayersJson::Missing),
    ]
}

/// Binds UDP on a free port and TCP on the same port number (a real server listens on
/// both); retries when the TCP port is taken.
async fn bind_pair() -> io::Result<(UdpSocket, TcpListener)> {
    let mut last = None;
    for _ in 0..32 {
        let udp = UdpSocket::bind("127.0.0.1:0").await?;
        match TcpListener::bind(udp.local_addr()?).await {
            Ok(tcp) => return Ok((udp, tcp)),
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no free port pair")))
}

/// Whether `ip` may have one more answer now; spends its token.
fn take_token(
    buckets: &mut HashMap<IpAddr, (f64, Instant)>,
    ip: IpAddr,
    limit: RateLimit,
    now: Instant,
) -> bool {
    let (tokens, at) = buckets.entry(ip).or_insert((limit.burst, now));
    let refill = now.saturating_duration_since(*at).as_secs_f64() * limit.per_second;
    *tokens = (*tokens + refill).min(limit.burst);
    *at = now;
    if *tokens >= 1.0 {
        *tokens -= 1.0;
        true
    } else {
        false
    }
}

/// The variables of the world's `infoResponse`, in FXServer's order.
pub fn vars(w: &WorldState, challenge: &str) -> Vec<(String, String)> {
    let online = (w.players.len() as u32).saturating_add(w.bots);
    [
        ("sv_maxclients", w.max.to_string()),
        ("clients", online.to_string()),
        ("challenge", challenge.to_string()),
        ("gamename", "CitizenFX".to_string()),
        ("protocol", "4".to_string()),
        ("hostname", w.name.clone()),
        ("gametype", w.game.clone()),
        ("mapname", w.map.clone()),
        ("iv", IV.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// The replies to one datagram.
fn answer(datagram: &[u8], w: &WorldState, m: Misbehaviour) -> Vec<Vec<u8>> {
    let Ok(challenge) = fivem::decode_request(datagram) else {
        return Vec::new();
    };
    let challenge = challenge.unwrap_or_default();
    let reply = |c: &str| {
        let mut out = Vec::new();
        fivem::encode_reply(&vars(w, c), &mut out);
        out
    };
    match m {
        Misbehaviour::None => vec![reply(&challenge)],
        Misbehaviour::Silence => Vec::new(),
        Misbehaviour::WrongChallenge => vec![reply(&format!("{challenge}x"))],
        Misbehaviour::StaleFirst => vec![reply("stale"), reply(&challenge)],
        Misbehaviour::Broken => {
            let mut out = reply(&challenge);
            out.extend_from_slice(b"\\truncat");
            vec![out]
        }
    }
}

/// One HTTP/1.1 request on the TCP side, answered and closed.
async fn serve_http(mut stream: TcpStream, w: WorldState, players_json: PlayersJson) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|x| x == b"\r\n\r\n") && buf.len() < 8192 {
        match tokio::time::timeout(Duration::from_secs(5), stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ => return,
        }
    }
    let line = String::from_utf8_lossy(&buf);
    let path = line.split_whitespace().nth(1).unwrap_or("/");
    let path = path.split('?').next().unwrap_or(path);
    let online = (w.players.len() as u32).saturating_add(w.bots);
    let body = match path {
        "/dynamic.json" => Some(serde_json::json!({
            "clients": online,
            "gametype": w.game,
            "hostname": w.name,
            "iv": IV,
            "mapname": w.map,
            "sv_maxclients": w.max.to_string(),
        })),
        "/info.json" => Some(serde_json::json!({
            "enhancedHostSupport": true,
            "resources": ["mapmanager", "spawnmanager", "sessionmanager"],
            "server": "FXServer-master SERVER v1.0.0.7290 linux (simulated)",
            "vars": {"sv_maxClients": w.max.to_string(), "gamename": "gta5"},
            "version": 1_398_345_911_u32,
        })),
        "/players.json" if players_json == PlayersJson::Missing => None,
        "/players.json" if players_json == PlayersJson::Hidden => Some(serde_json::json!([])),
        "/players.json" if players_json == PlayersJson::BadJson => {
            Some(serde_json::Value::String("[{\"name\":".into()))
        }
        "/players.json" => Some(serde_json::Value::Array(
            w.players
                .iter()
                .enumerate()
                .map(|(i, (name, _, _))| {
                    serde_json::json!({"endpoint": "127.0.0.1", "id": i + 1, "identifiers": [], "name": name, "ping": 40})
                })
                .collect(),
        )),
        _ => None,
    };
    let response = match body {
        Some(b) => {
            // BadJson's string goes out raw: cut JSON, not a JSON string.
            let b = match b {
                serde_json::Value::String(raw) => raw,
                b => b.to_string(),
            };
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{b}",
                b.len()
            )
        }
        None => "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".into(),
    };
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket lets a burst through, then one per refill.
    #[test]
    fn rate_limit_bucket() {
        let mut b = HashMap::new();
        let ip: IpAddr = [127, 0, 0, 1].into();
        let t0 = Instant::now();
        let passed = (0..15)
            .filter(|_| take_token(&mut b, ip, CFX_RATE_LIMIT, t0))
            .count();
        assert_eq!(passed, 10);
        assert!(!take_token(
            &mut b,
            ip,
            CFX_RATE_LIMIT,
            t0 + Duration::from_millis(400)
        ));
        assert!(take_token(
            &mut b,
            ip,
            CFX_RATE_LIMIT,
            t0 + Duration::from_millis(600)
        ));
    }
}
