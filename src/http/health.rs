//! `GET /health?target=NAME`: one target's last poll as a status code and a small JSON
//! document, for uptime tools (Uptime Kuma, Gatus, Kener) that judge a check by HTTP status
//! and optionally a JSON path.
//!
//! ```json
//! {"target":"rust-eu","up":true,"players":87,"max":200,"latency_seconds":0.031,
//!  "last_success":1767225600,"last_failure_reason":null}
//! ```
//!
//! - 200: the last poll succeeded.
//! - 503, same document: the last poll failed (`up` false, `last_failure_reason` one of the
//!   closed set of reasons, as in `gameserver_query_failures_total`), or the target has not
//!   been polled yet since start or since a reload changed it (`up` false, reason
//!   `null`): an uptime tool should not count a server as up before anyone has seen it.
//! - 404: no target of that name; 400: no `target` parameter.
//!
//! `last_success` is the last successful poll in Unix seconds, kept across failures (it says
//! since when a server is down), `null` if none since the target was (re)configured.

use std::time::UNIX_EPOCH;

use hyper::StatusCode;
use serde_json::json;

use crate::state::{Outcome, State};

/// The status code and JSON body for `target`.
/// `owner` names the shard that polls `target` when this replica does not (sharded replicas
/// answer 404 for the others' targets, and say where to look, as `/probe` does).
pub fn health(state: &State, target: Option<&str>, owner: Option<String>) -> (StatusCode, String) {
    let Some(name) = target else {
        let body = json!({ "error": "want /health?target=NAME" });
        return (StatusCode::BAD_REQUEST, body.to_string());
    };
    let Some(entry) = state.get(name) else {
        let body = match owner {
            Some(shard) => {
                json!({ "error": "target belongs to another shard", "target": name, "shard": shard })
            }
            None => json!({ "error": "unknown target", "target": name }),
        };
        return (StatusCode::NOT_FOUND, body.to_string());
    };
    let last_success = entry
        .last_success()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_secs());
    let (code, up, players, max, latency, reason) = match &entry.last {
        Some(Outcome::Up(s)) => (
            StatusCode::OK,
            true,
            Some(s.online),
            Some(s.max),
            Some(s.latency().as_secs_f64()),
            None,
        ),
        Some(Outcome::Down(f)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            false,
            None,
            None,
            None,
            Some(f.reason.as_str()),
        ),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            false,
            None,
            None,
            None,
            None,
        ),
    };
    let body = json!({
        "target": name,
        "up": up,
        "players": players,
        "max": max,
        "latency_seconds": latency,
        "last_success": last_success,
        "last_failure_reason": reason,
    });
    (code, body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    use crate::state::TargetMeta;
    use crate::status::{Failure, Reason, Status};
    use crate::target::{Address, Protocol, Target};

    fn state_with(name: &str) -> (State, Arc<TargetMeta>) {
        let s = State::default();
        let address = Address::parse("127.0.0.1:1").unwrap();
        let meta = Arc::new(TargetMeta::new(Target::new(name, Protocol::A2s, address)));
        s.insert(meta.clone());
        (s, meta)
    }

    fn doc(body: &str) -> serde_json::Value {
        serde_json::from_str(body).unwrap()
    }

    /// Pending, up, then down: codes and every field.
    #[test]
    fn lifecycle() {
        let (s, meta) = state_with("rust-eu");
        let (code, body) = health(&s, Some("rust-eu"), None);
        assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            doc(&body),
            json!({"target": "rust-eu", "up": false, "players": null, "max": null,
                   "latency_seconds": null, "last_success": null, "last_failure_reason": null})
        );

        let t0 = UNIX_EPOCH + Duration::from_secs(1_767_225_600);
        let status = Status {
            online: 87,
            max: 200,
            latency: Duration::from_millis(31),
            ..Status::default()
        };
        s.record(&meta, Ok(status), Duration::from_millis(40), t0);
        let (code, body) = health(&s, Some("rust-eu"), None);
        assert_eq!(code, StatusCode::OK);
        assert_eq!(
            doc(&body),
            json!({"target": "rust-eu", "up": true, "players": 87, "max": 200,
                   "latency_seconds": 0.031, "last_success": 1_767_225_600u64, "last_failure_reason": null})
        );

        let fail = Failure::new(Reason::Timeout, "no reply");
        s.record(
            &meta,
            Err(fail),
            Duration::from_secs(5),
            t0 + Duration::from_secs(15),
        );
        let (code, body) = health(&s, Some("rust-eu"), None);
        assert_eq!(code, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(
            doc(&body),
            json!({"target": "rust-eu", "up": false, "players": null, "max": null,
                   "latency_seconds": null, "last_success": 1_767_225_600u64,
                   "last_failure_reason": "timeout"})
        );
    }

    /// Unknown name 404 (naming the owning shard when there is one), missing parameter 400.
    #[test]
    fn unknown_and_missing() {
        let (s, _) = state_with("a");
        let (code, body) = health(&s, Some("b"), None);
        assert_eq!(code, StatusCode::NOT_FOUND);
        assert_eq!(doc(&body)["error"], "unknown target");
        // A sharded replica names the shard that polls the target.
        let (code, body) = health(&s, Some("b"), Some("2/3".into()));
        assert_eq!(code, StatusCode::NOT_FOUND);
        assert_eq!(doc(&body)["error"], "target belongs to another shard");
        assert_eq!(doc(&body)["shard"], "2/3");
        let (code, _) = health(&s, None, None);
        assert_eq!(code, StatusCode::BAD_REQUEST);
    }
}
