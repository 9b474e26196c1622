//! Simulated GameSpy 1 server: answers `\status\`, `\basic\`, `\info\`, `\rules\` and
//! `\players\` as Unreal Tournament does (numbered parts, `\final\` on the last), or as
//! netPanzer does (one bare datagram), with knobs for hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::gamespy1::{self, decode_request, encode_reply, Query, Style};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Gamespy1,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["fraglimit"],
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
    /// The last datagram is cut in half (its `\final\` lost).
    Truncated,
    /// Every part is sent twice.
    Duplicated,
    /// The parts go out last first.
    Reordered,
    /// The second part is never sent.
    MissingPart,
    /// Claims `numplayers` 4294967295 and `maxplayers` -1.
    LyingCounts,
    /// More parts than any client accepts (each pair its own part, padded past the cap).
    Oversized,
    /// Answers bytes that are no GameSpy reply: a `queryid` with part 0.
    Garbage,
}

#[derive(Debug, Clone)]
pub struct Gamespy1Config {
    /// How the datagrams are laid out.
    pub style: Style,
    /// Bytes of pairs per datagram before the reply is split.
    pub part_budget: usize,
    pub misbehaviour: Misbehaviour,
}

impl Default for Gamespy1Config {
    fn default() -> Self {
        Gamespy1Config {
            style: Style::Unreal,
            // Small, so that a handful of players already makes several parts.
            part_budget: 200,
            misbehaviour: Misbehaviour::None,
        }
    }
}

/// Serves GameSpy 1 on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Gamespy1Config) -> io::Result<SimServer> {
    let mut query_id = 0u32;
    datagrams::spawn_world(world, move |req, w| {
        query_id = query_id.wrapping_add(1);
        answer(req, w, &config, query_id)
    })
    .await
}

/// An Unreal Tournament server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Facing Worlds Forever".into(),
        map: "CTF-Face".into(),
        game: "CTFGame".into(),
        version: "451".into(),
        max: 16,
        players: vec![("Xan".into(), 12, 0.0), ("Malcolm".into(), 7, 0.0)],
        rules: vec![("fraglimit".into(), "30".into())],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Gamespy1Config::default());
    churn::demo(world, state, serve, Duration::from_secs(7), 3, |t| {
        format!("Bot{t}")
    })
    .await
}

/// Every misbehaviour, as the hostile fleet runs it, with what the exporter must publish: the
/// world as the fleet gives it (no players, 32 slots), split into several parts.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour, style: Style| {
        let config = Gamespy1Config {
            style,
            // Small parts: even the fleet's small world makes several, so one can go missing.
            part_budget: 60,
            misbehaviour: m,
        };
        start(move |w| spawn(w, config.clone()))
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("healthy", 4, 24, None, with(M::None, Style::Unreal)),
        Hostile::up("bare", 4, 24, None, with(M::None, Style::Bare)),
        Hostile::up(
            "duplicated",
            4,
            24,
            None,
            with(M::Duplicated, Style::Unreal),
        ),
        Hostile::up(
            "reordered",
            4,
            24,
            None,
            with(M::Reordered, Style::QueryIdFirst),
        ),
        // A count no server reaches (4,294,967,295 online) is never published: malformed
        // (status::MAX_PLAUSIBLE_COUNT).
        Hostile::down(
            "lying-counts",
            "malformed",
            with(M::LyingCounts, Style::Unreal),
        ),
        Hostile::down("silence", "timeout", with(M::Silence, Style::Unreal)),
        Hostile::down("truncated", "incomplete", with(M::Truncated, Style::Unreal)),
        Hostile::down(
            "missing-part",
            "incomplete",
            with(M::MissingPart, Style::Unreal),
        ),
        Hostile::down("oversized", "too_large", with(M::Oversized, Style::Unreal)),
        Hostile::down("garbage", "malformed", with(M::Garbage, Style::Unreal)),
    ]
}

/// The pairs answering `query`, in the order Unreal sends them.
pub fn pairs(query: Query, w: &WorldState, lying: bool) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    let mut put = |k: &str, v: String| out.push((k.to_string(), v));
    let all = query == Query::Status;
    if all || query == Query::Basic {
        put("gamename", "ut".into());
        put("gamever", w.version.clone());
        put("location", "0".into());
    }
    if all || query == Query::Info {
        let online = w.players.len() as u64 + u64::from(w.bots);
        put("hostname", w.name.clone());
        put("hostport", "7777".into());
        put("mapname", w.map.clone());
        put("gametype", w.game.clone());
        put(
            "numplayers",
            if lying {
                u32::MAX.to_string()
            } else {
                online.to_string()
            },
        );
        put(
            "maxplayers",
            if lying {
                "-1".into()
            } else {
                w.max.to_string()
            },
        );
        put("gamemode", "openplaying".into());
    }
    if all || query == Query::Rules {
        for (k, v) in &w.rules {
            put(k, v.clone());
        }
        put("password", if w.password { "True" } else { "False" }.into());
    }
    if all || query == Query::Players {
        let bots = (0..w.bots).map(|i| (format!("Bot {i}"), 0, 0));
        let humans = w.players.iter().map(|(n, s, _)| (n.clone(), *s, 50));
        for (i, (name, score, ping)) in humans.chain(bots).enumerate() {
            put(&format!("player_{i}"), name);
            put(&format!("frags_{i}"), score.to_string());
            put(&format!("ping_{i}"), ping.to_string());
            put(&format!("team_{i}"), (i % 2).to_string());
        }
    }
    out
}

/// The datagrams answering one request.
fn answer(req: &[u8], w: &WorldState, config: &Gamespy1Config, query_id: u32) -> Vec<Vec<u8>> {
    let Ok(queries) = decode_request(req) else {
        return Vec::new();
    };
    let m = config.misbehaviour;
    let mut all = Vec::new();
    for q in queries {
        all.extend(pairs(q, w, m == Misbehaviour::LyingCounts));
    }
    let budget = if m == Misbehaviour::Oversized {
        1
    } else {
        config.part_budget
    };
    if m == Misbehaviour::Oversized {
        for i in all.len()..=gamespy1::MAX_PARTS {
            all.push((format!("pad{i}"), "x".into()));
        }
    }
    let mut parts = encode_reply(&all, query_id, budget, config.style);
    match m {
        Misbehaviour::Silence => return Vec::new(),
        Misbehaviour::Truncated => {
            if let Some(last) = parts.last_mut() {
                last.truncate(last.len() / 2);
            }
        }
        Misbehaviour::Duplicated => {
            parts = parts.iter().flat_map(|p| [p.clone(), p.clone()]).collect()
        }
        Misbehaviour::Reordered => parts.reverse(),
        Misbehaviour::MissingPart => {
            if parts.len() > 1 {
                parts.remove(1);
            } else {
                // A one-part reply has nothing to lose but its only part.
                parts.clear();
            }
        }
        Misbehaviour::Garbage => {
            return vec![format!("\\queryid\\{query_id}.0\\final\\").into_bytes()]
        }
        Misbehaviour::None | Misbehaviour::LyingCounts | Misbehaviour::Oversized => {}
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::gamespy1::{decode_packet, decode_reply, to_status, Want};

    /// The friendly answer decodes back to the world: name, map, counts and players.
    #[test]
    fn answer_decodes_to_the_world() {
        let w = WorldState {
            players: vec![("alice".into(), 3, 0.0)],
            bots: 1,
            ..WorldState::default()
        };
        let config = Gamespy1Config::default();
        let parts = answer(b"\\status\\", &w, &config, 9);
        let mut pairs = Vec::new();
        for p in &parts {
            pairs.extend(decode_packet(p).unwrap().pairs);
        }
        let s = to_status(
            &decode_reply(pairs),
            Want {
                players: true,
                ..Want::default()
            },
            Duration::ZERO,
        );
        assert_eq!(
            (s.name.as_str(), s.online, s.max),
            ("Simulated Server", 2, 32)
        );
        assert_eq!(s.map.as_deref(), Some("de_dust2"));
        let players = s.players.unwrap();
        assert_eq!(
            (players[0].name.as_str(), players[0].score),
            ("alice", Some(3))
        );
        assert_eq!(players[1].name, "Bot 0");
        assert!(answer(b"\\nonsense\\", &w, &config, 1).is_empty());
    }
}
