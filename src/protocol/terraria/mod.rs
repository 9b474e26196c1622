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
    /// A string since TShock 5 (`"5.2.0.0"`); TShock 4 serializes .NET's `Version` as an
    /// object (`{"Major":4,"Minor":5,"Build":10,"Revision":0,...}`), read as `4.5.10.0`.
    #[serde(default, deserialize_with = "version_text")]
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

/// `tshockversion` as text, from a string or from .NET's `Version` object; anything else
/// (a number, an array) is left out rather than failing the whole status.
fn version_text<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let value = serde_json::Value::deserialize(d)?;
    Ok(match value {
        serde_json::Value::String(s) => Some(s),
        serde_json::Value::Object(o) => {
            let part = |k: &str| o.get(k).and_then(serde_json::Value::as_i64);
            let parts: Vec<String> = ["Major", "Minor", "Build", "Revision"]
                .into_iter()
                .map_while(part)
                .filter(|n| *n >= 0)
                .map(|n| n.to_string())
                .collect();
            (!parts.is_empty()).then(|| parts.join("."))
        }
        _ => None,
    })
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
    // TShock 4 leaves `name` empty unless the owner set one: the world names the server then.
    let name = match (s.name.is_empty(), &s.world) {
        (true, Some(world)) => world.clone(),
        _ => s.name,
    };
    let mut out = Status {
        online: s.playercount,
        max: s.maxplayers,
        name,
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

    /// A TShock 4.5.10 answer as a live server gave it (quoted in a public Terraria status
    /// bot's source, found through code search): the version is .NET's `Version` object and
    /// the name is empty. It used to be refused whole as malformed.
    #[test]
    fn tshock_4_version_object_and_empty_name() {
        let body = br#"{
            "status": "200",
            "name": "",
            "serverversion": "v1.4.3.2",
            "tshockversion": {
              "Major": 4,
              "Minor": 5,
              "Build": 10,
              "Revision": 0,
              "MajorRevision": 0,
              "MinorRevision": 0
            },
            "port": 7777,
            "playercount": 0,
            "maxplayers": 8,
            "world": "Solaire",
            "uptime": "12.00:06:41",
            "serverpassword": true
          }"#;
        let s = decode_status(body).unwrap();
        assert_eq!(s.tshockversion.as_deref(), Some("4.5.10.0"));
        let status = to_status(s, Duration::ZERO, false);
        assert_eq!(status.name, "Solaire");
        assert_eq!(status.map.as_deref(), Some("Solaire"));
        assert_eq!((status.online, status.max), (0, 8));
        assert_eq!(status.password, Some(true));
        assert_eq!(status.extras["tshock_version"], "4.5.10.0");
        // A version that is neither text nor an object is left out, not fatal.
        let odd =
            br#"{"status":"200","name":"n","tshockversion":[4,3],"playercount":1,"maxplayers":2}"#;
        assert_eq!(decode_status(odd).unwrap().tshockversion, None);
    }
}
