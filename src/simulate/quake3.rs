//! A simulated Quake 3-engine server (`getstatus` / `getinfo`), shaped like ioquake3
//! (OpenArena) or DarkPlaces (Nexuiz, Xonotic) as captured from the real servers, with a
//! flood-protected mode, a lossy mode and hostile replies.

use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::time::Instant;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::quake3::{
    self, encode_info_reply, encode_player_line, encode_status_reply, Command, PlayerLine, OOB,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Quake3,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// DarkPlaces' default `net_getstatusfloodblockingtimeout`.
pub const DARKPLACES_FLOOD_GAP: Duration = Duration::from_secs(1);
/// Player lines sent by [`Misbehaviour::HugePlayerList`].
pub const HUGE_LIST: usize = 10_000;
/// Addresses the flood filter remembers; the oldest is forgotten first, as DarkPlaces
/// reuses its oldest slot.
const FLOOD_SLOTS: usize = 64;

/// Which engine's reply shape to copy.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Flavour {
    /// ioquake3 / OpenArena: every server variable, `sv_privateClients`, `g_humanplayers` in
    /// `getinfo`, bots with ping 0.
    #[default]
    Ioquake3,
    /// DarkPlaces / Nexuiz: a fixed short infostring with `hostname` and `bots`, an empty line
    /// before the players, and an `infoResponse` ending in a newline.
    DarkPlaces,
}

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Every reply is cut in half.
    Truncated,
    /// `sv_maxclients` says 1 over two or more player lines, and DarkPlaces' `bots` claims
    /// more bots than there are lines.
    LyingCounts,
    /// [`HUGE_LIST`] player lines (as short as the format allows, to fit one datagram), with
    /// `sv_maxclients` raised to match so only the cap stops them.
    HugePlayerList,
    /// Every string drowned in colour codes of every engine and control characters; the
    /// text underneath is the world's.
    ColourSoup,
    /// Replies echo another challenge than the request's.
    WrongChallenge,
}

/// What the server received and did, for tests.
#[derive(Debug, Default)]
pub struct Counters {
    pub status: AtomicUsize,
    pub info: AtomicUsize,
    /// Requests dropped by the flood filter.
    pub flooded: AtomicUsize,
    /// Replies lost on purpose ([`Quake3Config::lossy`]).
    pub lost: AtomicUsize,
}

impl Counters {
    pub fn status(&self) -> usize {
        self.status.load(Ordering::SeqCst)
    }
    pub fn info(&self) -> usize {
        self.info.load(Ordering::SeqCst)
    }
    pub fn flooded(&self) -> usize {
        self.flooded.load(Ordering::SeqCst)
    }
    pub fn lost(&self) -> usize {
        self.lost.load(Ordering::SeqCst)
    }
}

#[derive(Debug, Clone)]
pub struct Quake3Config {
    pub flavour: Flavour,
    /// `sv_privateClients` (ioquake3): slots on top of the world's `max`.
    pub private_slots: u32,
    /// Flood protection as DarkPlaces does it: after a request from an IP address is
    /// accepted, every `getstatus` or `getinfo` from that address (any port) within this gap
    /// is dropped, and dropped requests do not extend the block.
    pub flood_gap: Option<Duration>,
    /// Lose every other reply to an accepted request (after the flood filter, as a reply
    /// lost on the way back would be).
    pub lossy: bool,
    pub misbehaviour: Misbehaviour,
    pub counters: Arc<Counters>,
}

impl Default for Quake3Config {
    fn default() -> Self {
        Quake3Config {
            flavour: Flavour::Ioquake3,
            private_slots: 0,
            flood_gap: None,
            lossy: false,
            misbehaviour: Misbehaviour::None,
            counters: Arc::default(),
        }
    }
}

/// Serves Quake 3 queries on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Quake3Config) -> io::Result<SimServer> {
    let mut server = Server::new(config);
    datagrams::spawn(move |req: &[u8], from: SocketAddr, _own| {
        server.answer(req, from.ip(), Instant::now(), &world.snapshot())
    })
    .await
}

/// An OpenArena-flavoured server with bots and colourful names, players coming and going.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "^1Demo ^7Arena".into(),
        map: "aggressor".into(),
        game: "baseoa".into(),
        version: "ioq3 1.36 simulated".into(),
        max: 12,
        bots: 2,
        players: vec![
            ("^4Sarge".into(), 14, 0.0),
            ("^3Grism".into(), 9, 0.0),
            ("Kyonshi".into(), 2, 0.0),
        ],
        rules: vec![
            ("g_gametype".into(), "0".into()),
            ("fraglimit".into(), "20".into()),
        ],
        password: false,
    };
    let serve = |w| spawn(w, Quake3Config::default());
    churn::demo(world, state, serve, Duration::from_secs(5), 0, |t| {
        format!("^{}Guest{t}", t % 10)
    })
    .await
}

/// The server's state between requests: the flood filter and the loss toggle.
#[derive(Debug)]
struct Server {
    config: Quake3Config,
    /// Address and time of the last accepted request, per address.
    recent: Vec<(IpAddr, Instant)>,
    accepted: u64,
}

impl Server {
    fn new(config: Quake3Config) -> Server {
        Server {
            config,
            recent: Vec::new(),
            accepted: 0,
        }
    }

    fn answer(
        &mut self,
        datagram: &[u8],
        from: IpAddr,
        now: Instant,
        w: &WorldState,
    ) -> Vec<Vec<u8>> {
        let Ok(req) = quake3::decode_request(datagram) else {
            return Vec::new();
        };
        let counters = self.config.counters.clone();
        match req.command {
            Command::Status => counters.status.fetch_add(1, Ordering::SeqCst),
            Command::Info => counters.info.fetch_add(1, Ordering::SeqCst),
        };
        if self.flooded(from, now) {
            counters.flooded.fetch_add(1, Ordering::SeqCst);
            return Vec::new();
        }
        self.accepted += 1;
        if self.config.lossy && self.accepted % 2 == 1 {
            counters.lost.fetch_add(1, Ordering::SeqCst);
            return Vec::new();
        }
        let m = self.config.misbehaviour;
        if m == Misbehaviour::Silence {
            return Vec::new();
        }
        let challenge = match (m, req.challenge) {
            (Misbehaviour::WrongChallenge, c) => Some(format!("not{}", c.unwrap_or_default())),
            (_, c) => c,
        };
        let mut out = match req.command {
            Command::Status => self.status(w, challenge),
            Command::Info => self.info(w, challenge),
        };
        if m == Misbehaviour::Truncated {
            out.truncate(out.len() / 2);
        }
        vec![out]
    }

    /// Whether `from` is inside its flood gap; if not, starts a new gap for it.
    fn flooded(&mut self, from: IpAddr, now: Instant) -> bool {
        let Some(gap) = self.config.flood_gap else {
            return false;
        };
        if let Some(slot) = self.recent.iter_mut().find(|(ip, _)| *ip == from) {
            if now < slot.1 + gap {
                return true;
            }
            slot.1 = now;
            return false;
        }
        if self.recent.len() >= FLOOD_SLOTS {
            if let Some(oldest) = (0..self.recent.len()).min_by_key(|&i| self.recent[i].1) {
                self.recent.swap_remove(oldest);
            }
        }
        self.recent.push((from, now));
        false
    }

    fn soup(&self, s: &str) -> String {
        if self.config.misbehaviour != Misbehaviour::ColourSoup {
            return s.to_string();
        }
        // Every form each engine strips, a control character, and a DarkPlaces literal caret
        // that must come back as one `^`.
        format!("^1^x0F0\x01{s}^a^^^7\x7f")
    }

    fn players(&self, w: &WorldState) -> Vec<PlayerLine> {
        let humans = w
            .players
            .iter()
            .enumerate()
            .map(|(i, (name, score, _))| PlayerLine {
                score: Some((*score).into()),
                ping: Some(20 + i as i64 * 5),
                team: None,
                name: self.soup(name),
            });
        let bots = (0..w.bots).map(|i| PlayerLine {
            score: Some(0),
            ping: Some(0),
            team: None,
            name: self.soup(&format!("Bot{i}")),
        });
        humans.chain(bots).collect()
    }

    fn status(&self, w: &WorldState, challenge: Option<String>) -> Vec<u8> {
        let players = self.players(w);
        let lines = players.len();
        let m = self.config.misbehaviour;
        let slots = match m {
            Misbehaviour::LyingCounts => 1,
            Misbehaviour::HugePlayerList => HUGE_LIST as u32,
            _ => w.max + self.config.private_slots,
        };
        let mut vars = Vec::new();
        let mut put = |k: &str, v: String| vars.push((k.to_string(), v));
        match self.config.flavour {
            Flavour::Ioquake3 => {
                if let Some(c) = &challenge {
                    put("challenge", c.clone());
                }
                put("sv_hostname", self.soup(&w.name));
                put("sv_maxclients", slots.to_string());
                if self.config.private_slots > 0 {
                    put("sv_privateClients", self.config.private_slots.to_string());
                }
                put("version", self.soup(&w.version));
                put("mapname", self.soup(&w.map));
                put("gamename", self.soup(&w.game));
                put("g_needpass", u8::from(w.password).to_string());
                for (k, v) in &w.rules {
                    put(k, self.soup(v));
                }
            }
            Flavour::DarkPlaces => {
                let bots = match m {
                    Misbehaviour::LyingCounts => lines as u32 + 5,
                    _ => w.bots,
                };
                put("gamename", self.soup(&w.game));
                put("modname", "data".into());
                put("gameversion", "20000".into());
                put("sv_maxclients", slots.to_string());
                put("clients", lines.to_string());
                put("bots", bots.to_string());
                put("mapname", self.soup(&w.map));
                put("hostname", self.soup(&w.name));
                put("protocol", "3".into());
                if let Some(c) = &challenge {
                    put("challenge", c.clone());
                }
            }
        }
        let mut out = Vec::new();
        encode_status_reply(&vars, &[], &mut out);
        if self.config.flavour == Flavour::DarkPlaces {
            out.push(b'\n');
        }
        match m {
            Misbehaviour::HugePlayerList => {
                // "score ping\n", no name: 4 bytes a line, so 10,000 fit in one datagram.
                for _ in 0..HUGE_LIST {
                    out.extend_from_slice(b"0 0\n");
                }
            }
            _ => {
                for p in &players {
                    let (score, ping) = (p.score.unwrap_or(0), p.ping.unwrap_or(0));
                    encode_player_line(score, ping, p.team, &p.name, &mut out);
                }
                if m == Misbehaviour::LyingCounts {
                    for _ in lines..2 {
                        encode_player_line(0, 50, None, "ghost", &mut out);
                    }
                }
            }
        }
        out
    }

    fn info(&self, w: &WorldState, challenge: Option<String>) -> Vec<u8> {
        let humans = w.players.len();
        let clients = humans + w.bots as usize;
        let mut vars: Vec<(String, String)> = Vec::new();
        let mut put = |k: &str, v: String| vars.push((k.to_string(), v));
        let mut out = Vec::new();
        match self.config.flavour {
            Flavour::Ioquake3 => {
                put("g_needpass", u8::from(w.password).to_string());
                // Net of private slots, as ioquake3 writes it.
                put("sv_maxclients", w.max.to_string());
                put("g_humanplayers", humans.to_string());
                put("clients", clients.to_string());
                put("mapname", self.soup(&w.map));
                put("hostname", self.soup(&w.name));
                put("protocol", "71".into());
                put("gamename", "Quake3Arena".into());
                if let Some(c) = &challenge {
                    put("challenge", c.clone());
                }
                encode_info_reply(&vars, &mut out);
            }
            Flavour::DarkPlaces => {
                // The same variables as its statusResponse, and a newline.
                let status = self.status(w, challenge);
                out.extend_from_slice(&OOB);
                out.extend_from_slice(b"infoResponse\n");
                let start = OOB.len() + "statusResponse\n".len();
                let line = status[start..]
                    .split(|&b| b == b'\n')
                    .next()
                    .unwrap_or_default();
                out.extend_from_slice(line);
                out.push(b'\n');
            }
        }
        out
    }
}

/// The hostile fleet's Quake 3 servers (see [`super::hostile`]).
pub fn hostile() -> Vec<Hostile> {
    let with = |cfg: fn() -> Quake3Config| start(move |w| spawn(w, cfg()));
    let bad = |name, reason, m: Misbehaviour| {
        let cfg = move || Quake3Config {
            misbehaviour: m,
            ..Default::default()
        };
        Hostile::down(name, reason, start(move |w| spawn(w, cfg())))
    };
    vec![
        Hostile::up("ok", 4, 24, Some(2), with(Default::default)),
        // DarkPlaces, flood-protected and losing every other reply: up only because resends
        // keep the registry's gap. The gap is 1.1 s against DarkPlaces' 1 s, so a first
        // request that reaches a busy server 0.1 s late gets its resend dropped too: the
        // timeout leaves room for a third try (as tests/it/flood.rs does).
        Hostile::up(
            "flood-lossy",
            4,
            24,
            Some(2),
            with(|| Quake3Config {
                flavour: Flavour::DarkPlaces,
                flood_gap: Some(DARKPLACES_FLOOD_GAP),
                lossy: true,
                ..Default::default()
            }),
        )
        .with_config("interval = \"4s\"\ntimeout = \"3s\"\n"),
        // 10,000 player lines (sv_maxclients raised to match): counted, not listed, still up.
        Hostile::up(
            "huge-list",
            HUGE_LIST as u32,
            HUGE_LIST as u32,
            Some(HUGE_LIST as u32),
            with(|| Quake3Config {
                misbehaviour: Misbehaviour::HugePlayerList,
                ..Default::default()
            }),
        ),
        bad("silence", "timeout", Misbehaviour::Silence),
        bad("truncated", "malformed", Misbehaviour::Truncated),
        bad("lying-counts", "too_large", Misbehaviour::LyingCounts),
        bad("wrong-challenge", "mismatch", Misbehaviour::WrongChallenge),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::quake3::{decode_info, decode_status, encode_request, to_status, Want};

    fn world() -> WorldState {
        WorldState {
            name: "^1Red Server".into(),
            map: "q3dm17".into(),
            game: "baseq3".into(),
            version: "ioq3 1.36".into(),
            max: 8,
            bots: 1,
            players: vec![("Alice".into(), 5, 0.0), ("^2Bob".into(), -1, 0.0)],
            rules: vec![("fraglimit".into(), "20".into())],
            password: true,
        }
    }

    fn request(command: Command, challenge: &str) -> Vec<u8> {
        let mut out = Vec::new();
        encode_request(command, challenge, &mut out);
        out
    }

    const IP: IpAddr = IpAddr::V4(std::net::Ipv4Addr::LOCALHOST);

    /// Both flavours answer both requests in a shape our decoder reads back to the world.
    #[test]
    fn flavours_decode_to_the_world() {
        for flavour in [Flavour::Ioquake3, Flavour::DarkPlaces] {
            let mut s = Server::new(Quake3Config {
                flavour,
                private_slots: 2,
                ..Quake3Config::default()
            });
            let now = Instant::now();
            let st = s.answer(&request(Command::Status, "c1"), IP, now, &world());
            let status = decode_status(&st[0], Some("c1")).unwrap();
            let inf = s.answer(&request(Command::Info, "c1"), IP, now, &world());
            let info = decode_info(&inf[0], Some("c1")).unwrap();
            let want = Want {
                players: true,
                ..Want::default()
            };
            let got = to_status(&status, Some(&info), want, Duration::ZERO);
            assert_eq!(got.name, "Red Server", "{flavour:?}");
            assert_eq!((got.online, got.bots), (3, Some(1)), "{flavour:?}");
            let max = if flavour == Flavour::Ioquake3 { 8 } else { 10 };
            assert_eq!(got.max, max, "{flavour:?}");
            let names: Vec<_> = got.players.unwrap().into_iter().map(|p| p.name).collect();
            assert_eq!(names, ["Alice", "Bob", "Bot0"]);
        }
    }

    /// The flood filter drops repeats within the gap from one address, any command, and
    /// does not extend the block for dropped ones; another address is independent.
    #[test]
    fn flood_gap() {
        let mut s = Server::new(Quake3Config {
            flood_gap: Some(Duration::from_secs(1)),
            ..Quake3Config::default()
        });
        let t0 = Instant::now();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let st = request(Command::Status, "x");
        let inf = request(Command::Info, "x");
        let w = world();
        assert_eq!(s.answer(&st, IP, t0, &w).len(), 1);
        assert_eq!(
            s.answer(&inf, IP, t0 + Duration::from_millis(10), &w).len(),
            0
        );
        assert_eq!(
            s.answer(&st, other, t0 + Duration::from_millis(10), &w)
                .len(),
            1
        );
        assert_eq!(
            s.answer(&st, IP, t0 + Duration::from_millis(999), &w).len(),
            0
        );
        assert_eq!(
            s.answer(&inf, IP, t0 + Duration::from_millis(1000), &w)
                .len(),
            1
        );
        assert_eq!(s.config.counters.flooded(), 2);
        assert_eq!(
            (s.config.counters.status(), s.config.counters.info()),
            (3, 2)
        );
    }

    /// Past FLOOD_SLOTS addresses the oldest is forgotten, so memory stays bounded.
    #[test]
    fn flood_slots_bounded() {
        let mut s = Server::new(Quake3Config {
            flood_gap: Some(Duration::from_secs(1)),
            ..Quake3Config::default()
        });
        let t0 = Instant::now();
        for i in 0..FLOOD_SLOTS as u32 + 10 {
            let ip = IpAddr::V4(std::net::Ipv4Addr::from(0x7f00_0000 + i));
            let t = t0 + Duration::from_millis(i.into());
            assert!(!s.flooded(ip, t));
        }
        assert_eq!(s.recent.len(), FLOOD_SLOTS);
    }

    /// Lossy: every other accepted request goes unanswered.
    #[test]
    fn lossy() {
        let mut s = Server::new(Quake3Config {
            lossy: true,
            ..Quake3Config::default()
        });
        let st = request(Command::Status, "x");
        let answered: Vec<usize> = (0..4)
            .map(|_| s.answer(&st, IP, Instant::now(), &world()).len())
            .collect();
        assert_eq!(answered, [0, 1, 0, 1]);
        assert_eq!(s.config.counters.lost(), 2);
    }
}
