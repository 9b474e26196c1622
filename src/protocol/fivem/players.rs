//! FiveM's `/players.json` (plain HTTP over TCP on the game port), fetched after `getinfo`
//! when the target publishes players (`players = true`). Best effort: the counts always come
//! from `getinfo`'s `clients`; this only names who is on.
//!
//! # Format
//! ```text
//! GET /players.json
//! 200  [{"endpoint":"203.0.113.9:51234","id":1,"identifiers":["license:..."],
//!        "name":"Franklin","ping":40}, ...]
//! ```
//! Current servers leave `identifiers` (and often `endpoint`) out unless
//! `sv_exposePlayerIdentifiersInHttpEndpoint` is set; some hide the whole list (`[]`). Neither
//! identifiers nor endpoints are read: only names and pings.

use std::time::Duration;

use serde::Deserialize;

use crate::protocol::exchange::Error;
use crate::protocol::http::fetch::Api;
use crate::protocol::http::then::FollowUp;
use crate::protocol::http::{encode_request, Response};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

pub const PATH: &str = "/players.json";
/// Where a failed fetch is noted in the status's extras (`query --json`).
pub const ERROR_KEY: &str = "players_error";
/// Set in the extras when the list came back empty while `clients` said someone is on.
pub const HIDDEN_KEY: &str = "players_hidden";

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    name: String,
    #[serde(default)]
    ping: Option<f64>,
}

/// Decodes a `/players.json` body: names and pings (a ping that is no finite non-negative
/// number is left out). Anything but a JSON array of objects is malformed.
pub fn decode_players(body: &[u8]) -> Result<Vec<Player>, Error> {
    let list: Vec<Entry> = serde_json::from_slice(body)
        .map_err(|_| Error::from(DecodeError::Invalid("FiveM players.json")))?;
    Ok(list
        .into_iter()
        .map(|e| Player {
            name: e.name,
            id: None,
            score: None,
            duration: None,
            ping: e
                .ping
                .filter(|p| p.is_finite() && *p >= 0.0)
                .map(|p| p.round().min(f64::from(u32::MAX)) as u32),
        })
        .collect())
}

/// What the list adds to `getinfo`'s status: the players when the list names them; nothing
/// when it is empty although `clients` says someone is on (a hidden list: never taken for
/// "nobody"), marked under [`HIDDEN_KEY`]. The counts stay `getinfo`'s.
pub fn merge(status: &mut Status, list: Vec<Player>) {
    if list.is_empty() && status.online > 0 {
        crate::protocol::exchange::debug!(
            online = status.online,
            "FiveM players.json is empty while clients > 0: the list is hidden"
        );
        status.extras.insert(HIDDEN_KEY.into(), true.into());
        return;
    }
    status.players = Some(list);
}

/// The `/players.json` step of a FiveM poll.
#[derive(Debug)]
pub struct PlayersApi {
    wanted: bool,
    first: Option<Status>,
    list: Option<Vec<Player>>,
}

impl PlayersApi {
    /// `wanted`: the target publishes players (`players = true`).
    pub fn new(wanted: bool) -> PlayersApi {
        PlayersApi {
            wanted,
            first: None,
            list: None,
        }
    }
}

impl Api for PlayersApi {
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
        if i > 0 {
            return None;
        }
        encode_request("GET", PATH, &[("Accept", "application/json")], b"", out);
        Some("GET /players.json")
    }

    fn response(&mut self, _i: usize, response: &Response<'_>) -> Result<(), Error> {
        self.list = Some(decode_players(response.json()?)?);
        Ok(())
    }

    fn best_effort(&self, _i: usize) -> Option<&'static str> {
        Some(ERROR_KEY)
    }

    fn status(&mut self, _latency: Duration) -> Result<Status, Error> {
        // The latency stays getinfo's.
        let mut status = self.first.take().unwrap_or_default();
        if let Some(list) = self.list.take() {
            merge(&mut status, list);
        }
        Ok(status)
    }
}

impl FollowUp for PlayersApi {
    fn wanted(&self) -> bool {
        self.wanted
    }

    fn first(&mut self, status: Status) {
        self.first = Some(status);
    }

    /// Connecting failing (no TCP side, a firewall) keeps `getinfo`'s status too.
    fn optional(&self) -> Option<&'static str> {
        Some(ERROR_KEY)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An entry field by field; identifiers and endpoints are not read.
    #[test]
    fn decodes_entries() {
        let p = decode_players(
            br#"[{"endpoint":"203.0.113.9:51234","id":1,"identifiers":["license:ab"],"name":"Franklin","ping":40},
                 {"id":2,"identifiers":[],"name":"Trevor","ping":-1},{"name":"Lamar"}]"#,
        )
        .unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(
            (p[0].name.as_str(), p[0].ping, p[0].id.as_deref()),
            ("Franklin", Some(40), None)
        );
        assert_eq!((p[1].name.as_str(), p[1].ping), ("Trevor", None));
        assert_eq!((p[2].name.as_str(), p[2].ping), ("Lamar", None));
        for bad in [&b"{}"[..], b"[1]", b"[", b"\"x\""] {
            assert!(decode_players(bad).is_err(), "{bad:?}");
        }
    }

    /// An empty list with clients on is hidden, not "nobody"; with nobody on it is the list.
    #[test]
    fn hidden_list() {
        let mut s = Status {
            online: 3,
            ..Status::default()
        };
        merge(&mut s, Vec::new());
        assert_eq!((s.online, s.players.is_none()), (3, true));
        assert_eq!(s.extras[HIDDEN_KEY], true);
        let mut s = Status::default();
        merge(&mut s, Vec::new());
        assert_eq!(s.players, Some(Vec::new()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Arbitrary bytes never panic.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_players(&bytes);
        }

        /// Names and whole pings written as JSON read back.
        #[test]
        fn round_trip(list in proptest::collection::vec(("\\PC{0,20}", 0u32..100_000), 0..20)) {
            let body = serde_json::Value::Array(list.iter().map(|(n, p)| {
                serde_json::json!({"id": 1, "identifiers": [], "name": n, "ping": p})
            }).collect()).to_string();
            let got = decode_players(body.as_bytes()).unwrap();
            let got: Vec<(String, Option<u32>)> = got.into_iter().map(|p| (p.name, p.ping)).collect();
            let want: Vec<(String, Option<u32>)> = list.into_iter().map(|(n, p)| (n, Some(p))).collect();
            prop_assert_eq!(got, want);
        }
    }
}
