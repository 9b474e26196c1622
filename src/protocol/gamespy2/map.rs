//! From a decoded reply to the shared [`Status`]: pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::reply::Reply;
use crate::status::{Player, Status};

/// What the caller asked for, as the other protocols' dialogues take it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Protocol-specific extras (daemon polls leave them out: they cost allocations).
    pub detail: bool,
    pub players: bool,
    /// The server info pairs, as `rules`.
    pub rules: bool,
}

/// Removes Unreal Engine 2 colour codes (America's Army): `ESC` and the three colour bytes
/// after it; other control characters go too.
pub fn strip_colors(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for _ in 0..3 {
                chars.next();
            }
        } else if !c.is_control() {
            out.push(c);
        }
    }
    out
}

/// Maps a reply onto [`Status`]. Strings lose Unreal colour codes (America's Army uses them;
/// other games never send `ESC`).
///
/// - name: `hostname`; map: `mapname`, else `map` (Battlefield 2: Modern Combat);
/// - online: `numplayers`, else the player rows;
/// - max: `maxplayers`;
/// - game: `gametype`, else `gamemode`; version: `gamever`;
/// - password: `password` (`1`/`0`, `True`/`False`);
/// - players: `player_` (name), `score_`, else `kills_`, `ping_`.
///
/// `latency` is the caller's request-to-reply round trip.
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let get = |keys: &[&str]| {
        reply
            .first(keys)
            .map(strip_colors)
            .filter(|s| !s.is_empty())
    };
    let int = |key: &str| reply.get(key).and_then(|v| v.trim().parse::<i64>().ok());
    let rows = reply.players.as_ref().map_or(0, |t| t.rows.len());
    let mut out = Status {
        online: int("numplayers").map_or(u32::try_from(rows).unwrap_or(u32::MAX), clamp_u32),
        max: int("maxplayers").map_or(0, clamp_u32),
        name: get(&["hostname"]).unwrap_or_default(),
        map: get(&["mapname", "map"]),
        game: get(&["gametype", "gamemode"]),
        version: get(&["gamever"]),
        password: reply.get("password").and_then(flag),
        latency,
        ..Status::default()
    };
    if want.players {
        out.players = reply.players.as_ref().map(|t| {
            let names: Vec<&str> = t
                .column(&["player_", "playername_"])
                .map_or_else(Vec::new, Iterator::collect);
            let numbers = |names: &[&str]| -> Vec<Option<i64>> {
                t.column(names)
                    .map_or_else(Vec::new, |c| c.map(|v| v.trim().parse().ok()).collect())
            };
            let scores = numbers(&["score_", "kills_"]);
            let pings = numbers(&["ping_"]);
            names
                .iter()
                .enumerate()
                .map(|(i, n)| Player {
                    name: strip_colors(n),
                    score: scores.get(i).copied().flatten(),
                    ping: pings
                        .get(i)
                        .copied()
                        .flatten()
                        .and_then(|p| u32::try_from(p).ok()),
                    ..Player::default()
                })
                .collect()
        });
    }
    if want.rules {
        out.rules = Some(
            reply
                .vars
                .iter()
                .map(|(k, v)| (strip_colors(k), strip_colors(v)))
                .collect(),
        );
    }
    if want.detail {
        out.extras = extras(reply);
    }
    out
}

fn extras(reply: &Reply) -> Map<String, Value> {
    let mut x = Map::new();
    if let Some(g) = reply.first(&["gamename", "game_id"]) {
        x.insert("gamename".into(), json!(strip_colors(g)));
    }
    if let Some(p) = &reply.players {
        match p.declared {
            None => {
                x.insert("player_count_byte".into(), json!("missing"));
            }
            Some(n) if usize::from(n) != p.rows.len() => {
                x.insert("player_count_byte".into(), json!(n));
            }
            Some(_) => {}
        }
    }
    if let Some(t) = &reply.teams {
        if let Some(names) = t.column(&["team_t"]) {
            x.insert(
                "teams".into(),
                json!(names.map(strip_colors).collect::<Vec<_>>()),
            );
        }
    }
    x
}

fn flag(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        other => other.parse::<i64>().ok().map(|n| n != 0),
    }
}

fn clamp_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::reply::Table;
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    /// America's Army: colour codes gone from the name, the map and player names; the count
    /// byte's absence noted; the team names listed.
    #[test]
    fn americas_army() {
        let reply = Reply {
            id: [0; 4],
            vars: vec![
                (
                    "hostname".into(),
                    "\u{1b}\u{ff}\u{0}\u{0}Red\u{1b}\u{0}\u{ff}\u{0} Base".into(),
                ),
                ("mapname".into(), "Bridge".into()),
                ("gamename".into(), "armygame".into()),
                ("gamever".into(), "2.8.5".into()),
                ("numplayers".into(), "2".into()),
                ("maxplayers".into(), "26".into()),
                ("password".into(), "True".into()),
            ],
            players: Some(Table {
                declared: None,
                columns: s(&["player_", "score_", "ping_"]),
                rows: vec![s(&["\u{1b}abcSgt", "10", "33"]), s(&["Pvt", "x", "-1"])],
            }),
            teams: Some(Table {
                declared: Some(2),
                columns: s(&["team_t"]),
                rows: vec![s(&["Assault"]), s(&["Defense"])],
            }),
        };
        let want = Want {
            detail: true,
            players: true,
            rules: true,
        };
        let st = to_status(&reply, want, Duration::from_millis(9));
        assert_eq!(st.name, "Red Base");
        assert_eq!((st.online, st.max), (2, 26));
        assert_eq!(st.map.as_deref(), Some("Bridge"));
        assert_eq!(st.version.as_deref(), Some("2.8.5"));
        assert_eq!(st.password, Some(true));
        assert_eq!(
            st.players,
            Some(vec![
                Player {
                    name: "Sgt".into(),
                    score: Some(10),
                    ping: Some(33),
                    ..Player::default()
                },
                Player {
                    name: "Pvt".into(),
                    ..Player::default()
                },
            ])
        );
        assert_eq!(st.extras.get("player_count_byte"), Some(&json!("missing")));
        assert_eq!(st.extras.get("teams"), Some(&json!(["Assault", "Defense"])));
        assert_eq!(st.extras.get("gamename"), Some(&json!("armygame")));
    }

    /// Without `numplayers` the rows count; nonsense counts clamp.
    #[test]
    fn counts() {
        let reply = Reply {
            vars: vec![("maxplayers".into(), "-5".into())],
            players: Some(Table {
                declared: Some(9),
                columns: s(&["player_"]),
                rows: vec![s(&["a"])],
            }),
            ..Reply::default()
        };
        let st = to_status(
            &reply,
            Want {
                detail: true,
                ..Want::default()
            },
            Duration::ZERO,
        );
        assert_eq!((st.online, st.max, st.players), (1, 0, None));
        assert_eq!(st.extras.get("player_count_byte"), Some(&json!(9)));
        assert_eq!(strip_colors("a\u{1b}b"), "a");
    }
}
