//! Halo Online with ElDewrito: the game's info server, `GET /` on its HTTP port
//! (`docs/protocols/eldewrito.md`).
//!
//! # Format
//! ```text
//! GET /   {"name": "HaloOnline Server", "port": 11774, "hostPlayer": "...",
//!          "map": "Guardian", "mapFile": "guardian", "variant": "Sword Mode",
//!          "variantType": "slayer", "status": "InGame", "numPlayers": 12, "maxPlayers": 16,
//!          "teams": false, "xnkid": "...", "xnaddr": "...",
//!          "players": [{"name": "...", "score": 9, "kills": 9, "team": 0, "uid": "..."}],
//!          "isDedicated": true, "gameVersion": "1.106708_cert_ms23___release",
//!          "eldewritoVersion": "0.4.11.2"}
//! ```
//! A server with a password answers `"passworded": true` instead of the player list and the
//! session keys (`xnkid`, `xnaddr`): the counts and names of the rest still come.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The info server answers on its root.
pub const INFO_PATH: &str = "/";

/// The info page (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Info {
    #[serde(default)]
    pub name: String,
    pub num_players: u32,
    pub max_players: u32,
    #[serde(default)]
    pub map: Option<String>,
    #[serde(default)]
    pub variant: Option<String>,
    #[serde(default)]
    pub variant_type: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub passworded: Option<bool>,
    #[serde(default)]
    pub players: Option<Vec<InfoPlayer>>,
    #[serde(default)]
    pub eldewrito_version: Option<String>,
    /// The game's UDP port.
    #[serde(default)]
    pub port: Option<u16>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct InfoPlayer {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub score: Option<i64>,
    #[serde(default)]
    pub uid: Option<String>,
}

/// Reads the info page.
pub fn decode_info(body: &[u8]) -> Result<Info, Error> {
    serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("ElDewrito info JSON").into())
}

/// The normalized status. The password is known from the page alone: `passworded` when
/// set, else no password (the page then carries the players and session keys).
pub fn to_status(info: Info, latency: Duration, players: bool, detail: bool) -> Status {
    let mut s = Status {
        online: info.num_players,
        max: info.max_players,
        name: info.name,
        map: info.map,
        game: Some("Halo Online (ElDewrito)".into()),
        version: info.eldewrito_version,
        password: Some(info.passworded.unwrap_or(false)),
        latency,
        ..Status::default()
    };
    for (key, value) in [
        ("variant", info.variant),
        ("variant_type", info.variant_type),
        ("state", info.status),
    ] {
        if let Some(v) = value {
            s.extras.insert(key.into(), v.into());
        }
    }
    if detail {
        if let Some(p) = info.port {
            s.extras.insert("game_port".into(), p.into());
        }
    }
    if players {
        if let Some(list) = info.players {
            let list: Vec<Player> = list
                .into_iter()
                .map(|p| Player {
                    name: p.name,
                    id: p.uid,
                    score: p.score,
                    ..Player::default()
                })
                .collect();
            // Counts: where the list is longer than the count, publish the list's.
            s.online = s.online.max(list.len().min(u32::MAX as usize) as u32);
            s.players = Some(list);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An ElDewrito 0.4.11.2 server's page as the AnotherHaloServerBrowser README on GitHub
    /// quotes it (anonymised there: zero keys and ids; its "...etc" after three of the twelve
    /// players left out).
    const README: &[u8] = br#"{
      "name": "HaloOnline Server", "port": 11774, "hostPlayer": "Player 1",
      "sprintEnabled": "1", "sprintUnlimitedEnabled": "0", "VoIP": true, "teams": false,
      "map": "Guardian", "mapFile": "guardian", "variant": "Sword Mode",
      "variantType": "slayer", "status": "InGame", "numPlayers": 12, "maxPlayers": 16,
      "xnkid": "00000000000000000000000000000000", "xnaddr": "00000000000000000000000000000000",
      "players": [
        {"name": "Player 1", "score": 9, "kills": 9, "assists": 0, "deaths": 4, "team": 0, "isAlive": true, "uid": "00000000000000"},
        {"name": "Player 2", "score": 3, "kills": 3, "assists": 0, "deaths": 6, "team": 1, "isAlive": false, "uid": "00000000000000"},
        {"name": "Player 3", "score": 0, "kills": 0, "assists": 0, "deaths": 2, "team": 2, "isAlive": true, "uid": "000000000000000"}
      ],
      "gameVersion": "1.106708_cert_ms23___release", "eldewritoVersion": "0.4.11.2"
    }"#;

    #[test]
    fn decodes_a_servers_page() {
        let s = to_status(decode_info(README).unwrap(), Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (12, 16));
        assert_eq!(s.name, "HaloOnline Server");
        assert_eq!(s.map.as_deref(), Some("Guardian"));
        assert_eq!(s.version.as_deref(), Some("0.4.11.2"));
        assert_eq!(s.password, Some(false));
        assert_eq!(s.extras["variant"], "Sword Mode");
        assert_eq!(s.extras["variant_type"], "slayer");
        assert_eq!(s.extras["state"], "InGame");
        assert_eq!(s.extras["game_port"], 11774);
        let p = s.players.unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!((p[0].name.as_str(), p[0].score), ("Player 1", Some(9)));
        assert_eq!(p[2].id.as_deref(), Some("000000000000000"));
    }

    /// A password: no list, the counts still there.
    #[test]
    fn passworded() {
        let body = br#"{"name":"Locked","port":11774,"numPlayers":3,"maxPlayers":8,"map":"Valhalla","passworded":true,"gameVersion":"1.106708_cert_ms23___release","eldewritoVersion":"0.6.1"}"#;
        let s = to_status(decode_info(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!((s.online, s.max, s.password), (3, 8, Some(true)));
        assert_eq!(s.players, None);
        assert!(!s.extras.contains_key("game_port"));
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"{}",
            br#"{"name":"x","numPlayers":-1,"maxPlayers":16}"#,
            br#"{"name":"x","numPlayers":1}"#,
            br#"{"name":"x","numPlayers":1,"maxPlayers":16,"players":{}}"#,
        ] {
            assert!(decode_info(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Arbitrary bytes: never a panic; an accepted page keeps its counts.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(info) = decode_info(&body) {
                let (online, max) = (info.num_players, info.max_players);
                let s = to_status(info, Duration::ZERO, false, true);
                prop_assert_eq!((s.online, s.max), (online, max));
            }
        }
    }
}
