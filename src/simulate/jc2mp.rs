//! Simulated Just Cause 2 Multiplayer server: GameSpy 3's handshake and challenge per client
//! address, then the whole reply in one datagram (key/values, the u16 count, name / Steam id /
//! ping records), with knobs for hostile replies.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use super::churn;
use super::gamespy3::{hostile_world, Challenges};
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::gamespy3::{decode_request, encode_handshake_reply, Request, HEADER_LEN};
use crate::protocol::jc2mp::{encode_reply, Record, Reply, PAYLOAD};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Jc2mp,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["gametype"],
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
    /// Ignores the handshake and takes requests without a challenge.
    NoHandshake,
    /// `numplayers` says 1000 on a server of `maxplayers` 1, the u16 count 65535.
    LyingCounts,
    /// The reply is cut in the middle of its last record.
    Truncated,
    /// The key/values never end: no NUL after the last value, nothing after it.
    Unterminated,
    /// 600 player records (more than the decoder's cap of 512).
    Oversized,
    /// Random-looking bytes under a valid header.
    Garbage,
    /// Every request is answered with a new challenge instead of the reply.
    EndlessChallenges,
}

/// The reply a server of this world sends: JC2-MP's keys and one record per player.
pub fn reply_of(w: &WorldState) -> Reply {
    let kv = |k: &str, v: String| (k.to_string(), v);
    let online = w.players.len();
    let mut info = vec![
        kv("hostname", w.name.clone()),
        kv("gametype", "Freeroam".into()),
        kv("version", w.version.clone()),
        kv("numplayers", online.to_string()),
        kv("maxplayers", w.max.to_string()),
        kv("password", u8::from(w.password).to_string()),
    ];
    info.extend(w.rules.iter().cloned());
    let players = w
        .players
        .iter()
        .enumerate()
        .map(|(i, (name, ..))| Record {
            name: name.clone(),
            steamid: format!("STEAM_0:1:{}", 1000 + i),
            ping: 40 + i as u16,
        })
        .collect();
    Reply {
        info,
        count: u16::try_from(online).unwrap_or(u16::MAX),
        players,
    }
}

/// Serves JC2-MP's query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    let mut server = Server {
        misbehaviour,
        challenges: Challenges::new(0x1CE_C0DE),
    };
    datagrams::spawn(move |req: &[u8], from: SocketAddr, _own| {
        server.answer(req, from, &world.snapshot())
    })
    .await
}

/// A freeroam server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Sim JC2-MP Freeroam".into(),
        map: "Panau".into(),
        game: "jc2mp".into(),
        version: "0.2.0.3".into(),
        max: 5000,
        players: vec![("Rico".into(), 0, 0.0), ("Kane".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(6), 0, |t| {
        format!("agent{t}")
    })
    .await
}

/// Every misbehaviour of this simulator, with what the exporter must publish for it. The
/// world keeps the fleet's name and gets three players of 16 slots.
pub fn hostile() -> Vec<Hostile> {
    use Misbehaviour as M;
    fn on(misbehaviour: Misbehaviour) -> super::hostile::Start {
        start(move |world: World| {
            hostile_world(&world);
            spawn(world, misbehaviour)
        })
    }
    let up = |name, m| Hostile::up(name, 3, 16, None, on(m));
    vec![
        up("ok", M::None),
        up("no-handshake", M::NoHandshake),
        Hostile::up("lying-counts", 1000, 1, None, on(M::LyingCounts)),
        Hostile::down("silence", "timeout", on(M::Silence)),
        Hostile::down("truncated", "malformed", on(M::Truncated)),
        Hostile::down("unterminated", "malformed", on(M::Unterminated)),
        Hostile::down("oversized", "too_large", on(M::Oversized)),
        Hostile::down("garbage", "malformed", on(M::Garbage)),
        Hostile::down("endless-challenges", "challenge", on(M::EndlessChallenges)),
    ]
}

struct Server {
    misbehaviour: Misbehaviour,
    challenges: Challenges,
}

impl Server {
    fn answer(&mut self, req: &[u8], from: SocketAddr, w: &WorldState) -> Vec<Vec<u8>> {
        use Misbehaviour as M;
        let mut out = Vec::new();
        match (self.misbehaviour, decode_request(req)) {
            (M::Silence, _) | (_, Err(_)) => Vec::new(),
            (M::NoHandshake, Ok(Request::Handshake { .. })) => Vec::new(),
            (_, Ok(Request::Handshake { session })) => {
                let c = self.challenges.issue(from);
                encode_handshake_reply(session, c, &mut out);
                vec![out]
            }
            // Only JC2-MP's payload is answered (GameSpy 3's `FF FF FF 01` is not its query).
            (_, Ok(Request::Query { payload, .. })) if payload != PAYLOAD => Vec::new(),
            (M::EndlessChallenges, Ok(Request::Query { session, .. })) => {
                let c = self.challenges.issue(from);
                encode_handshake_reply(session, c, &mut out);
                vec![out]
            }
            (
                m,
                Ok(Request::Query {
                    session, challenge, ..
                }),
            ) => {
                // Real servers stay silent on a missing or stale challenge.
                let expected = (m != M::NoHandshake).then(|| self.challenges.issued(from));
                match expected {
                    Some(Some(c)) if challenge == Some(c) => {}
                    Some(_) => return Vec::new(),
                    None if challenge.is_some() => return Vec::new(),
                    None => {}
                }
                vec![self.reply(session, w)]
            }
        }
    }

    fn reply(&self, session: i32, w: &WorldState) -> Vec<u8> {
        use Misbehaviour as M;
        let mut reply = reply_of(w);
        match self.misbehaviour {
            M::LyingCounts => {
                for (k, v) in &mut reply.info {
                    match k.as_str() {
                        "numplayers" => *v = "1000".into(),
                        "maxplayers" => *v = "1".into(),
                        _ => {}
                    }
                }
                reply.count = u16::MAX;
            }
            M::Oversized => {
                reply.players = (0..600)
                    .map(|i| Record {
                        name: format!("p{i}"),
                        steamid: String::new(),
                        ping: 1,
                    })
                    .collect();
            }
            _ => {}
        }
        let mut out = Vec::new();
        encode_reply(session, &reply, &mut out);
        match self.misbehaviour {
            // A ping's first byte kept, its second gone.
            M::Truncated => {
                out.pop();
            }
            M::Unterminated => {
                // The header and the key/values up to the last value's NUL, which is dropped.
                out.truncate(HEADER_LEN);
                for (i, (k, v)) in reply.info.iter().enumerate() {
                    out.extend_from_slice(k.as_bytes());
                    out.push(0);
                    out.extend_from_slice(v.as_bytes());
                    if i + 1 < reply.info.len() {
                        out.push(0);
                    }
                }
            }
            M::Garbage => {
                // Never 0: no string ever ends, so decoding fails the same way each time.
                let mut x = 0x9Eu8;
                for b in &mut out[HEADER_LEN..] {
                    x = x.wrapping_mul(31).wrapping_add(7);
                    *b = x | 1;
                }
            }
            _ => {}
        }
        out
    }
}
