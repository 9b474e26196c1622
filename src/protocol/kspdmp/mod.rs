//! Kerbal Space Program with DarkMultiPlayer: the server's status page, `GET /` on its HTTP
//! port (`docs/protocols/kspdmp.md`).
//!
//! # Format
//! ```text
//! GET /   {"cheats": true, "game_mode": "SANDBOX", "max_players": 20, "mod_control": true,
//!          "player_count": 2, "players": "alice, bob", "port": 6702,
//!          "server_name": "DMP Server", "warp_mode": "SUBSPACE"}
//! ```
//! DMPServer answers every path but `/modcontrol` with this object (a .NET
//! `DataContractJsonSerializer` writes it: members in name order, no `Content-Type`). The
//! players are one string, the names joined by `", "`, empty when nobody plays. Enum members
//! (`game_mode`, `warp_mode`) are names in the releases we know; a number is read as well.
//! Later releases add `version`, `protocol_version`, `universeSize`, `lastPlayerActivity` and
//! `modControlSha`, and write `mod_control` as a number.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// DMPServer answers the status on any path but `/modcontrol`; gamedig asks for the root.
pub const STATUS_PATH: &str = "/";

/// The status page (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Info {
    #[serde(default)]
    pub server_name: String,
    pub player_count: u32,
    pub max_players: u32,
    #[serde(default)]
    pub players: Option<String>,
    /// The game's TCP port.
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub game_mode: Option<Word>,
    #[serde(default)]
    pub warp_mode: Option<Word>,
    #[serde(default)]
    pub cheats: Option<bool>,
    /// DMP's version (`v0.1.5.6`), in later releases.
    #[serde(default)]
    pub version: Option<String>,
}

/// An enum member: its name, or its number where a serializer writes numbers.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Word {
    Name(String),
    Number(i64),
}

impl Word {
    fn text(self) -> String {
        match self {
            Word::Name(s) => s,
            Word::Number(n) => n.to_string(),
        }
    }
}

/// Reads the status page.
pub fn decode_info(body: &[u8]) -> Result<Info, Error> {
    serde_json::from_slice(body)
        .map_err(|_| DecodeError::Invalid("DarkMultiPlayer status JSON").into())
}

/// The names in `players` (`"alice, bob"`): split at commas, trimmed, empty ones dropped.
pub fn player_names(players: &str) -> Vec<String> {
    players
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The normalized status; `players` asks for the names.
pub fn to_status(info: Info, latency: Duration, players: bool, detail: bool) -> Status {
    let mut s = Status {
        online: info.player_count,
        max: info.max_players,
        name: info.server_name,
        game: Some("Kerbal Space Program (DarkMultiPlayer)".into()),
        version: info.version,
        latency,
        ..Status::default()
    };
    for (key, value) in [("game_mode", info.game_mode), ("warp_mode", info.warp_mode)] {
        if let Some(v) = value {
            s.extras.insert(key.into(), v.text().into());
        }
    }
    if detail {
        if let Some(p) = info.port {
            s.extras.insert("game_port".into(), p.into());
        }
        if let Some(c) = info.cheats {
            s.extras.insert("cheats".into(), c.into());
        }
    }
    if players {
        let list: Vec<Player> = player_names(info.players.as_deref().unwrap_or_default())
            .into_iter()
            .map(|name| Player {
                name,
                ..Player::default()
            })
            .collect();
        // Counts: where the list is longer than the count, publish the list's.
        s.online = s.online.max(list.len().min(u32::MAX as usize) as u32);
        s.players = Some(list);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The page as DMPServer's serializer writes it for its default settings (members in
    /// name order; the values are `SettingsStore`'s defaults), with two players.
    const DEFAULTS: &[u8] = br#"{"cheats":true,"game_mode":"SANDBOX","max_players":20,"mod_control":true,"player_count":2,"players":"Jebediah, Valentina","port":6702,"server_name":"DMP Server","warp_mode":"SUBSPACE"}"#;

    /// A live server's page (a Multiplay clan server, DMP v0.1.5.6) as qstat's `ksp` reader
    /// quotes it in its source (one member a line there).
    const MULTIPLAY: &[u8] = br#"{"cheats":true,"game_mode":"SANDBOX","lastPlayerActivity":81403,"max_players":12,"modControlSha":"e46569487926a3273f58e06a080b0747b0ae702ec1877906511fe2c29816528b","mod_control":1,"player_count":0,"players":"","port":6752,"protocol_version":25,"server_name":"Multiplay :: Online - Clanserver","universeSize":96576,"version":"v0.1.5.6"}"#;

    #[test]
    fn decodes_a_live_servers_page() {
        let s = to_status(decode_info(MULTIPLAY).unwrap(), Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (0, 12));
        assert_eq!(s.name, "Multiplay :: Online - Clanserver");
        assert_eq!(s.version.as_deref(), Some("v0.1.5.6"));
        assert_eq!(s.extras["game_mode"], "SANDBOX");
        assert!(!s.extras.contains_key("warp_mode"));
        assert_eq!(s.extras["game_port"], 6752);
        assert_eq!(s.players.as_deref(), Some(&[][..]));
    }

    #[test]
    fn decodes_a_servers_page() {
        let info = decode_info(DEFAULTS).unwrap();
        assert_eq!((info.player_count, info.max_players), (2, 20));
        assert_eq!(info.port, Some(6702));
        let s = to_status(info, Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (2, 20));
        assert_eq!(s.name, "DMP Server");
        assert_eq!(s.extras["game_mode"], "SANDBOX");
        assert_eq!(s.extras["warp_mode"], "SUBSPACE");
        assert_eq!(s.extras["game_port"], 6702);
        assert_eq!(s.extras["cheats"], true);
        let names: Vec<&str> = s
            .players
            .iter()
            .flatten()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["Jebediah", "Valentina"]);
    }

    /// Nobody on: an empty string, no names; enum numbers read; no detail, no port.
    #[test]
    fn empty_server_and_numbers() {
        let body = br#"{"game_mode":1,"max_players":8,"player_count":0,"players":"","port":6702,"server_name":"Kerbin Ops","warp_mode":0}"#;
        let s = to_status(decode_info(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!((s.online, s.max), (0, 8));
        assert_eq!(s.players.as_deref(), Some(&[][..]));
        assert_eq!(s.extras["game_mode"], "1");
        assert_eq!(s.extras["warp_mode"], "0");
        assert!(!s.extras.contains_key("game_port"));
    }

    /// A list longer than the count raises it; stray spaces and empty names go.
    #[test]
    fn names_raise_the_count() {
        assert_eq!(player_names(" a ,, b,"), ["a", "b"]);
        let body = br#"{"max_players":4,"player_count":1,"players":"a, b, c","server_name":"x"}"#;
        let s = to_status(decode_info(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!(s.online, 3);
        let s = to_status(decode_info(body).unwrap(), Duration::ZERO, false, false);
        assert_eq!((s.online, s.players), (1, None));
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"{}",
            br#"{"server_name":"x","player_count":-1,"max_players":20}"#,
            br#"{"server_name":"x","player_count":1}"#,
            br#"{"server_name":"x","player_count":1,"max_players":20,"players":["a"]}"#,
            br#"{"server_name":"x","player_count":1,"max_players":20,"port":70000}"#,
        ] {
            assert!(decode_info(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Arbitrary bytes: never a panic; an accepted page keeps its counts.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(info) = decode_info(&body) {
                let (online, max) = (info.player_count, info.max_players);
                let s = to_status(info, Duration::ZERO, false, true);
                prop_assert_eq!((s.online, s.max), (online, max));
            }
        }

        /// Any players string: names are trimmed, never empty, never hold a comma.
        #[test]
        fn names(text in any::<String>()) {
            for n in player_names(&text) {
                prop_assert!(!n.is_empty() && !n.contains(',') && n.trim() == n);
            }
        }
    }
}
