//! Simulated NetQuake server: answers CCREQ_SERVER_INFO, CCREQ_PLAYER_INFO and
//! CCREQ_RULE_INFO in the bytes Debian's quakespasm 0.95 sends (docs/protocols/netquake.md),
//! staying silent where it is (a player index past the active clients, another game name),
//! with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::netquake::{self, PlayerInfo, Reply, Request, Rule, ServerInfo};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Netquake,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

/// The rules QuakeSpasm sends (its server-info cvars, in its order), when the world has none.
const DEFAULT_RULES: [(&str, &str); 7] = [
    ("fraglimit", "0"),
    ("noexit", "0"),
    ("sv_friction", "4"),
    ("sv_gravity", "800"),
    ("sv_maxspeed", "320"),
    ("teamplay", "0"),
    ("timelimit", "0"),
];

/// Hostile behaviour, for the robustness suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Answers nothing.
    Silence,
    /// The server info cut after its strings: the counts are missing (the length field
    /// agrees with the cut datagram).
    Short,
    /// The length field says 1000 bytes; the datagram is the real reply's size.
    LyingLength,
    /// The server name never ends: no NUL up to the end of the datagram.
    NeverEnding,
    /// A 60 KB server name: past the reply cap.
    Oversized,
    /// Answers with a game-data header (not NETFLAG_CTL): never an answer to a query.
    NotControl,
    /// Every player info names another index than the one asked.
    WrongIndex,
    /// The rule chain never ends: after any name comes a new one.
    EndlessRules,
}

#[derive(Debug, Clone, Default)]
pub struct NetQuakeConfig {
    pub misbehaviour: Misbehaviour,
}

/// Everyone connected: players, then bots (NetQuake lists bots as clients too), at most 255.
fn everyone(w: &WorldState) -> Vec<(String, i32, f32)> {
    w.players
        .iter()
        .cloned()
        .chain((0..w.bots).map(|b| (format!("bot{b}"), 0, 0.0)))
        .take(255)
        .collect()
}

/// The server info reply for the world.
pub fn server_info(w: &WorldState) -> ServerInfo {
    ServerInfo {
        address: "127.0.0.1:26000".into(),
        name: w.name.clone(),
        map: w.map.clone(),
        players: everyone(w).len() as u8,
        max: u8::try_from(w.max).unwrap_or(u8::MAX),
        version: netquake::NET_VERSION,
    }
}

fn rules(w: &WorldState) -> Vec<(String, String)> {
    if w.rules.is_empty() {
        DEFAULT_RULES
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    } else {
        w.rules.clone()
    }
}

/// The rule after `previous` ("" for the first); `None` past the last or for an unknown name
/// (QuakeSpasm then answers the empty reply too).
fn rule_after(w: &WorldState, previous: &[u8], endless: bool) -> Option<Rule> {
    let all = rules(w);
    let (name, value) = if endless {
        (
            format!("{}x", String::from_utf8_lossy(previous)),
            "1".into(),
        )
    } else if previous.is_empty() {
        all.first()?.clone()
    } else {
        let at = all.iter().position(|(n, _)| n.as_bytes() == previous)?;
        all.get(at + 1)?.clone()
    };
    Some(Rule {
        raw_name: name.clone().into_bytes(),
        name,
        value,
    })
}

fn answer(req: &[u8], w: &WorldState, config: &NetQuakeConfig) -> Option<Vec<u8>> {
    use Misbehaviour as M;
    let m = config.misbehaviour;
    let request = netquake::parse_request(req)?;
    if m == M::Silence {
        return None;
    }
    let reply = match request {
        Request::ServerInfo => {
            let mut info = server_info(w);
            match m {
                M::Oversized => info.name = "x".repeat(60_000),
                M::NeverEnding => info.name = "y".repeat(200),
                _ => {}
            }
            Reply::Server(info)
        }
        Request::PlayerInfo(i) => {
            let all = everyone(w);
            let (name, frags, seconds) = all.get(usize::from(i))?.clone();
            let index = if m == M::WrongIndex {
                i.wrapping_add(1)
            } else {
                i
            };
            Reply::Player(PlayerInfo {
                index,
                name,
                colours: u32::from(i % 14) << 4 | u32::from((i + 4) % 14),
                frags,
                seconds: seconds as i32,
                address: format!("127.0.0.1:{}", 40000 + u16::from(i)),
            })
        }
        Request::RuleInfo(previous) => Reply::Rule(rule_after(w, &previous, m == M::EndlessRules)),
    };
    let mut out = Vec::new();
    netquake::encode(&reply, &mut out);
    let set_len = |out: &mut Vec<u8>, len: usize| {
        let len = u16::try_from(len).unwrap_or(u16::MAX);
        out[2..4].copy_from_slice(&len.to_be_bytes());
    };
    match (m, &reply) {
        (M::Oversized, _) => set_len(&mut out, 0xffff),
        (M::Short, Reply::Server(_)) => {
            out.truncate(out.len() - 3);
            let len = out.len();
            set_len(&mut out, len);
        }
        (M::LyingLength, _) => set_len(&mut out, 1000),
        (M::NeverEnding, Reply::Server(info)) => {
            // Cut right after the name's bytes: its NUL and everything after are gone.
            let at = 5 + info.address.len() + 1 + info.name.len();
            out.truncate(at);
            set_len(&mut out, at);
        }
        (M::NotControl, _) => out[0..2].copy_from_slice(&[0x00, 0x09]),
        _ => {}
    }
    Some(out)
}

/// Serves the query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: NetQuakeConfig) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo NetQuake".into(),
        map: "e1m1".into(),
        game: "Quake".into(),
        version: "0.95.1".into(),
        max: 16,
        bots: 0,
        players: vec![("Ranger".into(), 12, 300.0), ("Shambler".into(), 3, 60.0)],
        rules: Vec::new(),
        password: false,
    };
    let serve = |w| spawn(w, NetQuakeConfig::default());
    churn::demo(world, state, serve, Duration::from_secs(9), 0, |t| {
        format!("grunt{t}")
    })
    .await
}

/// The hostile fleet's NetQuake servers: bots are counted among players (4 online).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, NetQuakeConfig { misbehaviour: m }));
    use Misbehaviour as M;
    vec![
        Hostile::up("ok", 4, 24, None, with(M::None)),
        Hostile::down("silence", "timeout", with(M::Silence)),
        Hostile::down("short", "malformed", with(M::Short)),
        Hostile::down("lying-length", "malformed", with(M::LyingLength)),
        Hostile::down("never-ending", "malformed", with(M::NeverEnding)),
        Hostile::down("oversized", "too_large", with(M::Oversized)),
        Hostile::down("not-control", "mismatch", with(M::NotControl)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(request: &Request, m: Misbehaviour) -> Option<Vec<u8>> {
        let mut req = Vec::new();
        netquake::encode_request(request, &mut req);
        answer(
            &req,
            &WorldState::default(),
            &NetQuakeConfig { misbehaviour: m },
        )
    }

    /// The oversized reply is over the cap; the default world's reply decodes back.
    #[test]
    fn oversized_is_over_the_cap_and_ok_decodes() {
        let out = ask(&Request::ServerInfo, Misbehaviour::Oversized).unwrap();
        assert!(out.len() > netquake::MAX_REPLY, "{}", out.len());
        let ok = ask(&Request::ServerInfo, Misbehaviour::None).unwrap();
        let Reply::Server(info) = netquake::decode(&ok).unwrap() else {
            panic!("not server info")
        };
        assert_eq!(info.name, "Simulated Server");
    }

    /// Like QuakeSpasm: no reply past the last client; the empty rule reply past the last rule.
    #[test]
    fn silent_past_the_clients_and_empty_past_the_rules() {
        assert_eq!(ask(&Request::PlayerInfo(200), Misbehaviour::None), None);
        let last = ask(
            &Request::RuleInfo(b"timelimit".to_vec()),
            Misbehaviour::None,
        )
        .unwrap();
        assert_eq!(last, [0x80, 0x00, 0x00, 0x05, 0x85]);
    }
}
