//! Eco (Strange Loop Games): the server's web API `GET /frontpage` on its web port
//! (`docs/protocols/eco.md`).
//!
//! # Format
//! ```text
//! GET /frontpage   {"Info": {"Description": "SoMKaT & Friends", "OnlinePlayers": 0,
//!                   "TotalPlayers": 7, "OnlinePlayersNames": [], "HasPassword": false,
//!                   "Version": "0.11.0.2 beta release-707", "GamePort": 3000,
//!                   "WebPort": 3001, "DaysRunning": 13, "IsPaused": false, ...},
//!                   "Graphs": [...]}
//! ```
//! `TotalPlayers` counts everyone who ever joined the world, not slots: Eco has no player
//! limit on this page, so no capacity is published (gamedig reads it as `maxplayers`). The
//! name is `Description`, which server owners style with the game's rich-text tags
//! (`<color=green>Eco</color>`): they are cut out.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The page the server browser reads.
pub const FRONTPAGE_PATH: &str = "/frontpage";

/// `/frontpage` (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Frontpage {
    #[serde(rename = "Info")]
    pub info: Info,
}

/// The server's `Info` object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct Info {
    #[serde(default)]
    pub description: String,
    pub online_players: u32,
    #[serde(default)]
    pub total_players: Option<u32>,
    #[serde(default)]
    pub online_players_names: Option<Vec<String>>,
    #[serde(default)]
    pub has_password: Option<bool>,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub game_port: Option<u16>,
    #[serde(default)]
    pub days_running: Option<u32>,
    #[serde(default)]
    pub is_paused: Option<bool>,
}

/// Reads `/frontpage`.
pub fn decode_frontpage(body: &[u8]) -> Result<Info, Error> {
    let page: Frontpage =
        serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("Eco frontpage JSON"))?;
    Ok(page.info)
}

/// `text` without the rich-text tags of Unity's TextMeshPro (`<color=#f00>`, `</b>`,
/// `<size=120%>`): a `<`, a letter, `/` or `#`, up to 64 bytes without `<`, then `>`. Other
/// angle brackets (`<3`, `a < b`) stay.
pub fn strip_rich_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let tag_end = tail[1..]
            .char_indices()
            .take_while(|(i, c)| *i < 64 && *c != '<')
            .find(|(_, c)| *c == '>')
            .map(|(i, _)| i + 2);
        let opens_tag = tail[1..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '#');
        match tag_end {
            Some(end) if opens_tag => rest = &tail[end..],
            _ => {
                out.push('<');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The normalized status; `players` asks for the names.
pub fn to_status(info: Info, latency: Duration, players: bool, detail: bool) -> Status {
    let mut s = Status {
        online: info.online_players,
        max: 0,
        name: strip_rich_text(&info.description),
        game: Some("Eco".into()),
        version: info.version,
        password: info.has_password,
        latency,
        ..Status::default()
    };
    if let Some(total) = info.total_players {
        s.extras.insert("total_players".into(), total.into());
    }
    if detail {
        if let Some(days) = info.days_running {
            s.extras.insert("days_running".into(), days.into());
        }
        if let Some(paused) = info.is_paused {
            s.extras.insert("paused".into(), paused.into());
        }
        if let Some(p) = info.game_port {
            s.extras.insert("game_port".into(), p.into());
        }
    }
    if players {
        let list: Vec<Player> = info
            .online_players_names
            .unwrap_or_default()
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

    /// A live server's `/frontpage` (eco.somkat.net, Eco 0.11), as quoted in a gamedig
    /// protocol test published on GitHub (found through code search; its own whitespace
    /// slips, `"H asPassword"`, kept as they are: such a member is not read).
    const SOMKAT: &str = r#"{"Info":{"External":false,"WebPort":3001,"IsLAN":false,"Description":"SoMKaT & Friends","DetailedDescription":"Join Discord: www.dc.somkat.net","Category":"None","OnlinePlayers":0,"TotalPlayers":7,"OnlinePlayersNames":[] ,"AdminOnline":false,"DaysRunning":13,"DaysUntilMeteor":76,"Animals":6278,"Plants":560028,"Laws":0,"WorldSize":"1.96 km²","Version":"0.11.0.2 beta release-707","EconomyDesc":"44 Händel, 0 Verträge","Language":"German","H asPassword":false,"HasMeteor":true,"DistributionStationItems":"Keine","Playtimes":"","DiscordAddress":"https://discord.gg/Etfmc7u","IsPaused":false,"ActiveAndOnlinePlayers":3,"PeakActivePlayers":4,"ShelfLifeMultiplier":1 ,"ExhaustionAfterHours":3,"ExhaustionActive":false,"ExhaustionAllowPlaytimeSaving":true,"ExhaustionMaxSavedHours":15,"ExhaustionBonusHoursOnExhaustionEnabled":2,"ExhaustionBonusRetroactiveHoursAfterStart":true,"Exhaustio nHoursGainPerWeekday":{"0":6,"1":3,"2":3,"3":3,"4":3,"5":6,"6":6},"ServerAchievementsDict":{},"CollaborationLevel":"LowCollaboration","GameSpeed":"Normal","SimulationLevel":"Normal","TotalCulture":0,"PremiumItemUseRestrictions":false,"PremiumItemsBlocked":false,"RelayAddress":"3.123.89.127:3300","Access":"public"},"Graphs":[]}"#;

    #[test]
    fn decodes_a_live_servers_frontpage() {
        let info = decode_frontpage(SOMKAT.as_bytes()).unwrap();
        assert_eq!(info.description, "SoMKaT & Friends");
        assert_eq!((info.online_players, info.total_players), (0, Some(7)));
        assert_eq!(info.version.as_deref(), Some("0.11.0.2 beta release-707"));
        assert_eq!(info.has_password, None);
        assert_eq!((info.days_running, info.is_paused), (Some(13), Some(false)));
        let s = to_status(info, Duration::ZERO, true, true);
        assert_eq!((s.online, s.max), (0, 0));
        assert_eq!(s.name, "SoMKaT & Friends");
        assert_eq!(s.extras["total_players"], 7);
        assert_eq!(s.extras["days_running"], 13);
        assert_eq!(s.players.as_deref(), Some(&[][..]));
    }

    /// Names and rich text; a longer list raises the count.
    #[test]
    fn names_and_rich_text() {
        let body = br#"{"Info":{"Description":"<color=green>Eco</color> via <b>Sirens</b> <3","OnlinePlayers":1,"TotalPlayers":67,"OnlinePlayersNames":["alice","bob"],"HasPassword":true,"Version":"0.13.0.2","GamePort":3000}}"#;
        let s = to_status(decode_frontpage(body).unwrap(), Duration::ZERO, true, false);
        assert_eq!(s.name, "Eco via Sirens <3");
        assert_eq!((s.online, s.password), (2, Some(true)));
        let names: Vec<&str> = s
            .players
            .iter()
            .flatten()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["alice", "bob"]);
        assert!(!s.extras.contains_key("game_port"));
        assert_eq!(strip_rich_text("a<b"), "a<b");
        assert_eq!(strip_rich_text("<size=120%>big</size> x<"), "big x<");
        assert_eq!(strip_rich_text("<<#ff0000>red"), "<red");
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"{}",
            br#"{"Info":[]}"#,
            br#"{"Info":{"OnlinePlayers":-1}}"#,
            br#"{"Info":{"Description":"x"}}"#,
            br#"{"Info":{"OnlinePlayers":1,"OnlinePlayersNames":"alice"}}"#,
        ] {
            assert!(decode_frontpage(bad).is_err(), "{bad:?}");
        }
    }

    proptest! {
        /// Arbitrary bytes: never a panic; an accepted page keeps its count.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(info) = decode_frontpage(&body) {
                let online = info.online_players;
                let s = to_status(info, Duration::ZERO, false, true);
                prop_assert_eq!(s.online, online);
            }
        }

        /// Stripping never panics on any text, and leaves text without `<` alone.
        #[test]
        fn rich_text(s in any::<String>()) {
            let out = strip_rich_text(&s);
            prop_assert!(out.len() <= s.len());
            if !s.contains('<') {
                prop_assert_eq!(out, s);
            }
        }
    }
}
