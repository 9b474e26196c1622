//! Terraria with TShock: its REST API's status (`docs/protocols/terraria.md`).
//!
//! # Format
//! ```text
//! GET /v2/server/status?players=true[&token=...]   (HTTP, or HTTPS behind a proxy)
//! 200 application/json
//! {"status": "200", "name": "My server", "serverversion": "v1.4.4.9",
//!  "tshockversion": "5.2.0.0", "port": 7777, "playercount": 2, "maxplayers": 8,
//!  "world": "Forest", "uptime": "0.01:02:03", "serverpassword": false,
//!  "players": [{"nickname": "Alice", "username": "", "group": "default",
//!               "active": true, "state": 10, "team": 0}]}
//! ```
//! `status` is a string: TShock reports its own result there ("200", or "401"/"403" with an
//! `error` text when the endpoint wants a token), and often answers HTTP 200 around a
//! refusal, so both are read. `players` is there only when asked for (`players=true`).

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The status endpoint's path.
pub const STATUS_PATH: &str = "/v2/server/status";

/// The status endpoint's answer (what we read of it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerStatus {
    pub status: String,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub serverversion: Option<String>,
    #[serde(default)]
    pub tshockversion: Option<String>,
    #[serde(default)]
    pub port: Option<u16>,
    #[serde(default)]
    pub playercount: u32,
    #[serde(default)]
    pub maxplayers: u32,
    #[serde(default)]
    pub world: Option<String>,
    #[serde(default)]
    pub uptime: Option<String>,
    #[serde(default)]
    pub serverpassword: Option<bool>,
    #[serde(default)]
    pub players: Option<Vec<TshockPlayer>>,
}

/// One entry of `players`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TshockPlayer {
    pub nickname: String,
    #[serde(default)]
    pub username: Option<String>,
    #[serde(default)]
    pub group: Option<String>,
    #[serde(default)]
    pub team: Option<i64>,
}

/// Reads the status body. A TShock refusal inside a 200 (`"status": "401"`) is the HTTP
/// status it names ([`Error::HttpStatus`]: a refused login).
pub fn decode_status(body: &[u8]) -> Result<ServerStatus, Error> {
    let status: ServerStatus =
        serde_json::from_slice(body).map_err(|_| DecodeError::Invalid("TShock status JSON"))?;
    if status.status != "200" {
        let code = status
            .status
            .parse::<u16>()
            .ok()
            .filter(|c| (100..600).contains(c));
        return Err(match code {
            Some(status) => Error::HttpStatus { status },
            None => DecodeError::Invalid("TShock status field").into(),
        });
    }
    Ok(status)
}

/// The normalized status.
pub fn to_status(s: ServerStatus, latency: Duration, detail: bool) -> Status {
    let mut out = Status {
        online: s.playercount,
        max: s.maxplayers,
        name: s.name,
        map: s.world,
        game: Some("Terraria".into()),
        version: s.serverversion,
        password: s.serverpassword,
        latency,
        ..Status::default()
    };
    if let Some(v) = s.tshockversion {
        out.extras.insert("tshock_version".into(), v.into());
    }
    if detail {
        if let Some(u) = s.uptime {
            out.extras.insert("uptime".into(), u.into());
        }
    }
    if let Some(list) = s.players {
        // Counts: where the list is longer than the count, publish the list's.
        out.online = out.online.max(list.len().min(u32::MAX as usize) as u32);
        out.players = Some(
            list.into_iter()
                .map(|p| Player {
                    name: p.nickname,
                    ..Player::default()
                })
                .collect(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A TShock 5 answer, field by field.
    #[test]
    fn decodes_tshock_status() {
        let body = br#"{"status":"200","name":"Sim Terraria","serverversion":"v1.4.4.9","tshockversion":"5.2.0.0","port":7777,"playercount":2,"maxplayers":8,"world":"Forest","uptime":"0.01:02:03","serverpassword":false,"players":[{"nickname":"Alice","username":"","group":"default","active":true,"state":10,"team":0},{"nickname":"Bob","group":"guest","team":1}]}"#;
        let s = to_status(decode_status(body).unwrap(), Duration::ZERO, false);
        assert_eq!((s.online, s.max), (2, 8));
        assert_eq!(s.name, "Sim Terraria");
        assert_eq!(s.map.as_deref(), Some("Forest"));
        assert_eq!(s.version.as_deref(), Some("v1.4.4.9"));
        assert_eq!(s.password, Some(false));
        assert_eq!(s.extras["tshock_version"], "5.2.0.0");
        let names: Vec<&str> = s
            .players
            .as_ref()
            .unwrap()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["Alice", "Bob"]);
    }

    /// TShock's refusal inside a 200 is a refused login; junk is malformed.
    #[test]
    fn refusals_and_junk() {
        let e = decode_status(br#"{"status":"401","error":"Not authorized."}"#).unwrap_err();
        assert!(matches!(e, Error::HttpStatus { status: 401 }), "{e:?}");
        for bad in [
            &b"{"[..],
            b"[]",
            br#"{"status":200}"#,
            br#"{"status":"x"}"#,
            br#"{"status":"200","playercount":-1}"#,
        ] {
            assert!(decode_status(bad).is_err(), "{bad:?}");
        }
    }
}
