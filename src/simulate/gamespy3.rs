//! Simulated GameSpy 3 server (Battlefield 2 style): a challenge per client address, the full
//! reply split into parts of a configurable size, with knobs for hostile replies.

use std::collections::HashMap;
use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::gamespy3::{
    self as gs3, decode_request, encode_handshake_reply, encode_reply, Reply, Request, Table,
};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Gamespy3,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["bf2_ranked"],
    hostile,
    password: None,
};

/// Hostile or unusual behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// Ignores the handshake and takes requests without a challenge (some Battlefield 2
    /// builds); what qstat's `-gs3` needs.
    NoHandshake,
    /// Answers the handshake with challenge 0 and takes requests without one.
    ChallengeZero,
    /// Every part is cut to half its length.
    Truncated,
    /// Every part is sent twice.
    Duplicated,
    /// Parts are sent last first.
    Reordered,
    /// The second part is never sent.
    MissingPart,
    /// `numplayers` says 1000 on a server of `maxplayers` 1.
    LyingCounts,
    /// Parts numbered past the cap (index 100 and up).
    Oversized,
    /// Random-looking bytes under a valid header.
    Garbage,
    /// Every request is answered with a new challenge instead of the reply.
    EndlessChallenges,
}

#[derive(Debug, Clone)]
pub struct Gs3Config {
    /// Largest datagram, header included (real servers: about 1400).
    pub part_len: usize,
    pub misbehaviour: Misbehaviour,
}

impl Default for Gs3Config {
    fn default() -> Self {
        Gs3Config {
            part_len: 1400,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// The reply a server of this world sends: Battlefield 2's keys, players with score and
/// ping, two teams.
pub fn reply_of(w: &WorldState) -> Reply {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let online = w.players.len();
    let mut info = vec![
        kv("hostname", w.name.clone()),
        kv("gamename", w.game.clone()),
        kv("gamever", w.version.clone()),
        kv("mapname", w.map.clone()),
        kv("gametype", "gpm_cq".into()),
        kv("numplayers", online.to_string()),
        kv("maxplayers", w.max.to_string()),
        kv("password", u8::from(w.password).to_string()),
    ];
    info.extend(w.rules.iter().cloned());
    let players = Table {
        fields: vec!["player_".into(), "score_".into(), "ping_".into()],
        rows: w
            .players
            .iter()
            .map(|(name, score, _)| {
                vec![
                    Some(name.clone()),
                    Some(score.to_string()),
                    Some("50".into()),
                ]
            })
            .collect(),
    };
    let teams = Table {
        fields: vec!["team_t".into(), "score_t".into()],
        rows: vec![
            vec![Some("MEC".into()), Some("0".into())],
            vec![Some("USMC".into()), Some("0".into())],
        ],
    };
    Reply {
        info,
        players,
        teams,
    }
}

/// Serves GameSpy 3 on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Gs3Config) -> io::Result<SimServer> {
    let mut server = Server {
        config,
        challenges: Challenges::new(0x2BAD_C0DE),
    };
    datagrams::spawn(move |req: &[u8], from: SocketAddr, _own| {
        server.answer(req, from, &world.snapshot())
    })
    .await
}

/// A Battlefield 2-style server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Sim Battlefield 2".into(),
        map: "Strike At Karkand".into(),
        game: "battlefield2".into(),
        version: "1.5.3153-802.0".into(),
        max: 64,
        players: vec![("alice".into(), 12, 0.0), ("bob".into(), 3, 0.0)],
        rules: vec![("bf2_ranked".into(), "1".into())],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Gs3Config::default());
    churn::demo(world, state, serve, Duration::from_secs(6), 0, |t| {
        format!("soldier{t}")
    })
    .await
}

/// Every misbehaviour of this simulator, with what the exporter must publish for it. The
/// world keeps the fleet's name and gets three players of 16 slots, in parts of 120 bytes
/// (so a reply is several parts).
pub fn hostile() -> Vec<Hostile> {
    use Misbehaviour as M;
    fn on(misbehaviour: Misbehaviour) -> super::hostile::Start {
        start(move |world: World| {
            hostile_world(&world);
            spawn(
                world,
                Gs3Config {
                    part_len: 120,
                    misbehaviour,
                },
            )
        })
    }
    let up = |name, m| Hostile::up(name, 3, 16, None, on(m));
    vec![
        up("ok", M::None),
        up("no-handshake", M::NoHandshake),
        up("challenge-zero", M::ChallengeZero),
        up("duplicated", M::Duplicated),
        up("reordered", M::Reordered),
        Hostile::up("lying-counts", 1000, 1, None, on(M::LyingCounts)),
        Hostile::down("silence", "timeout", on(M::Silence)),
        Hostile::down("truncated", "malformed", on(M::Truncated)),
        Hostile::down("missing-part", "incomplete", on(M::MissingPart)),
        Hostile::down("oversized", "too_large", on(M::Oversized)),
        Hostile::down("garbage", "malformed", on(M::Garbage)),
        Hostile::down("endless-challenges", "challenge", on(M::EndlessChallenges)),
    ]
}

struct Server {
    config: Gs3Config,
    challenges: Challenges,
}

/// The challenges a GameSpy 3 server has handed out, one per client address (JC2-MP's
/// server keeps them the same way).
pub struct Challenges {
    issued: HashMap<SocketAddr, i32>,
    next: i32,
}

impl Challenges {
    /// Starting from `seed`, so two simulators hand out different challenges.
    pub fn new(seed: i32) -> Challenges {
        Challenges {
            issued: HashMap::new(),
            next: seed,
        }
    }

    /// A fresh challenge for `from`, replacing the one it had.
    pub fn issue(&mut self, from: SocketAddr) -> i32 {
        // A long-running demo meets few clients; forget them all rather than grow.
        if self.issued.len() > 1024 {
            self.issued.clear();
        }
        self.next = self.next.wrapping_mul(1_103_515_245).wrapping_add(12_345) | 1;
        let c = self.next;
        self.issued.insert(from, c);
        c
    }

    /// The challenge `from` was last handed, if any.
    pub fn issued(&self, from: SocketAddr) -> Option<i32> {
        self.issued.get(&from).copied()
    }
}

/// The world of the hostile fleet's GameSpy 3 servers: three players of 16 slots.
pub fn hostile_world(world: &World) {
    world.update(|w| {
        w.max = 16;
        w.players = (0..3).map(|i| (format!("p{i}"), i, 0.0)).collect();
    });
}

impl Server {
    fn answer(&mut self, req: &[u8], from: SocketAddr, w: &WorldState) -> Vec<Vec<u8>> {
        use Misbehaviour as M;
        let misbehaviour = self.config.misbehaviour;
        if misbehaviour == M::Silence {
            return Vec::new();
        }
        let no_challenge = matches!(misbehaviour, M::NoHandshake | M::ChallengeZero);
        let mut out = Vec::new();
        match decode_request(req) {
            Ok(Request::Handshake { session }) => {
                if misbehaviour == M::NoHandshake {
                    return Vec::new();
                }
                let c = if no_challenge {
                    0
                } else {
                    self.challenges.issue(from)
                };
                encode_handshake_reply(session, c, &mut out);
                vec![out]
            }
            Ok(Request::Query {
                session, challenge, ..
            }) => {
                if misbehaviour == M::EndlessChallenges {
                    let c = self.challenges.issue(from);
                    encode_handshake_reply(session, c, &mut out);
                    return vec![out];
                }
                // Real servers stay silent on a missing or stale challenge.
                let expected = (!no_challenge).then(|| self.challenges.issued(from));
                match expected {
                    Some(Some(c)) if challenge == Some(c) => {}
                    Some(_) => return Vec::new(),
                    None if challenge.is_some_and(|c| c != 0) => return Vec::new(),
                    None => {}
                }
                self.reply(session, w)
            }
            Err(_) => Vec::new(),
        }
    }

    fn reply(&self, session: i32, w: &WorldState) -> Vec<Vec<u8>> {
        use Misbehaviour as M;
        let mut reply = reply_of(w);
        if self.config.misbehaviour == M::LyingCounts {
            for (k, v) in &mut reply.info {
                match k.as_str() {
                    "numplayers" => *v = "1000".into(),
                    "maxplayers" => *v = "1".into(),
                    _ => {}
                }
            }
        }
        let mut parts = Vec::new();
        encode_reply(session, &reply, self.config.part_len, &mut parts);
        match self.config.misbehaviour {
            M::Truncated => parts.iter_mut().for_each(|p| p.truncate(p.len() / 2)),
            M::Duplicated => parts = parts.into_iter().flat_map(|p| [p.clone(), p]).collect(),
            M::Reordered => parts.reverse(),
            M::MissingPart if parts.len() > 1 => {
                parts.remove(1);
            }
            M::Oversized => {
                for p in &mut parts {
                    // The index byte, its last flag kept.
                    p[14] = (p[14] & 0x80) | 100;
                }
            }
            M::Garbage => {
                for p in &mut parts {
                    // Never 0: no string ever ends, so decoding fails the same way each time.
                    let mut x = 0x9Eu8;
                    for b in &mut p[gs3::HEADER_LEN..] {
                        x = x.wrapping_mul(31).wrapping_add(7);
                        *b = x | 1;
                    }
                }
            }
            _ => {}
        }
        parts
    }
}
