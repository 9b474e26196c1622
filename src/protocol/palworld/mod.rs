//! Palworld's REST API (`docs/protocols/palworld.md`): HTTP basic auth (`admin` and the
//! server's AdminPassword), JSON answers.
//!
//! # Format
//! ```text
//! GET /v1/api/info     {"version": "v0.3.11.0", "servername": "...", "description": "...",
//!                       "worldguid": "..."}
//! GET /v1/api/metrics  {"serverfps": 58, "currentplayernum": 3, "serverframetime": 17.2,
//!                       "maxplayernum": 32, "uptime": 3600, "days": 12}
//! GET /v1/api/players  {"players": [{"name": "...", "accountName": "...", "playerId": "...",
//!                       "userId": "steam_...", "ip": "...", "ping": 31.5, "location_x": ...,
//!                       "location_y": ..., "level": 12, "building_count": 3}]}
//! ```
//! `serverframetime` is milliseconds; `uptime` seconds; `days` the in-game day (newer
//! servers). A wrong password is HTTP 401.

pub mod exchange;
pub mod spec;

use serde::{Deserialize, Serialize};

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;
use crate::status::Player;

pub const INFO_PATH: &str = "/v1/api/info";
pub const METRICS_PATH: &str = "/v1/api/metrics";
pub const PLAYERS_PATH: &str = "/v1/api/players";
/// The user name the REST API accepts.
pub const USER: &str = "admin";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Info {
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub servername: String,
    #[serde(default)]
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub currentplayernum: u32,
    pub maxplayernum: u32,
    #[serde(default)]
    pub serverfps: Option<f64>,
    /// Milliseconds.
    #[serde(default)]
    pub serverframetime: Option<f64>,
    #[serde(default)]
    pub uptime: Option<u64>,
    #[serde(default)]
    pub days: Option<u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Players {
    pub players: Vec<PalPlayer>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PalPlayer {
    pub name: String,
    #[serde(default, rename = "userId")]
    pub user_id: Option<String>,
    #[serde(default)]
    pub ping: Option<f64>,
    #[serde(default)]
    pub level: Option<i64>,
}

fn json<'a, T: Deserialize<'a>>(body: &'a [u8], what: &'static str) -> Result<T, Error> {
    serde_json::from_slice(body).map_err(|_| DecodeError::Invalid(what).into())
}

pub fn decode_info(body: &[u8]) -> Result<Info, Error> {
    json(body, "Palworld info JSON")
}

pub fn decode_metrics(body: &[u8]) -> Result<Metrics, Error> {
    let m: Metrics = json(body, "Palworld metrics JSON")?;
    let finite = |v: Option<f64>| v.is_none_or(|v| v.is_finite() && v >= 0.0);
    if !finite(m.serverfps) || !finite(m.serverframetime) {
        return Err(DecodeError::Invalid("Palworld metrics value").into());
    }
    Ok(m)
}

pub fn decode_players(body: &[u8]) -> Result<Vec<Player>, Error> {
    let p: Players = json(body, "Palworld players JSON")?;
    Ok(p.players
        .into_iter()
        .map(|p| Player {
            name: p.name,
            id: p.user_id,
            score: p.level,
            duration: None,
            ping: p
                .ping
                .filter(|v| v.is_finite() && *v >= 0.0)
                .map(|v| v.round().min(f64::from(u32::MAX)) as u32),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each endpoint's answer, field by field.
    #[test]
    fn decodes_endpoints() {
        let i = decode_info(
            br#"{"version":"v0.3.11.0","servername":"Pal Sim","description":"d","worldguid":"x"}"#,
        )
        .unwrap();
        assert_eq!(
            (i.servername.as_str(), i.version.as_deref()),
            ("Pal Sim", Some("v0.3.11.0"))
        );
        let m = decode_metrics(br#"{"serverfps":58,"currentplayernum":3,"serverframetime":17.25,"maxplayernum":32,"uptime":3600,"days":12,"basecampnum":1}"#).unwrap();
        assert_eq!((m.currentplayernum, m.maxplayernum), (3, 32));
        assert_eq!((m.serverfps, m.serverframetime), (Some(58.0), Some(17.25)));
        assert_eq!((m.uptime, m.days), (Some(3600), Some(12)));
        let p = decode_players(br#"{"players":[{"name":"Zoe","accountName":"z","playerId":"1","userId":"steam_1","ip":"1.2.3.4","ping":31.6,"location_x":1.0,"location_y":2.0,"level":12,"building_count":3}]}"#).unwrap();
        assert_eq!(p[0].name, "Zoe");
        assert_eq!(p[0].id.as_deref(), Some("steam_1"));
        assert_eq!((p[0].ping, p[0].score), (Some(32), Some(12)));
    }

    #[test]
    fn junk_is_malformed() {
        for bad in [
            &b"{"[..],
            b"[]",
            br#"{"currentplayernum":-1,"maxplayernum":1}"#,
            br#"{"maxplayernum":1}"#,
        ] {
            assert!(decode_metrics(bad).is_err(), "{bad:?}");
        }
        assert!(decode_players(b"{}").is_err());
    }
}
