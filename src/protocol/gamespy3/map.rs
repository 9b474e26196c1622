//! From a decoded reply to the shared [`Status`]: pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map};

use super::body::{Reply, View};
use super::Flavor;
use crate::status::{Player, Status};

/// What the caller asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Protocol-specific extras (daemon polls leave them out).
    pub detail: bool,
    pub players: bool,
    /// The key/values, as `rules`.
    pub rules: bool,
}

fn number(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// Maps a reply onto [`Status`]; strings stay as the server sent them (GameSpy 3 games use
/// no colour codes). See [`status_of`].
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    status_of(&reply.view(), want, latency)
}

/// Maps a reply, as a [`View`] of its datagrams, onto [`Status`]: only the strings the status
/// keeps are decoded (GameSpy 3's lossy text), so a poll that wants no players or rules
/// makes four strings, not one per key and cell.
///
/// - name: `hostname`; map: `p1073741825` (Unreal Tournament 3, whose `mapname` is not the
///   map), else `mapname`, else `map` (Battlefield 2 for consoles);
/// - game: `gamename`, else `game_id`; version: `gamever`;
/// - online: `numplayers`, else the player rows; max: `maxplayers`;
/// - password: `password` (0 or 1);
/// - players: the `player_` column with `score_` and `ping_`.
///
/// `latency` is the caller's round trip of the request.
pub fn status_of(reply: &View<'_>, want: Want, latency: Duration) -> Status {
    let text = Flavor::GAMESPY3.text;
    let get = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| reply.get(k))
            .filter(|v| !v.is_empty())
            .map(|v| text.decode(v))
    };
    let num = |v: &[u8]| number(&text.decode_cow(v));
    let count = |key: &str| {
        reply
            .get(key)
            .and_then(num)
            .map(|n| u32::try_from(n.max(0)).unwrap_or(u32::MAX))
    };
    let rows = &reply.players;
    let listed = rows.rows();
    let mut status = Status {
        online: count("numplayers").unwrap_or(u32::try_from(listed).unwrap_or(u32::MAX)),
        max: count("maxplayers").unwrap_or(0),
        name: get(&["hostname"]).unwrap_or_default(),
        map: get(&["p1073741825", "mapname", "map"]),
        game: get(&["gamename", "game_id"]),
        version: get(&["gamever"]),
        password: reply.get("password").and_then(num).map(|n| n != 0),
        latency,
        ..Status::default()
    };
    if want.players {
        status.players = Some(
            (0..listed)
                .map(|i| Player {
                    name: rows
                        .get(i, "player_")
                        .map(|v| text.decode(v))
                        .unwrap_or_default(),
                    score: rows.get(i, "score_").and_then(num),
                    ping: rows
                        .get(i, "ping_")
                        .and_then(num)
                        .and_then(|p| u32::try_from(p).ok()),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want.rules {
        status.rules = Some(
            reply
                .info
                .iter()
                .map(|(k, v)| (text.decode(k), text.decode(v)))
                .collect(),
        );
    }
    if want.detail {
        let mut extras = Map::new();
        if let Some(t) = get(&["gametype"]) {
            extras.insert("gametype".into(), json!(t));
        }
        if let Some(p) = reply.get("hostport").and_then(num) {
            extras.insert("hostport".into(), json!(p));
        }
        let teams: Vec<_> = (0..reply.teams.rows())
            .filter_map(|i| reply.teams.get(i, "team_t"))
            .map(|t| text.decode(t))
            .collect();
        if !teams.is_empty() {
            extras.insert("teams".into(), json!(teams));
        }
        status.extras = extras;
    }
    status
}
