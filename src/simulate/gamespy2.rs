//! Simulated GameSpy 2 server: answers `FE FD 00` requests with the sections asked for, as
//! Battlefield Vietnam lays them out (or America's Army, without count bytes), with knobs for
//! hostile replies.

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{start, Hostile};
use super::{datagrams, SimServer, World, WorldState};
use crate::protocol::gamespy2::{decode_request, encode_reply, Reply, Request, Table};

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Gamespy2,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &["friendlyfire"],
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
    /// The reply is cut in the middle of the player table.
    Truncated,
    /// The reply is sent twice.
    Duplicated,
    /// A reply echoing another request id comes first, then the real one.
    WrongIdFirst,
    /// Only a reply echoing another request id.
    WrongId,
    /// Claims 255 rows in the player table and `numplayers` 4294967295.
    LyingCounts,
    /// More info pairs than any client accepts.
    Oversized,
    /// A reply type byte other than `00`.
    Garbage,
}

#[derive(Debug, Clone, Default)]
pub struct Gamespy2Config {
    /// Leave the tables' count bytes out, as America's Army sometimes does.
    pub omit_counts: bool,
    pub misbehaviour: Misbehaviour,
}

/// Serves GameSpy 2 on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, config: Gamespy2Config) -> io::Result<SimServer> {
    datagrams::spawn_world(world, move |req, w| answer(req, w, &config)).await
}

/// A Battlefield Vietnam server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Operation Flaming Dart".into(),
        map: "Hue 1968".into(),
        game: "conquest".into(),
        version: "v1.21".into(),
        max: 64,
        players: vec![("Charlie".into(), 12, 0.0), ("Hawk".into(), 7, 0.0)],
        rules: vec![("friendlyfire".into(), "1".into())],
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Gamespy2Config::default());
    churn::demo(world, state, serve, Duration::from_secs(7), 2, |t| {
        format!("grunt{t}")
    })
    .await
}

/// Every misbehaviour, as the hostile fleet runs it, with what the exporter must publish for
/// the world the fleet gives it (no players, 32 slots).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour, omit_counts: bool| {
        let config = Gamespy2Config {
            omit_counts,
            misbehaviour: m,
        };
        start(move |w| spawn(w, config.clone()))
    };
    use Misbehaviour as M;
    vec![
        Hostile::up("healthy", 4, 24, None, with(M::None, false)),
        // America's Army: no count bytes before the tables.
        Hostile::up("no-counts", 4, 24, None, with(M::None, true)),
        Hostile::up("duplicated", 4, 24, None, with(M::Duplicated, false)),
        Hostile::up("wrong-id-first", 4, 24, None, with(M::WrongIdFirst, false)),
        // A count no server reaches (4,294,967,295 online) is never published: malformed
        // (status::MAX_PLAUSIBLE_COUNT).
        Hostile::down("lying-counts", "malformed", with(M::LyingCounts, false)),
        Hostile::down("silence", "timeout", with(M::Silence, false)),
        Hostile::down("wrong-id", "mismatch", with(M::WrongId, false)),
        Hostile::down("truncated", "malformed", with(M::Truncated, false)),
        Hostile::down("oversized", "too_large", with(M::Oversized, false)),
        Hostile::down("garbage", "malformed", with(M::Garbage, false)),
    ]
}

/// The reply the world makes to `request`, before any misbehaviour.
pub fn reply(request: &Request, w: &WorldState, omit_counts: bool) -> Reply {
    let online = w.players.len() as u64 + u64::from(w.bots);
    let mut vars: Vec<(String, String)> = [
        ("hostname", w.name.clone()),
        ("gamename", "bfvietnam".into()),
        ("gamever", w.version.clone()),
        ("mapname", w.map.clone()),
        ("gametype", w.game.clone()),
        ("numplayers", online.to_string()),
        ("maxplayers", w.max.to_string()),
        ("password", u8::from(w.password).to_string()),
        ("hostport", "15567".into()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    vars.extend(w.rules.iter().cloned());
    let bots = (0..w.bots).map(|i| (format!("Bot {i}"), 0, 0));
    let humans = w.players.iter().map(|(n, s, _)| (n.clone(), *s, 60));
    let rows: Vec<Vec<String>> = humans
        .chain(bots)
        .enumerate()
        .map(|(i, (name, score, ping))| {
            vec![
                name,
                score.to_string(),
                ping.to_string(),
                (i % 2 + 1).to_string(),
            ]
        })
        .collect();
    let count = |n: usize| (!omit_counts).then(|| u8::try_from(n).unwrap_or(u8::MAX));
    Reply {
        id: request.id,
        vars,
        players: Some(Table {
            declared: count(rows.len()),
            columns: ["player_", "score_", "ping_", "team_"]
                .map(String::from)
                .to_vec(),
            rows,
        }),
        teams: Some(Table {
            declared: count(2),
            columns: ["team_t", "score_t"].map(String::from).to_vec(),
            rows: vec![
                vec!["NVA".into(), "0".into()],
                vec!["USA".into(), "0".into()],
            ],
        }),
    }
}

/// The datagrams answering one request.
fn answer(req: &[u8], w: &WorldState, config: &Gamespy2Config) -> Vec<Vec<u8>> {
    let Ok(request) = decode_request(req) else {
        return Vec::new();
    };
    let m = config.misbehaviour;
    let mut r = reply(&request, w, config.omit_counts);
    match m {
        Misbehaviour::LyingCounts => {
            if let Some(p) = r.players.as_mut() {
                p.declared = Some(255);
            }
            for (k, v) in &mut r.vars {
                if k == "numplayers" {
                    *v = u32::MAX.to_string();
                }
            }
        }
        Misbehaviour::Oversized => {
            for i in 0..=crate::protocol::gamespy2::MAX_VARS {
                r.vars.push((format!("k{i}"), "v".into()));
            }
        }
        _ => {}
    }
    let mut out = Vec::new();
    encode_reply(&r, request.sections, &mut out);
    let mut wrong = out.clone();
    if let Some(b) = wrong.get_mut(1) {
        *b = !*b;
    }
    match m {
        Misbehaviour::Silence => Vec::new(),
        Misbehaviour::Truncated => {
            let cut = out
                .windows(7)
                .position(|w| w == b"player_")
                .map_or(out.len() / 2, |p| p + 20);
            // Inside a string, never just after its NUL: a cut on a pair boundary would read
            // as a whole (shorter) info section.
            let mut cut = cut.min(out.len());
            while cut > 6 && out[cut - 1] == 0 {
                cut -= 1;
            }
            out.truncate(cut);
            vec![out]
        }
        Misbehaviour::Duplicated => vec![out.clone(), out],
        Misbehaviour::WrongIdFirst => vec![wrong, out],
        Misbehaviour::WrongId => vec![wrong],
        Misbehaviour::Garbage => {
            out[0] = 0x01;
            vec![out]
        }
        Misbehaviour::None | Misbehaviour::LyingCounts | Misbehaviour::Oversized => vec![out],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::gamespy2::{decode_reply, encode_request, to_status, Sections, Want};

    /// The friendly answer decodes back to the world, count bytes or not.
    #[test]
    fn answer_decodes_to_the_world() {
        let w = WorldState {
            players: vec![("alice".into(), 3, 0.0)],
            bots: 1,
            ..WorldState::default()
        };
        let request = Request {
            id: *b"\x01\x02\x03\x04",
            sections: Sections::ALL,
        };
        let mut req = Vec::new();
        encode_request(&request, &mut req);
        for omit_counts in [false, true] {
            let config = Gamespy2Config {
                omit_counts,
                ..Gamespy2Config::default()
            };
            let replies = answer(&req, &w, &config);
            let r = decode_reply(&replies[0], request.id, Sections::ALL).unwrap();
            let want = Want {
                players: true,
                ..Want::default()
            };
            let s = to_status(&r, want, Duration::ZERO);
            assert_eq!(
                (s.name.as_str(), s.online, s.max),
                ("Simulated Server", 2, 32)
            );
            let players = s.players.unwrap();
            assert_eq!(
                (players[0].name.as_str(), players[0].score),
                ("alice", Some(3))
            );
            assert_eq!(players[1].name, "Bot 0");
        }
        assert!(answer(b"\\status\\", &w, &Gamespy2Config::default()).is_empty());
    }
}
