//! A simulated Valve A2S server: friendly by default (a Source server without a challenge),
//! with knobs for every quirk the dialogue must survive and a [`Misbehaviour`] for the hostile
//! ones. Replies are built with the encoders of [`crate::protocol::a2s`].

use std::io;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use tokio::net::UdpSocket;

use super::hostile::{self, start, Hostile};
use super::{SimServer, World, WorldState};
use crate::protocol::a2s::split::{self, Format, SplitOptions, COMPRESSED_BIT};
use crate::protocol::a2s::{self, Engine, Environment, Info, Query, ServerType, SINGLE_HEADER};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::A2s,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo_with_console(w)),
    demo_rules: &["mp_friendlyfire"],
    hostile,
    password: None,
};

/// The SteamID the simulator reports.
pub const STEAM_ID: u64 = 0x0110_0000_1234_5678;
/// Size the compression bomb inflates to: eight times the default reply cap, compressed once.
pub const BOMB_INFLATED_BYTES: usize = 8 << 20;
/// Size the compression bomb announces in packet 0.
pub const BOMB_ANNOUNCED_BYTES: u32 = 512 << 20;
/// Size [`Misbehaviour::CompressionBombHuge`] inflates to: far past any cap, and past what a
/// decompressor that trusts the stream could hold without trouble.
pub const HUGE_BOMB_INFLATED_BYTES: usize = 256 << 20;
/// Junk datagrams sent per request by [`Misbehaviour::JunkFlood`].
pub const JUNK_FLOOD: usize = 200;

/// How the server demands challenges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Challenge {
    /// A2S_INFO is answered at once (A2S_PLAYER/RULES still need one, as on real servers).
    #[default]
    None,
    /// One challenge, valid forever: the second poll of a session takes one request.
    Fixed([u8; 4]),
    /// A fresh challenge after every accepted request: a remembered one is always stale.
    Rotating,
}

/// Hostile behaviours, for the hostile-network suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Never answers anything.
    Silence,
    /// Every reply is cut in half.
    Truncated,
    /// Strings run to the end of the datagram without their NUL; player and rule counts
    /// announce more entries than follow.
    LengthBeyondDatagram,
    /// Each request gets 3 fragments of a reply announcing 15, under a fresh id each time.
    EndlessSplit,
    /// A bzip2 split announcing [`BOMB_ANNOUNCED_BYTES`] (inflating to
    /// [`BOMB_INFLATED_BYTES`]).
    CompressionBomb,
    /// A bzip2 split announcing 1000 bytes that inflates to [`BOMB_INFLATED_BYTES`].
    CompressionBombUnderstated,
    /// A bzip2 split announcing 1000 bytes that inflates to [`HUGE_BOMB_INFLATED_BYTES`].
    CompressionBombHuge,
    /// Every request is answered with a new challenge, forever.
    ChallengeLoop,
    /// Each request gets [`JUNK_FLOOD`] junk datagrams and nothing else.
    JunkFlood,
    /// Each request gets a datagram of zeros.
    Zeros,
    /// Every other request is lost, as on a lossy path: the first copy of each request goes
    /// unanswered, the next is answered normally.
    LoseEveryOther,
}

/// Where A2S_INFO replies end: real servers that stop before their optional trailing fields
/// (HLTV proxies and old GoldSrc servers, older Source servers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum InfoEnd {
    /// Every field.
    #[default]
    Full,
    /// GoldSrc: right after the visibility byte, without the mod flag, VAC and bots (HLTV).
    BeforeMod,
    /// GoldSrc: after the mod flag, before VAC.
    BeforeVac,
    /// GoldSrc: before the bots byte (old servers).
    BeforeBots,
    /// Source: right after VAC, without the version.
    BeforeVersion,
    /// Source: after the version, without the EDF.
    BeforeEdf,
}

/// Requests the server has received, by type (counted before any misbehaviour).
#[derive(Debug, Default)]
pub struct Counters {
    pub info: AtomicUsize,
    pub players: AtomicUsize,
    pub rules: AtomicUsize,
    pub ping: AtomicUsize,
}

impl Counters {
    pub fn info(&self) -> usize {
        self.info.load(Ordering::SeqCst)
    }
    pub fn players(&self) -> usize {
        self.players.load(Ordering::SeqCst)
    }
    pub fn rules(&self) -> usize {
        self.rules.load(Ordering::SeqCst)
    }
    pub fn ping(&self) -> usize {
        self.ping.load(Ordering::SeqCst)
    }
}

#[derive(Debug, Clone)]
pub struct A2sConfig {
    pub engine: Engine,
    pub app_id: u16,
    pub folder: String,
    pub challenge: Challenge,
    /// Split every reply longer than `fragment_size`.
    pub split: Option<SplitOptions>,
    /// Send fragments last to first.
    pub reorder: bool,
    /// Send every fragment twice.
    pub duplicate: bool,
    /// Surround a split reply with fragments of another id that never completes.
    pub foreign_fragments: bool,
    /// Send a decoy info reply (name "Decoy") from a second socket before the real reply.
    pub decoy: bool,
    pub answer_players: bool,
    pub answer_rules: bool,
    pub answer_ping: bool,
    /// EDF keywords (Source only).
    pub keywords: Option<String>,
    /// Raw bytes sent as the server name in A2S_INFO instead of the world's name (Source
    /// only): for names that are not UTF-8.
    pub raw_name: Option<Vec<u8>>,
    /// Where info replies end (a variant for the other engine is ignored).
    pub info_end: InfoEnd,
    pub misbehaviour: Misbehaviour,
    /// Shared with the test, which reads them.
    pub counters: Arc<Counters>,
}

impl Default for A2sConfig {
    fn default() -> Self {
        A2sConfig {
            engine: Engine::Source,
            app_id: 240,
            folder: "cstrike".into(),
            challenge: Challenge::None,
            split: None,
            reorder: false,
            duplicate: false,
            foreign_fragments: false,
            decoy: false,
            answer_players: true,
            answer_rules: true,
            answer_ping: true,
            keywords: None,
            raw_name: None,
            info_end: InfoEnd::Full,
            misbehaviour: Misbehaviour::None,
            counters: Arc::default(),
        }
    }
}

/// Serves A2S on 127.0.0.1 (random port) until the returned server is dropped.
pub async fn spawn(world: World, config: A2sConfig) -> io::Result<SimServer> {
    let socket = UdpSocket::bind("127.0.0.1:0").await?;
    let decoy = if config.decoy {
        Some(UdpSocket::bind("127.0.0.1:0").await?)
    } else {
        None
    };
    // Compressing a bomb takes a while: do it now, off the runtime, not inside a reply that
    // the client is timing.
    match config.misbehaviour {
        Misbehaviour::CompressionBombHuge => {
            tokio::task::spawn_blocking(huge_bomb_stream)
                .await
                .map_err(io::Error::other)?;
        }
        Misbehaviour::CompressionBomb | Misbehaviour::CompressionBombUnderstated => {
            tokio::task::spawn_blocking(bomb_stream)
                .await
                .map_err(io::Error::other)?;
        }
        _ => {}
    }
    let addr = socket.local_addr()?;
    let mut server = Server {
        world,
        config,
        addr,
        current: [0x5A, 0x17, 0x3C, 0x01],
        next_id: 1,
        received: 0,
    };
    if let Challenge::Fixed(c) = server.config.challenge {
        server.current = c;
    }
    let task = tokio::spawn(async move {
        let mut buf = vec![0u8; 2048];
        loop {
            let Ok((n, peer)) = socket.recv_from(&mut buf).await else {
                continue;
            };
            let Ok(query) = a2s::decode_request(&buf[..n]) else {
                continue;
            };
            if let (Some(d), Query::Info { .. }) = (&decoy, query) {
                let mut msg = Vec::new();
                let mut info = server.info();
                info.name = "Decoy".into();
                a2s::encode_info(&info, &mut msg);
                let _ = d.send_to(&msg, peer).await;
            }
            for datagram in server.answer(query) {
                let _ = socket.send_to(&datagram, peer).await;
            }
        }
    });
    Ok(SimServer::new(addr, vec![task]))
}

/// A friendly server for `demo`: Source, a fixed challenge, players, rules split over
/// several fragments, and a join queue in the keywords as Rust reports it.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    spawn(
        world,
        A2sConfig {
            challenge: Challenge::Fixed([0x44, 0x45, 0x4D, 0x4F]),
            split: Some(SplitOptions {
                format: Format::Source { size_field: true },
                fragment_size: 1200,
                compress: false,
            }),
            keywords: Some("demo,simulated,qp2".into()),
            ..A2sConfig::default()
        },
    )
    .await
}

/// The RCON password of the demo server's srcds console.
pub const DEMO_RCON_PASSWORD: &str = "a2s-sim-rcon";

/// [`spawn_demo`] with a Source RCON console beside it answering `stats` (Orange Box
/// layout), so `demo` shows the Source health families (frame rate, CPU, traffic, uptime).
pub async fn spawn_demo_with_console(world: World) -> io::Result<SimServer> {
    let config = super::rcon::RconConfig {
        flavour: super::rcon::Flavour::Srcds,
        password: DEMO_RCON_PASSWORD.into(),
        respond: super::rcon::srcds,
        misbehaviour: super::rcon::Misbehaviour::None,
    };
    let console = super::rcon::spawn(world.clone(), config).await?;
    Ok(spawn_demo(world)
        .await?
        .with_rcon(console, DEMO_RCON_PASSWORD))
}

struct Server {
    world: World,
    config: A2sConfig,
    addr: SocketAddr,
    current: [u8; 4],
    next_id: u32,
    /// Requests seen, for [`Misbehaviour::LoseEveryOther`].
    received: u64,
}

impl Server {
    fn answer(&mut self, query: Query) -> Vec<Vec<u8>> {
        let counters = &self.config.counters;
        let counter = match query {
            Query::Info { .. } => Some(&counters.info),
            Query::Players { .. } => Some(&counters.players),
            Query::Rules { .. } => Some(&counters.rules),
            Query::Ping => Some(&counters.ping),
            Query::GetChallenge => None,
        };
        if let Some(c) = counter {
            c.fetch_add(1, Ordering::SeqCst);
        }
        match self.config.misbehaviour {
            Misbehaviour::None | Misbehaviour::Truncated | Misbehaviour::LengthBeyondDatagram => {}
            Misbehaviour::Silence => return Vec::new(),
            Misbehaviour::EndlessSplit => return self.endless_split(),
            Misbehaviour::CompressionBomb => return self.bomb(BOMB_ANNOUNCED_BYTES),
            Misbehaviour::CompressionBombUnderstated => return self.bomb(1000),
            Misbehaviour::CompressionBombHuge => return self.huge_bomb(),
            Misbehaviour::ChallengeLoop => {
                self.rotate();
                return vec![challenge(self.current)];
            }
            Misbehaviour::JunkFlood => return junk(),
            Misbehaviour::Zeros => return vec![vec![0; 64]],
            Misbehaviour::LoseEveryOther => {
                self.received += 1;
                if self.received % 2 == 1 {
                    return Vec::new();
                }
            }
        }
        let msg = match query {
            Query::Info { challenge: c } => {
                if self.config.challenge != Challenge::None && c != Some(self.current) {
                    return vec![challenge(self.current)];
                }
                self.accepted();
                let mut msg = Vec::new();
                let info = self.info();
                a2s::encode_info(&info, &mut msg);
                match (self.config.engine, self.config.info_end) {
                    // Without EDF fields the version and its NUL end the message.
                    (Engine::Source, InfoEnd::BeforeVersion) => {
                        msg.truncate(msg.len().saturating_sub(info.version.len() + 1))
                    }
                    // Without bots the VAC byte ends it, after the mod flag.
                    (Engine::GoldSrc, InfoEnd::BeforeVac) => {
                        msg.truncate(msg.len().saturating_sub(1))
                    }
                    _ => {}
                }
                if let Some(raw) = &self.config.raw_name {
                    // Source layout: header (4), type, protocol, then the name.
                    msg.splice(6..6 + info.name.len(), raw.iter().copied());
                }
                msg
            }
            Query::Players { challenge: c } => {
                if !self.config.answer_players {
                    return Vec::new();
                }
                if c != self.current {
                    return vec![challenge(self.current)];
                }
                self.accepted();
                let mut msg = Vec::new();
                a2s::encode_players(&players(&self.world.snapshot()), &mut msg);
                msg
            }
            Query::Rules { challenge: c } => {
                if !self.config.answer_rules {
                    return Vec::new();
                }
                if c != self.current {
                    return vec![challenge(self.current)];
                }
                self.accepted();
                let mut msg = Vec::new();
                a2s::encode_rules(&self.world.snapshot().rules, &mut msg);
                msg
            }
            Query::GetChallenge => return vec![challenge(self.current)],
            Query::Ping => {
                if !self.config.answer_ping {
                    return Vec::new();
                }
                let payload = match self.config.engine {
                    Engine::Source => "00000000000000",
                    Engine::GoldSrc => "",
                };
                let mut msg = Vec::new();
                a2s::encode_ping(payload, &mut msg);
                return vec![msg];
            }
        };
        let msg = self.damage(msg, query);
        self.deliver(msg)
    }

    fn accepted(&mut self) {
        if self.config.challenge == Challenge::Rotating {
            self.rotate();
        }
    }

    fn rotate(&mut self) {
        let n = u32::from_le_bytes(self.current)
            .wrapping_mul(1_103_515_245)
            .wrapping_add(12_345);
        self.current = n.to_le_bytes();
    }

    fn fresh_id(&mut self) -> u32 {
        self.next_id = self.next_id.wrapping_add(1) & !COMPRESSED_BIT;
        self.next_id
    }

    fn info(&self) -> Info {
        let w = self.world.snapshot();
        let online = w.players.len() as u32 + w.bots;
        let byte = |n: u32| n.min(255) as u8;
        let source = self.config.engine == Engine::Source;
        let mut info = Info {
            engine: self.config.engine,
            protocol: if source { 17 } else { 48 },
            address: (!source).then(|| self.addr.to_string()),
            name: w.name.clone(),
            map: w.map.clone(),
            folder: self.config.folder.clone(),
            game: w.game.clone(),
            app_id: if source { self.config.app_id } else { 0 },
            players: byte(online),
            max_players: byte(w.max),
            bots: Some(byte(w.bots)),
            server_type: ServerType::Dedicated,
            environment: Environment::Linux,
            visibility: w.password,
            vac: Some(true),
            version: if source {
                w.version.clone()
            } else {
                String::new()
            },
            the_ship: (source && self.config.app_id == a2s::THE_SHIP_APP_ID).then_some(
                a2s::TheShip {
                    mode: 1,
                    witnesses: 2,
                    duration: 3,
                },
            ),
            goldsrc_mod: None,
            game_port: source.then_some(self.addr.port()),
            steam_id: source.then_some(STEAM_ID),
            sourcetv: None,
            keywords: self.config.keywords.clone().filter(|_| source),
            game_id: source.then_some(self.config.app_id.into()),
        };
        // The encoder ends a reply at its first missing trailing field.
        match (self.config.engine, self.config.info_end) {
            (Engine::GoldSrc, InfoEnd::BeforeMod) => (info.vac, info.bots) = (None, None),
            // The VAC byte is cut off after encoding, leaving the mod flag.
            (Engine::GoldSrc, InfoEnd::BeforeVac | InfoEnd::BeforeBots) => info.bots = None,
            (Engine::Source, InfoEnd::BeforeVersion | InfoEnd::BeforeEdf) => {
                info.game_port = None;
                info.steam_id = None;
                info.keywords = None;
                info.game_id = None;
            }
            _ => {}
        }
        info
    }

    fn damage(&self, mut msg: Vec<u8>, query: Query) -> Vec<u8> {
        match self.config.misbehaviour {
            Misbehaviour::Truncated => {
                msg.truncate(msg.len() / 2);
                msg
            }
            Misbehaviour::LengthBeyondDatagram => match query {
                // Header, type, protocol, then the name without its NUL.
                Query::Info { .. } => {
                    let mut out = msg[..6].to_vec();
                    out.extend_from_slice(self.world.snapshot().name.as_bytes());
                    out
                }
                Query::Players { .. } => {
                    msg[5] = 255;
                    msg
                }
                Query::Rules { .. } => {
                    msg[5..7].copy_from_slice(&u16::MAX.to_le_bytes());
                    msg
                }
                _ => msg,
            },
            _ => msg,
        }
    }

    fn deliver(&mut self, msg: Vec<u8>) -> Vec<Vec<u8>> {
        let Some(opts) = self.config.split.filter(|o| msg.len() > o.fragment_size) else {
            return vec![msg];
        };
        let id = self.fresh_id();
        let mut frags = split::encode_split(&msg, id, opts);
        if self.config.reorder {
            frags.reverse();
        }
        if self.config.duplicate {
            frags = frags.into_iter().flat_map(|f| [f.clone(), f]).collect();
        }
        if self.config.foreign_fragments {
            let foreign_id = self.fresh_id();
            let mut bogus = SINGLE_HEADER.to_vec();
            bogus.extend_from_slice(b"Eforeign");
            let options = SplitOptions {
                fragment_size: 4,
                compress: false,
                ..opts
            };
            let foreign = split::encode_split(&bogus, foreign_id, options);
            // Parts 0 and 1 of at least three: never completes.
            let mut out = vec![foreign[0].clone()];
            let mid = frags.len() / 2;
            out.extend(frags.drain(..mid));
            out.push(foreign[1].clone());
            out.extend(frags);
            return out;
        }
        frags
    }

    fn endless_split(&mut self) -> Vec<Vec<u8>> {
        let id = self.fresh_id();
        let format = self
            .config
            .split
            .map_or(Format::Source { size_field: true }, |o| o.format);
        let mut payload = SINGLE_HEADER.to_vec();
        payload.extend_from_slice(b"Iendless");
        (0..3u8)
            .map(|n| {
                let mut out = Vec::new();
                split::encode_fragment(format, id, 15, n, None, &payload, &mut out);
                out
            })
            .collect()
    }

    fn bomb(&mut self, announced: u32) -> Vec<Vec<u8>> {
        let (data, crc) = bomb_stream();
        self.bomb_fragments(data, *crc, announced)
    }

    fn huge_bomb(&mut self) -> Vec<Vec<u8>> {
        let (data, crc) = huge_bomb_stream();
        self.bomb_fragments(data, *crc, 1000)
    }

    fn bomb_fragments(&mut self, data: &[u8], crc: u32, announced: u32) -> Vec<Vec<u8>> {
        let id = self.fresh_id() | COMPRESSED_BIT;
        let format = Format::Source { size_field: true };
        let chunks: Vec<&[u8]> = data.chunks(1200).collect();
        let total = chunks.len() as u8;
        chunks
            .iter()
            .enumerate()
            .map(|(n, c)| {
                let mut out = Vec::new();
                let head = (n == 0).then_some((announced, crc));
                split::encode_fragment(format, id, total, n as u8, head, c, &mut out);
                out
            })
            .collect()
    }
}

/// The bomb's bzip2 stream and the CRC of what it inflates to, built once per process.
fn bomb_stream() -> &'static (Vec<u8>, u32) {
    static BOMB: OnceLock<(Vec<u8>, u32)> = OnceLock::new();
    BOMB.get_or_init(|| {
        let mut plain = vec![0u8; BOMB_INFLATED_BYTES];
        plain[..4].copy_from_slice(&SINGLE_HEADER);
        plain[4] = b'I';
        (split::compress(&plain), 0)
    })
}

/// The huge bomb's bzip2 stream, compressed from zeros fed in 1 MiB pieces so the simulator
/// never holds the inflated size itself; built once per process.
fn huge_bomb_stream() -> &'static (Vec<u8>, u32) {
    use std::io::Write;
    static BOMB: OnceLock<(Vec<u8>, u32)> = OnceLock::new();
    BOMB.get_or_init(|| {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
        let mut piece = vec![0u8; 1 << 20];
        piece[..4].copy_from_slice(&SINGLE_HEADER);
        piece[4] = b'I';
        // Writing into a Vec cannot fail.
        enc.write_all(&piece).expect("write to Vec");
        piece[..5].fill(0);
        for _ in 1..HUGE_BOMB_INFLATED_BYTES >> 20 {
            enc.write_all(&piece).expect("write to Vec");
        }
        (enc.finish().expect("finish into Vec"), 0)
    })
}

fn challenge(c: [u8; 4]) -> Vec<u8> {
    let mut out = Vec::new();
    a2s::encode_challenge(c, &mut out);
    out
}

fn players(w: &WorldState) -> Vec<a2s::Player> {
    let humans = w
        .players
        .iter()
        .map(|(name, score, secs)| (name.clone(), *score, *secs));
    let bots = (1..=w.bots).map(|n| (format!("Bot {n}"), 0, 0.0));
    humans
        .chain(bots)
        .take(255)
        .enumerate()
        .map(|(i, (name, score, duration))| a2s::Player {
            index: i as u8,
            name,
            score,
            duration,
        })
        .collect()
}

/// Deterministic junk: never starts with a valid header.
fn junk() -> Vec<Vec<u8>> {
    (0..JUNK_FLOOD)
        .map(|i| {
            let len = 1 + i % 97;
            (0..len)
                .map(|j| (i * 31 + j * 7) as u8 | 0x01)
                .map(|b| b & 0x7F)
                .collect()
        })
        .collect()
}

/// A server name that is not UTF-8 (served with [`A2sConfig::raw_name`]); rustc's
/// `invalid_from_utf8` lint would flag a check that it is not.
pub const INVALID_UTF8_NAME: &[u8] = b"bad\xff\xfe\xc3(utf8 \"q\" \\ \n\xe2\x80";

/// The hostile fleet's A2S servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> A2sConfig| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || A2sConfig {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    vec![
        Hostile::up("ok", 4, 24, Some(2), with(Default::default)),
        // A plausible reply from another port first: ignored, the real one (later) is used.
        Hostile::up(
            "decoy",
            4,
            24,
            Some(2),
            with(|| A2sConfig {
                decoy: true,
                ..Default::default()
            }),
        ),
        Hostile::up("str-long", 4, 24, Some(2), with(Default::default))
            .serving_name(hostile::nasty_name(hostile::UDP_NAME_BYTES, false)),
        Hostile::up(
            "str-utf8",
            4,
            24,
            Some(2),
            with(|| A2sConfig {
                raw_name: Some(INVALID_UTF8_NAME.to_vec()),
                ..Default::default()
            }),
        )
        .expect_name(String::from_utf8_lossy(INVALID_UTF8_NAME)),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("truncated", "malformed", Misbehaviour::Truncated),
        bad("length", "malformed", Misbehaviour::LengthBeyondDatagram),
        bad("endless-split", "incomplete", Misbehaviour::EndlessSplit),
        bad("bomb", "too_large", Misbehaviour::CompressionBomb),
        bad("bomb-huge", "too_large", Misbehaviour::CompressionBombHuge),
        bad("challenge-loop", "challenge", Misbehaviour::ChallengeLoop),
        bad("junk-flood", "malformed", Misbehaviour::JunkFlood),
        bad("zeros", "malformed", Misbehaviour::Zeros),
    ]
}
