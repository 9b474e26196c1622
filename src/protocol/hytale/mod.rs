//! Hytale: the Nitrado Query plugin's page, `GET /Nitrado/Query` on the Nitrado WebServer
//! plugin's port (`docs/protocols/hytale.md`).
//!
//! # Format
//! ```text
//! GET /Nitrado/Query   Accept: application/x.hytale.nitrado.query+json;version=1
//!   {"Basic": {"Name": "Hytale Server", "Version": "2026.01.10-ab2cd69ff", "MaxPlayers": 100,
//!              "CurrentPlayers": 1, "Address": "203.0.113.1:5520"},
//!    "Server": {"Name": ..., "Version": ..., "Revision": ..., "Patchline": "release",
//!               "ProtocolVersion": 1, "ProtocolHash": ..., "MaxPlayers": 100},
//!    "Universe": {"CurrentPlayers": 1, "DefaultWorld": "default"},
//!    "Players": [{"Name": "MyName", "UUID": "e5c4...", "World": "default"}],
//!    "Plugins": {"Nitrado:Query": {"Version": "1.0.0", "Loaded": true, ...}}}
//! ```
//! Each section is there only when the asking user (the anonymous one, for us) holds its
//! permission: a page may carry any subset. The first releases wrote `Players` as an object
//! keyed by UUID and had no `Basic`; both shapes are read.

pub mod exchange;
pub mod spec;

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The plugin's endpoint (the WebServer plugin mounts it at `/<group>/<name>`).
pub const QUERY_PATH: &str = "/Nitrado/Query";

/// The versioned media type the plugin negotiates (version 1, the current one).
pub const ACCEPT: &str = "application/x.hytale.nitrado.query+json;version=1";

/// The page (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Page {
    #[serde(default)]
    pub basic: Option<Basic>,
    #[serde(default)]
    pub server: Option<Server>,
    #[serde(default)]
    pub universe: Option<Universe>,
    #[serde(default)]
    pub players: Option<Players>,
}

/// `Basic`: what the anonymous user may see on a default server.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Basic {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    pub max_players: u32,
    pub current_players: u32,
}

/// `Server`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Server {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub patchline: Option<String>,
    #[serde(default)]
    pub protocol_version: Option<i64>,
    pub max_players: u32,
}

/// `Universe`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Universe {
    pub current_players: u32,
    #[serde(default)]
    pub default_world: Option<String>,
}

/// `Players`: a list (current releases) or an object keyed by UUID (the first ones).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Players {
    List(Vec<OnePlayer>),
    ByUuid(BTreeMap<String, OnePlayer>),
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct OnePlayer {
    #[serde(default)]
    pub name: String,
    #[serde(default, rename = "UUID")]
    pub uuid: Option<String>,
    #[serde(default)]
    pub world: Option<String>,
}

/// Reads the page. A page with no section we read (the anonymous user may see none of them,
/// or this is not the plugin's page) is malformed: it has no count to publish.
pub fn decode_page(body: &[u8]) -> Result<Page, Error> {
    let page: Page =
        serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("Hytale query JSON"))?;
    if page.basic.is_none()
        && page.server.is_none()
        && page.universe.is_none()
        && page.players.is_none()
    {
        return Err(DecodeError::Invalid("Hytale query page without a section").into());
    }
    Ok(page)
}

/// The normalized status; `players` asks for the names. `Server` and `Universe` win over
/// `Basic` where both are there; a page with only the list counts the list.
pub fn to_status(page: Page, latency: Duration, players: bool, detail: bool) -> Status {
    let basic = page.basic.unwrap_or_default();
    let (name, version, max, patchline, protocol) = match page.server {
        Some(s) => (
            s.name.or(basic.name),
            s.version.or(basic.version),
            s.max_players,
            s.patchline,
            s.protocol_version,
        ),
        None => (basic.name, basic.version, basic.max_players, None, None),
    };
    let list: Option<Vec<OnePlayer>> = page.players.map(|p| match p {
        Players::List(l) => l,
        Players::ByUuid(m) => m.into_values().collect(),
    });
    let listed = list
        .as_ref()
        .map_or(0, |l| l.len().min(u32::MAX as usize) as u32);
    let (online, map) = match page.universe {
        Some(u) => (u.current_players, u.default_world),
        None if basic.current_players > 0 || list.is_none() => (basic.current_players, None),
        None => (listed, None),
    };
    let mut s = Status {
        online,
        max,
        name: name.unwrap_or_default(),
        map,
        game: Some("Hytale".into()),
        version,
        latency,
        ..Status::default()
    };
    if let Some(p) = patchline {
        s.extras.insert("patchline".into(), p.into());
    }
    if detail {
        if let Some(v) = protocol {
            s.extras.insert("protocol_version".into(), v.into());
        }
    }
    if players {
        if let Some(list) = list {
            let list: Vec<Player> = list
                .into_iter()
                .map(|p| Player {
                    name: p.name,
                    id: p.uuid,
                    ..Player::default()
                })
                .collect();
            // Counts: where the list is longer than the count, publish the list's.
            s.online = s.online.max(listed);
            s.players = Some(list);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The example response of the plugin's README (Nitrado's hytale-plugin-query on GitHub):
    /// the first releases' shape, `Players` keyed by UUID, no `Basic`.
    const README: &[u8] = br#"{
      "Server": {"Name": "Hytale Server", "Version": "2026.01.10-ab2cd69ff",
                 "Revision": "ab2cd69ff816cb831f8792a0782938dce22eeadc", "Patchline": "release",
                 "ProtocolVersion": 1,
                 "ProtocolHash": "34f442449d72fb78c4891edf9b218eb55ab2ad69ffd1cd152d66d71c814fcc7",
                 "MaxPlayers": 100},
      "Universe": {"CurrentPlayers": 1, "DefaultWorld": "default"},
      "Players": {"e5c4ef9a-6281-406e-8a71-21028279f547": {"Name": "MyName",
                  "UUID": "e5c4ef9a-6281-406e-8a71-21028279f547", "World": "default"}},
      "Plugins": {"Nitrado:Query": {"Version": "1.0.0", "Loaded": true, "Enabled": true,
                  "State": "ENABLED"}}
    }"#;

    #[test]
    fn decodes_the_readme_page() {
        let s = to_status(decode_page(README).unwrap(), Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (1, 100));
        assert_eq!(s.name, "Hytale Server");
        assert_eq!(s.version.as_deref(), Some("2026.01.10-ab2cd69ff"));
        assert_eq!(s.map.as_deref(), Some("default"));
        assert_eq!(s.extras["patchline"], "release");
        assert_eq!(s.extras["protocol_version"], 1);
        let p = s.players.unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "MyName");
        assert_eq!(
            p[0].id.as_deref(),
            Some("e5c4ef9a-6281-406e-8a71-21028279f547")
        );
    }

    /// Current releases: `Basic` only (a default server's anonymous user), then with a list.
    #[test]
    fn basic_and_list() {
        let body = br#"{"Basic":{"Name":"Orbis","Version":"2026.02.01","MaxPlayers":50,"CurrentPlayers":3,"Address":"203.0.113.1:5520"}}"#;
        let s = to_status(decode_page(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!((s.online, s.max, s.name.as_str()), (3, 50, "Orbis"));
        assert_eq!((s.map, s.players), (None, None));
        assert!(!s.extras.contains_key("patchline"));
        let body = br#"{"Players":[{"Name":"a","UUID":"1","World":"w"},{"Name":"b","UUID":"2","World":"w"}]}"#;
        let s = to_status(decode_page(body).unwrap(), Duration::ZERO, false, false);
        assert_eq!((s.online, s.max, s.players), (2, 0, None));
        let body = br#"{"Universe":{"CurrentPlayers":1,"DefaultWorld":null},"Players":[{"Name":"a"},{"Name":"b"}]}"#;
        let s = to_status(decode_page(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!((s.online, s.map), (2, None));
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"{}",
            br#"{"Plugins":{}}"#,
            br#"{"Universe":{"CurrentPlayers":-1}}"#,
            br#"{"Server":{"Name":"x"}}"#,
            br#"{"Basic":{"MaxPlayers":1}}"#,
            br#"{"Players":"a, b"}"#,
        ] {
            assert!(decode_page(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Arbitrary bytes: never a panic; an accepted page's list never exceeds the count.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(page) = decode_page(&body) {
                let s = to_status(page, Duration::ZERO, true, true);
                let listed = s.players.as_ref().map_or(0, |p| p.len());
                prop_assert!(listed <= s.online as usize);
            }
        }
    }
}
