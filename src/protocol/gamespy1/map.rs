//! From a reassembled reply to the shared [`Status`]: pure, no I/O.

use std::time::Duration;

use serde_json::{json, Map, Value};

use super::reply::{int, Reply};
use crate::status::{Player, Status};

/// What the caller asked for, as the other protocols' dialogues take it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    /// Protocol-specific extras (daemon polls leave them out: they cost allocations).
    pub detail: bool,
    pub players: bool,
    /// The server variables, as `rules`.
    pub rules: bool,
}

/// Maps a reply onto [`Status`]. Strings keep what the server said (GameSpy 1 games use no
/// colour codes in these fields).
///
/// - name: `hostname`; map: `mapname`;
/// - online: `numplayers`, else the player entries: Battlefield 1942 keeps entries of players
///   who left, so the count wins over the list;
/// - max: `maxplayers`;
/// - game: `gametype` (the mode: `CTFGame`, `conquest`), else netPanzer's `gamestyle`;
/// - version: `gamever`, else netPanzer's `gameversion`;
/// - password: `password` (`1`/`0`, `true`/`false`, netPanzer's `y`/`n`).
///
/// `latency` is the caller's round trip of the request to the first datagram.
pub fn to_status(reply: &Reply, want: Want, latency: Duration) -> Status {
    let get = |keys: &[&str]| {
        reply
            .first(keys)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let listed = u32::try_from(reply.players.len() + reply.players_dropped).unwrap_or(u32::MAX);
    let mut out = Status {
        online: reply.int("numplayers").map_or(listed, clamp_u32),
        max: reply.int("maxplayers").map_or(0, clamp_u32),
        name: get(&["hostname"]).unwrap_or_default(),
        map: get(&["mapname"]),
        game: get(&["gametype", "gamestyle"]),
        version: get(&["gamever", "gameversion"]),
        password: reply.get("password").and_then(flag),
        latency,
        ..Status::default()
    };
    if want.players {
        out.players = Some(
            reply
                .players
                .iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    score: p.score(),
                    ping: p.ping(),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if want.rules {
        out.rules = Some(reply.vars.clone());
    }
    if want.detail {
        out.extras = extras(reply);
    }
    out
}

fn extras(reply: &Reply) -> Map<String, Value> {
    let mut x = Map::new();
    if let Some(g) = reply.get("gamename") {
        x.insert("gamename".into(), json!(g));
    }
    if let Some(n) = reply.int("numplayers") {
        if usize::try_from(n).is_ok_and(|n| n != reply.players.len()) {
            x.insert("player_entries".into(), json!(reply.players.len()));
        }
    }
    if reply.players_dropped > 0 {
        x.insert("players_not_listed".into(), json!(reply.players_dropped));
    }
    x
}

fn flag(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "y" | "yes" => Some(true),
        "0" | "false" | "n" | "no" => Some(false),
        other => int(other).map(|n| n != 0),
    }
}

fn clamp_u32(n: i64) -> u32 {
    u32::try_from(n.max(0)).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::super::packet::decode_packet;
    use super::super::reply::decode_reply;
    use super::*;

    const ALL: Want = Want {
        detail: true,
        players: true,
        rules: true,
    };

    /// Captured from Debian's netPanzer 0.8.7 dedicated server on loopback (one bot client
    /// joined), answering `\status\`: one datagram, no leading backslash, no `\queryid\`.
    /// Byte layout: `gamename\netpanzer\protocol\1122\hostname\Player514\gameversion\0.8.7
    /// \mapname\Two clans\...\numplayers\1\maxplayers\8\...\player_0\Player448\kills_0\0
    /// \deaths_0\0\score_0\0\points_0\0\flag_0\0\flagu_0\2\final\`.
    const NETPANZER: &[u8] =
        include_bytes!("../../../tests/fixtures/gamespy1/netpanzer_087_status.0.bin");

    #[test]
    fn captured_netpanzer() {
        let packet = decode_packet(NETPANZER).unwrap();
        assert!(packet.is_final && packet.query_id.is_none());
        let reply = decode_reply(packet.pairs);
        let s = to_status(&reply, ALL, Duration::from_millis(4));
        assert_eq!(s.name, "Player514");
        assert_eq!((s.online, s.max), (1, 8));
        assert_eq!(s.map.as_deref(), Some("Two clans"));
        assert_eq!(s.game.as_deref(), Some("Objective"));
        assert_eq!(s.version.as_deref(), Some("0.8.7"));
        assert_eq!(s.password, Some(false));
        assert_eq!(
            s.players,
            Some(vec![Player {
                name: "Player448".into(),
                score: Some(0),
                ..Player::default()
            }])
        );
        let rules = s.rules.unwrap();
        assert_eq!(rules.len(), 15);
        assert_eq!(rules[0], ("gamename".into(), "netpanzer".into()));
        assert_eq!(s.extras.get("gamename"), Some(&json!("netpanzer")));
    }

    /// Battlefield 1942 lists a player who left: `numplayers` is the count, the list stays.
    #[test]
    fn stale_battlefield_entries() {
        let pairs = [
            ("hostname", "BF"),
            ("numplayers", "1"),
            ("maxplayers", "64"),
            ("gametype", "conquest"),
            ("gamever", "v1.61"),
            ("password", "0"),
            ("playername_0", "here"),
            ("score_0", "5"),
            ("ping_0", "40"),
            ("playername_1", "gone"),
        ]
        .map(|(k, v)| (k.to_string(), v.to_string()));
        let s = to_status(&decode_reply(pairs.to_vec()), ALL, Duration::ZERO);
        assert_eq!((s.online, s.max), (1, 64));
        assert_eq!(s.players.as_ref().map(Vec::len), Some(2));
        assert_eq!(s.players.unwrap()[0].ping, Some(40));
        assert_eq!(s.extras.get("player_entries"), Some(&json!(2)));
        assert_eq!(
            (s.game.as_deref(), s.version.as_deref(), s.password),
            (Some("conquest"), Some("v1.61"), Some(false))
        );
    }

    /// Without `numplayers` the list counts; nonsense counts clamp; nothing asked, nothing
    /// listed.
    #[test]
    fn counts() {
        let r = decode_reply(vec![
            ("player_0".into(), "a".into()),
            ("maxplayers".into(), "-3".into()),
        ]);
        let s = to_status(&r, Want::default(), Duration::ZERO);
        assert_eq!((s.online, s.max, s.players, s.rules), (1, 0, None, None));
        let r = decode_reply(vec![("numplayers".into(), "99999999999".into())]);
        assert_eq!(
            to_status(&r, Want::default(), Duration::ZERO).online,
            u32::MAX
        );
    }
}
