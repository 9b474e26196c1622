//! Build and Shoot / Ace of Spades Classic (0.75/0.76 servers: piqueserver, pyspades): the
//! status server's `GET /json` (`docs/protocols/buildandshoot.md`).
//!
//! # Format
//! ```text
//! GET /json   {"serverIdentifier": "aos://16777343:32887", "serverName": "...",
//!              "serverVersion": "0.75", "serverUptime": 12.5, "gameMode": "ctf",
//!              "map": {"name": "hallway", "version": "1.0", "author": "..."},
//!              "scripts": [...], "players": [{"name": "Deuce", "latency": 40,
//!              "kills": 3, "team": "Blue"}], "maxPlayers": 32,
//!              "scores": {"currentBlueScore": 0, "currentGreenScore": 1, "maxScore": 10}}
//! ```
//! That is piqueserver's page. The other layout gamedig reads (older 0.75 servers): by team,
//! the capacity inside, `"players": {"blue": ["Deuce"], "green": [...], "maxPlayers": 32}`, names as strings or
//! objects. Both are read. The page is JSON (gamedig's `buildandshoot` reads it as JSON too);
//! the status server's `/` is the HTML page for people.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The status server's JSON page.
pub const JSON_PATH: &str = "/json";

/// `/json` (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    #[serde(default)]
    pub server_name: String,
    #[serde(default)]
    pub server_version: Option<String>,
    #[serde(default)]
    pub game_mode: Option<String>,
    #[serde(default)]
    pub map: Option<MapInfo>,
    pub players: Players,
    #[serde(default)]
    pub max_players: Option<u32>,
    #[serde(default)]
    pub scores: Option<Scores>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct MapInfo {
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scores {
    #[serde(default)]
    pub current_blue_score: Option<i64>,
    #[serde(default)]
    pub current_green_score: Option<i64>,
}

/// The two layouts of `players`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Players {
    /// piqueserver: one list.
    List(Vec<Entry>),
    /// Older servers: by team, with the capacity.
    Teams {
        #[serde(default)]
        blue: Vec<Entry>,
        #[serde(default)]
        green: Vec<Entry>,
        #[serde(default, rename = "maxPlayers")]
        max_players: Option<u32>,
    },
}

impl Default for Players {
    fn default() -> Self {
        Players::List(Vec::new())
    }
}

/// One player: a name, or an object with one.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Entry {
    Name(String),
    Object {
        #[serde(default)]
        name: String,
        #[serde(default)]
        latency: Option<f64>,
        #[serde(default)]
        kills: Option<i64>,
    },
}

/// Reads `/json`.
pub fn decode_page(body: &[u8]) -> Result<Page, Error> {
    serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("Build and Shoot JSON").into())
}

fn player(entry: Entry) -> Player {
    match entry {
        Entry::Name(name) => Player {
            name,
            ..Player::default()
        },
        Entry::Object {
            name,
            latency,
            kills,
        } => Player {
            name,
            score: kills,
            ping: latency
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(|v| v.round().min(f64::from(u32::MAX)) as u32),
            ..Player::default()
        },
    }
}

/// The normalized status: the count is the list's length (the page has no other).
pub fn to_status(page: Page, latency: Duration, players: bool, detail: bool) -> Status {
    let (list, inner_max) = match page.players {
        Players::List(list) => (list, None),
        Players::Teams {
            blue,
            green,
            max_players,
        } => (blue.into_iter().chain(green).collect(), max_players),
    };
    let mut s = Status {
        online: list.len().min(u32::MAX as usize) as u32,
        max: page.max_players.or(inner_max).unwrap_or(0),
        name: page.server_name,
        map: page.map.and_then(|m| m.name),
        game: Some("Build and Shoot".into()),
        version: page.server_version,
        latency,
        ..Status::default()
    };
    if let Some(mode) = page.game_mode {
        s.extras.insert("game_mode".into(), mode.into());
    }
    if detail {
        let scores = page.scores.unwrap_or_default();
        if let Some(v) = scores.current_blue_score {
            s.extras.insert("blue_score".into(), v.into());
        }
        if let Some(v) = scores.current_green_score {
            s.extras.insert("green_score".into(), v.into());
        }
    }
    if players {
        s.players = Some(list.into_iter().map(player).collect());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// piqueserver's page, field by field (the members its `JSONPage` writes).
    #[test]
    fn piqueserver_page() {
        let body = br#"{"serverIdentifier":"aos://16777343:32887","serverName":"piqueserver instance","serverVersion":"0.75","serverUptime":61.02,"gameMode":"ctf","map":{"name":"hallway","version":"1.0","author":"Unknown"},"scripts":["piqueserver.scripts.afk"],"players":[{"name":"Deuce","latency":40,"kills":3,"team":"Blue"},{"name":"Deuce1","latency":61.6,"kills":0,"team":"Green"}],"maxPlayers":32,"scores":{"currentBlueScore":0,"currentGreenScore":1,"maxScore":10}}"#;
        let s = to_status(decode_page(body).unwrap(), Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (2, 32));
        assert_eq!(s.name, "piqueserver instance");
        assert_eq!(s.map.as_deref(), Some("hallway"));
        assert_eq!(s.version.as_deref(), Some("0.75"));
        assert_eq!(s.extras["game_mode"], "ctf");
        assert_eq!(
            (
                s.extras["blue_score"].as_i64(),
                s.extras["green_score"].as_i64()
            ),
            (Some(0), Some(1))
        );
        let p = s.players.unwrap();
        assert_eq!(
            (p[0].name.as_str(), p[0].score, p[0].ping),
            ("Deuce", Some(3), Some(40))
        );
        assert_eq!((p[1].name.as_str(), p[1].ping), ("Deuce1", Some(62)));
    }

    /// The older layout: by team, names as strings, the capacity inside `players`.
    #[test]
    fn teams_layout() {
        let body = br#"{"serverName":"teams layout","serverVersion":"0.75","map":{"name":"hallway"},"players":{"blue":["a","b"],"green":[{"name":"c"}],"maxPlayers":24}}"#;
        let s = to_status(decode_page(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!((s.online, s.max), (3, 24));
        let names: Vec<&str> = s
            .players
            .iter()
            .flatten()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["a", "b", "c"]);
        assert!(!s.extras.contains_key("blue_score"));
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"{}",
            b"<html><body>status</body></html>",
            br#"{"serverName":"x","players":3}"#,
            br#"{"serverName":"x","players":[],"maxPlayers":-1}"#,
            br#"{"serverName":"x","players":[1]}"#,
        ] {
            assert!(decode_page(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Arbitrary bytes: never a panic; the count is the list's.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(page) = decode_page(&body) {
                let s = to_status(page, Duration::ZERO, true, true);
                prop_assert_eq!(s.players.map(|p| p.len()), Some(s.online as usize));
            }
        }
    }
}
