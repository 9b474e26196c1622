//! Assetto Corsa's dedicated server (Kunos `acServer`, and AssettoServer which serves the same
//! pages): the lobby's JSON pages on its HTTP port (`docs/protocols/assettocorsa.md`).
//!
//! # Format
//! ```text
//! GET /INFO            {"name": "...", "clients": 2, "maxclients": 18, "track": "ks_monza66",
//!                       "pass": false, "port": 9600, "tport": 9600, "cport": 8081,
//!                       "session": 2, "timeleft": 1200, "cars": ["ks_mazda_mx5_cup"],
//!                       "poweredBy": "AssettoServer 0.0.54", ...}
//! GET /JSON|<number>   {"Cars": [{"Model": "ks_mazda_mx5_cup", "Skin": "00_red",
//!                        "DriverName": "Alice", "DriverTeam": "", "DriverNation": "ITA",
//!                        "IsConnected": true, "IsRequestedGUID": false, "IsEntryList": true}]}
//! ```
//! `/INFO` is what the game's lobby reads: `clients` connected of `maxclients` slots. The
//! entry list is every car slot, taken or not: the players are the connected slots. The number
//! after `JSON|` is the asking client's Steam id (it only marks slots booked for it); any number
//! is answered. `poweredBy` is AssettoServer's; Kunos's server leaves it out.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The lobby's server information.
pub const INFO_PATH: &str = "/INFO";
/// The entry list's path, before the asking client's number.
pub const CARS_PATH: &str = "/JSON|";

/// `/INFO` (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    #[serde(default)]
    pub name: String,
    pub clients: u32,
    pub maxclients: u32,
    #[serde(default)]
    pub track: Option<String>,
    #[serde(default)]
    pub pass: Option<bool>,
    /// The game's UDP port.
    #[serde(default)]
    pub port: Option<u16>,
    /// Seconds left in the session.
    #[serde(default)]
    pub timeleft: Option<i64>,
    #[serde(default, rename = "poweredBy")]
    pub powered_by: Option<String>,
}

/// `/JSON|...` (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntryList {
    #[serde(rename = "Cars")]
    pub cars: Vec<Car>,
}

/// One car slot of the entry list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Car {
    #[serde(default, rename = "Model")]
    pub model: Option<String>,
    #[serde(default, rename = "DriverName")]
    pub driver_name: Option<String>,
    #[serde(default, rename = "IsConnected")]
    pub is_connected: bool,
}

/// Reads `/INFO`.
pub fn decode_info(body: &[u8]) -> Result<Info, Error> {
    serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("Assetto Corsa INFO JSON").into())
}

/// Reads the entry list: the drivers of the connected slots, in slot order.
pub fn decode_cars(body: &[u8]) -> Result<Vec<Player>, Error> {
    let list: EntryList = serde_json::from_slice(body)
        .map_err(|_| DecodeError::Invalid("Assetto Corsa entry list JSON"))?;
    Ok(list
        .cars
        .into_iter()
        .filter(|c| c.is_connected)
        .map(|c| Player {
            name: c.driver_name.unwrap_or_default(),
            ..Player::default()
        })
        .collect())
}

/// The normalized status.
pub fn to_status(
    info: Info,
    players: Option<Vec<Player>>,
    latency: Duration,
    detail: bool,
) -> Status {
    let mut s = Status {
        online: info.clients,
        max: info.maxclients,
        name: info.name,
        map: info.track,
        game: Some("Assetto Corsa".into()),
        version: info.powered_by,
        password: info.pass,
        latency,
        ..Status::default()
    };
    if detail {
        if let Some(t) = info.timeleft {
            s.extras
                .insert("session_time_left_seconds".into(), t.into());
        }
        if let Some(p) = info.port {
            s.extras.insert("game_port".into(), p.into());
        }
    }
    if let Some(list) = players {
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

    /// An AssettoServer `/INFO`, field by field (the members its `InfoResponse` writes).
    #[test]
    fn decodes_info() {
        let body = br#"{"cars":["ks_mazda_mx5_cup","bmw_m3_e30"],"clients":2,"country":["Germany","DE"],"cport":8081,"durations":[10,20],"extra":false,"inverted":0,"ip":"","json":null,"l":false,"maxclients":18,"name":"Sim AC | Mazda Cup","pass":false,"pickup":true,"pit":false,"port":9600,"session":2,"sessiontypes":[1,2],"timed":false,"timeleft":1200,"timeofday":-16,"timestamp":0,"tport":9600,"track":"ks_monza66","poweredBy":"AssettoServer 0.0.54"}"#;
        let info = decode_info(body).unwrap();
        assert_eq!(info.name, "Sim AC | Mazda Cup");
        assert_eq!((info.clients, info.maxclients), (2, 18));
        assert_eq!(info.track.as_deref(), Some("ks_monza66"));
        assert_eq!(
            (info.pass, info.port, info.timeleft),
            (Some(false), Some(9600), Some(1200))
        );
        assert_eq!(info.powered_by.as_deref(), Some("AssettoServer 0.0.54"));
        let s = to_status(info, None, Duration::ZERO, true);
        assert_eq!((s.online, s.max), (2, 18));
        assert_eq!(s.map.as_deref(), Some("ks_monza66"));
        assert_eq!(s.version.as_deref(), Some("AssettoServer 0.0.54"));
        assert_eq!(s.password, Some(false));
        assert_eq!(s.extras["session_time_left_seconds"], 1200);
        assert_eq!(s.extras["game_port"], 9600);
        assert_eq!(s.players, None);
    }

    /// Kunos's server: no `poweredBy`, no version then.
    #[test]
    fn kunos_info_has_no_version() {
        let body = br#"{"ip":"","port":9600,"tport":9600,"cport":8081,"name":"Kunos","clients":0,"maxclients":12,"track":"magione","cars":["abarth500"],"timeofday":0,"session":0,"sessiontypes":[1],"durations":[3600],"timeleft":3000,"country":["na","na"],"pass":true,"timestamp":0,"json":null,"l":false,"pickup":true,"timed":false,"extra":false,"pit":false,"inverted":0}"#;
        let s = to_status(decode_info(body).unwrap(), None, Duration::ZERO, false);
        assert_eq!((s.online, s.max, s.name.as_str()), (0, 12, "Kunos"));
        assert_eq!((s.version, s.password), (None, Some(true)));
        assert!(s.extras.is_empty());
    }

    /// The entry list: connected slots only, in order; a longer list raises the count.
    #[test]
    fn decodes_entry_list() {
        let body = br#"{"Cars":[{"Model":"ks_mazda_mx5_cup","Skin":"00_red","DriverName":"Alice","DriverTeam":"","DriverNation":"ITA","IsConnected":true,"IsRequestedGUID":false,"IsEntryList":true},{"Model":"ks_mazda_mx5_cup","Skin":"01_blue","DriverName":null,"DriverTeam":null,"IsConnected":false,"IsRequestedGUID":false,"IsEntryList":true},{"Model":"bmw_m3_e30","Skin":"x","DriverName":"Bob","IsConnected":true}],"Features":["SPECTATING_AWARE"]}"#;
        let players = decode_cars(body).unwrap();
        let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["Alice", "Bob"]);
        let info = Info {
            clients: 1,
            maxclients: 18,
            ..Info::default()
        };
        let s = to_status(info, Some(players), Duration::ZERO, false);
        assert_eq!(s.online, 2);
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            b"<html></html>",
            br#"{"name":"x","clients":-1,"maxclients":2}"#,
            br#"{"name":"x","maxclients":2}"#,
            br#"{"name":"x","clients":1,"maxclients":2,"pass":"no"}"#,
        ] {
            assert!(decode_info(bad).is_err(), "{bad:?}");
        }
        assert!(decode_cars(b"{}").is_err());
        assert!(decode_cars(br#"{"Cars":{}}"#).is_err());
    }

    proptest! {
        /// Arbitrary bytes: never a panic; what is accepted normalizes with its counts.
        #[test]
        fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(info) = decode_info(&body) {
                let (online, max) = (info.clients, info.maxclients);
                let s = to_status(info, None, Duration::ZERO, true);
                prop_assert_eq!((s.online, s.max), (online, max));
            }
            let _ = decode_cars(&body);
        }

        /// What the simulator writes reads back.
        #[test]
        fn round_trip(name in ".{0,40}", clients in 0u32..64, max in 0u32..64) {
            let body = serde_json::json!({"name": name, "clients": clients, "maxclients": max,
                "track": "t", "pass": false}).to_string();
            let info = decode_info(body.as_bytes()).unwrap();
            prop_assert_eq!((info.name, info.clients, info.maxclients), (name, clients, max));
        }
    }
}
