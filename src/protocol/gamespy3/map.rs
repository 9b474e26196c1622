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

/// The first value of each key a status reads, found in one pass over the key/values (a
/// search per key walked them nine times a poll).
#[derive(Default)]
struct Keys<'a> {
    numplayers: Option<&'a [u8]>,
    maxplayers: Option<&'a [u8]>,
    hostname: Option<&'a [u8]>,
    /// Unreal Tournament 3's map (its `mapname` is not the map).
    ut3_map: Option<&'a [u8]>,
    mapname: Option<&'a [u8]>,
    map: Option<&'a [u8]>,
    gamename: Option<&'a [u8]>,
    game_id: Option<&'a [u8]>,
    gamever: Option<&'a [u8]>,
    password: Option<&'a [u8]>,
}

impl<'a> Keys<'a> {
    fn of(reply: &View<'a>) -> Keys<'a> {
        let mut keys = Keys::default();
        for &(k, v) in &reply.info {
            let slot = match k {
                b"numplayers" => &mut keys.numplayers,
                b"maxplayers" => &mut keys.maxplayers,
                b"hostname" => &mut keys.hostname,
                b"p1073741825" => &mut keys.ut3_map,
                b"mapname" => &mut keys.mapname,
                b"map" => &mut keys.map,
                b"gamename" => &mut keys.gamename,
                b"game_id" => &mut keys.game_id,
                b"gamever" => &mut keys.gamever,
                b"password" => &mut keys.password,
                _ => continue,
            };
            // The first occurrence wins, as `View::get` reads it.
            slot.get_or_insert(v);
        }
        keys
    }
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
    let keys = Keys::of(reply);
    // The first of `found` the reply has, unless empty.
    let get = |found: &[Option<&[u8]>]| {
        found
            .iter()
            .find_map(|v| *v)
            .filter(|v| !v.is_empty())
            .map(|v| text.decode(v))
    };
    let num = |v: &[u8]| number(&text.decode_cow(v));
    let count = |v: Option<&[u8]>| {
        v.and_then(num)
            .map(|n| u32::try_from(n.max(0)).unwrap_or(u32::MAX))
    };
    let rows = &reply.players;
    let listed = rows.rows();
    let mut status = Status {
        online: count(keys.numplayers).unwrap_or(u32::try_from(listed).unwrap_or(u32::MAX)),
        max: count(keys.maxplayers).unwrap_or(0),
        name: get(&[keys.hostname]).unwrap_or_default(),
        map: get(&[keys.ut3_map, keys.mapname, keys.map]),
        game: get(&[keys.gamename, keys.game_id]),
        version: get(&[keys.gamever]),
        password: keys.password.and_then(num).map(|n| n != 0),
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
        if let Some(t) = get(&[reply.get("gametype")]) {
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
