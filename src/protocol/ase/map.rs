//! From a decoded reply to the shared [`Status`]: pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map};

use super::Reply;
use crate::status::{Player, Status};

/// What the caller asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Protocol-specific extras (daemon polls leave them out).
    pub detail: bool,
    pub players: bool,
    /// The key/values after the fixed fields, as `rules`.
    pub rules: bool,
}

/// Removes Multi Theft Auto's colour codes, `#` and six hex digits (`#FF0000red`).
pub fn strip_mta_colors(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'#' && b.len() >= i + 7 && b[i + 1..i + 7].iter().all(u8::is_ascii_hexdigit) {
            i += 7;
            continue;
        }
        // Hex digits and '#' are ASCII, so i is on a character boundary here.
        let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
        out.push(ch);
        i += ch.len_utf8();
    }
    out
}

fn count(s: &str) -> Option<u32> {
    s.trim()
        .parse::<i64>()
        .ok()
        .map(|n| u32::try_from(n.max(0)).unwrap_or(u32::MAX))
}

/// The map an ASE server without one reports (Multi Theft Auto's resource-less default).
const NO_MAP: &str = "None";

/// Maps a reply onto [`Status`]: name, map, counts, version and password from the fixed
/// fields; game the short game name (`mta`), the game type going to extras. Multi Theft Auto
/// names lose their `#RRGGBB` colour codes; other games' strings stay as sent. An empty map,
/// and the word `None` (what an MTA server without a map sends: no map is called that), is
/// no map: the status page and `gameserver_info` show nothing rather than the text "None".
///
/// `latency` is the caller's round trip of the request.
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let mta = reply.game.eq_ignore_ascii_case("mta");
    let clean = |s: &str| {
        if mta {
            strip_mta_colors(s)
        } else {
            s.to_owned()
        }
    };
    let some = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let mut status = Status {
        online: count(&reply.players_online).unwrap_or(reply.players.len() as u32),
        max: count(&reply.players_max).unwrap_or(0),
        name: clean(&reply.name),
        map: some(&reply.map).filter(|m| m != NO_MAP),
        game: some(&reply.game),
        version: some(&reply.version),
        password: match reply.password.trim() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        },
        latency,
        ..Status::default()
    };
    if want.players {
        status.players = Some(
            reply
                .players
                .iter()
                .map(|p| Player {
                    name: clean(p.name.as_deref().unwrap_or_default()),
                    score: p.score.as_deref().and_then(|s| s.trim().parse().ok()),
                    ping: p.ping.as_deref().and_then(|s| s.trim().parse().ok()),
                    duration: p.time.as_deref().and_then(|s| s.trim().parse().ok()),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want.rules {
        status.rules = Some(reply.rules.clone());
    }
    if want.detail {
        let mut extras = Map::new();
        if !reply.gametype.is_empty() {
            extras.insert("gametype".into(), json!(reply.gametype));
        }
        if let Ok(port) = reply.port.trim().parse::<u16>() {
            extras.insert("port".into(), json!(port));
        }
        status.extras = extras;
    }
    status
}
