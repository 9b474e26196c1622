//! `GET /api/v1/targets`: every target of this replica with its last result, as one JSON
//! document, for game panels (Pterodactyl, Pelican) that show live counts for many servers
//! and would otherwise poll `/health` once per server. `?target=NAME` (repeatable) picks
//! targets. The schema is documented field by field in `docs/http-api.md`; a change that
//! breaks a reader gets a new path (`/api/v2/`), additions keep `version` 1.
//!
//! At 100,000 targets the document is tens of MB, so it is written while it is sent (the
//! caller streams it as `/metrics` and `/sd` are) and no JSON tree is built: strings go
//! through serde_json's escaper one at a time, as on `/sd`. Server-supplied texts (server
//! name, map, game, version, failure detail) lose control characters and direction
//! overrides first ([`crate::text::hidden`]), as in metric labels, so a panel showing them
//! shows what `/metrics` shows.

use std::borrow::Cow;
use std::io::{self, Write};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::state::{Entry, Outcome, State};

/// The schema version in every document; bumped only with a new path.
pub const VERSION: u32 = 1;

/// What the document says about the replica answering.
#[derive(Debug, Clone, Default)]
pub struct Replica {
    /// `INDEX/COUNT` when sharded, `None` otherwise.
    pub shard: Option<String>,
}

/// Why a selection was refused: a named target this replica does not poll.
#[derive(Debug, Clone, PartialEq)]
pub struct Unknown {
    pub target: String,
    /// The shard that polls it, when it is another replica's target.
    pub shard: Option<String>,
}

impl Unknown {
    /// The 404 body, shaped like `/health`'s.
    pub fn to_json(&self) -> String {
        let doc = match &self.shard {
            Some(shard) => serde_json::json!({
                "error": "target belongs to another shard",
                "target": self.target,
                "shard": shard,
            }),
            None => serde_json::json!({ "error": "unknown target", "target": self.target }),
        };
        doc.to_string()
    }
}

/// The entries `query` asks for: every target without a `target` parameter, else the named
/// ones in the order named. `owner` names the shard polling a target this replica does not.
pub fn select(
    state: &State,
    query: &[(String, String)],
    owner: impl Fn(&str) -> Option<String>,
) -> Result<Vec<Arc<Entry>>, Unknown> {
    let mut named = query.iter().filter(|(k, _)| k == "target").peekable();
    if named.peek().is_none() {
        return Ok(state.snapshot());
    }
    named
        .map(|(_, name)| {
            state.get(name).ok_or_else(|| Unknown {
                target: name.clone(),
                shard: owner(name),
            })
        })
        .collect()
}

/// Writes the document for `entries` to `sink`, `now` being its `generated` time.
pub fn write(
    entries: &[Arc<Entry>],
    replica: &Replica,
    now: SystemTime,
    sink: &mut dyn Write,
) -> io::Result<()> {
    // Many small writes: batched before they reach the compressor or the chunk queue.
    let mut out = io::BufWriter::with_capacity(16 * 1024, sink);
    let (mut up, mut down) = (0usize, 0usize);
    for e in entries {
        match e.last {
            Some(Outcome::Up(_)) => up += 1,
            Some(Outcome::Down(_)) => down += 1,
            None => {}
        }
    }
    write!(out, "{{\"version\":{VERSION},\"generated\":")?;
    opt_num(&mut out, unix_seconds(now))?;
    out.write_all(b",\"shard\":")?;
    opt_str(&mut out, replica.shard.as_deref())?;
    write!(
        out,
        ",\"counts\":{{\"targets\":{},\"up\":{up},\"down\":{down},\"pending\":{}}},\"targets\":[",
        entries.len(),
        entries.len() - up - down
    )?;
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        target(&mut out, e)?;
    }
    out.write_all(b"]}")?;
    out.flush()
}

/// One target's object.
fn target(out: &mut impl Write, e: &Entry) -> io::Result<()> {
    let t = &e.meta.target;
    out.write_all(b"{\"name\":")?;
    string(out, &t.name)?;
    out.write_all(b",\"protocol\":")?;
    string(out, t.protocol.as_str())?;
    out.write_all(b",\"address\":")?;
    string(out, &t.address.to_string())?;
    out.write_all(b",\"game\":")?;
    opt_str(out, t.game)?;
    out.write_all(b",\"labels\":{")?;
    for (i, (k, v)) in t.labels.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        string(out, k)?;
        out.write_all(b":")?;
        string(out, v)?;
    }
    out.write_all(b"},\"interval_seconds\":")?;
    number(out, t.interval.as_secs_f64())?;
    let state = match &e.last {
        Some(Outcome::Up(_)) => "up",
        Some(Outcome::Down(_)) => "down",
        None => "pending",
    };
    write!(
        out,
        ",\"state\":\"{state}\",\"up\":{},\"polls\":{}",
        state == "up",
        e.queries
    )?;
    let up = match &e.last {
        Some(Outcome::Up(s)) => Some(s),
        _ => None,
    };
    out.write_all(b",\"players\":")?;
    opt_num(out, up.map(|s| s.online))?;
    out.write_all(b",\"max_players\":")?;
    opt_num(out, up.and_then(|s| s.capacity()))?;
    out.write_all(b",\"bots\":")?;
    opt_num(out, up.and_then(|s| s.bots))?;
    out.write_all(b",\"queued\":")?;
    opt_num(out, up.and_then(|s| s.queued))?;
    let texts = [
        ("server_name", up.map(|s| s.name())),
        ("map", up.map(|s| s.map())),
        ("server_game", up.map(|s| s.game())),
        ("server_version", up.map(|s| s.version())),
    ];
    for (key, text) in texts {
        write!(out, ",\"{key}\":")?;
        opt_str(out, text.map(shown).filter(|s| !s.is_empty()).as_deref())?;
    }
    out.write_all(b",\"latency_seconds\":")?;
    match up {
        Some(s) => number(out, s.latency().as_secs_f64())?,
        None => out.write_all(b"null")?,
    }
    out.write_all(b",\"last_success\":")?;
    opt_num(out, e.last_success().and_then(unix_seconds))?;
    let failure = match &e.last {
        Some(Outcome::Down(f)) => Some(f),
        _ => None,
    };
    out.write_all(b",\"last_failure_reason\":")?;
    opt_str(out, failure.map(|f| f.reason.as_str()))?;
    out.write_all(b",\"last_failure_detail\":")?;
    opt_str(out, failure.map(|f| shown(&f.detail)).as_deref())?;
    out.write_all(b"}")
}

/// A server's text as published: without the characters [`crate::text::hidden`] drops.
fn shown(s: &str) -> Cow<'_, str> {
    if s.chars().any(crate::text::hidden) {
        Cow::Owned(s.chars().filter(|&c| !crate::text::hidden(c)).collect())
    } else {
        Cow::Borrowed(s)
    }
}

/// A JSON string, escaped by serde_json (quotes, backslashes, every control character).
fn string(out: &mut impl Write, s: &str) -> io::Result<()> {
    serde_json::to_writer(out, s).map_err(io::Error::from)
}

fn opt_str(out: &mut impl Write, s: Option<&str>) -> io::Result<()> {
    match s {
        Some(s) => string(out, s),
        None => out.write_all(b"null"),
    }
}

fn opt_num(out: &mut impl Write, n: Option<impl Into<u64>>) -> io::Result<()> {
    match n {
        Some(n) => write!(out, "{}", n.into()),
        None => out.write_all(b"null"),
    }
}

/// A finite float as serde_json writes it (shortest form that reads back exactly).
fn number(out: &mut impl Write, x: f64) -> io::Result<()> {
    serde_json::to_writer(out, &x).map_err(io::Error::from)
}

/// Whole seconds since the Unix epoch; `None` before it (a clock set far back).
fn unix_seconds(t: SystemTime) -> Option<u64> {
    t.duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::time::Duration;

    use serde_json::{json, Value};

    use crate::state::TargetMeta;
    use crate::status::{Failure, Reason, Status};
    use crate::target::{Address, Protocol, Target};

    const T0: u64 = 1_767_225_600;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn add(state: &State, target: Target) -> Arc<TargetMeta> {
        let meta = Arc::new(TargetMeta::new(target));
        state.insert(meta.clone());
        meta
    }

    fn doc(entries: &[Arc<Entry>], shard: Option<&str>) -> Value {
        let mut out = Vec::new();
        let replica = Replica {
            shard: shard.map(str::to_string),
        };
        write(entries, &replica, at(T0 + 60), &mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    /// Up, down and pending targets: every field, with its null rules.
    #[test]
    fn every_field() {
        let state = State::default();
        let rust = Target {
            labels: BTreeMap::from([("region".to_string(), "eu".to_string())]),
            game: Some("rust"),
            ..Target::new(
                "rust-eu",
                Protocol::A2s,
                Address::parse("rust.example.net:28015").unwrap(),
            )
        };
        let up = add(&state, rust);
        let down = add(
            &state,
            Target::new(
                "mc",
                Protocol::Minecraft,
                Address::parse("10.0.0.2").unwrap(),
            ),
        );
        add(
            &state,
            Target::new(
                "new",
                Protocol::Mumble,
                Address::parse("[::1]:64738").unwrap(),
            ),
        );
        let status = Status {
            online: 87,
            max: 200,
            bots: Some(3),
            name: "Rust EU".into(),
            map: Some("Procedural Map".into()),
            game: Some("Rust".into()),
            version: None,
            latency: Duration::from_millis(31),
            ..Status::default()
        };
        state.record(&up, Ok(status), Duration::from_millis(40), at(T0));
        state.record(&down, Ok(Status::default()), Duration::ZERO, at(T0 - 30));
        let fail = Failure::new(Reason::Timeout, "no reply in 5s");
        state.record(&down, Err(fail), Duration::from_secs(5), at(T0));
        let v = doc(&state.snapshot(), None);
        assert_eq!(
            v,
            json!({
                "version": 1, "generated": T0 + 60, "shard": null,
                "counts": {"targets": 3, "up": 1, "down": 1, "pending": 1},
                "targets": [
                    {"name": "mc", "protocol": "minecraft", "address": "10.0.0.2", "game": null,
                     "labels": {}, "interval_seconds": 15.0, "state": "down", "up": false,
                     "polls": 2, "players": null, "max_players": null, "bots": null,
                     "queued": null, "server_name": null, "map": null, "server_game": null,
                     "server_version": null, "latency_seconds": null, "last_success": T0 - 30,
                     "last_failure_reason": "timeout", "last_failure_detail": "no reply in 5s"},
                    {"name": "new", "protocol": "mumble", "address": "[::1]:64738", "game": null,
                     "labels": {}, "interval_seconds": 15.0, "state": "pending", "up": false,
                     "polls": 0, "players": null, "max_players": null, "bots": null,
                     "queued": null, "server_name": null, "map": null, "server_game": null,
                     "server_version": null, "latency_seconds": null, "last_success": null,
                     "last_failure_reason": null, "last_failure_detail": null},
                    {"name": "rust-eu", "protocol": "a2s", "address": "rust.example.net:28015",
                     "game": "rust", "labels": {"region": "eu"}, "interval_seconds": 15.0,
                     "state": "up", "up": true, "polls": 1, "players": 87, "max_players": 200,
                     "bots": 3, "queued": null, "server_name": "Rust EU",
                     "map": "Procedural Map", "server_game": "Rust", "server_version": null,
                     "latency_seconds": 0.031, "last_success": T0,
                     "last_failure_reason": null, "last_failure_detail": null}
                ]
            })
        );
        let empty = doc(&[], Some("2/3"));
        assert_eq!(empty["shard"], "2/3");
        assert_eq!(empty["targets"], json!([]));
        assert_eq!(
            empty["counts"],
            json!({"targets": 0, "up": 0, "down": 0, "pending": 0})
        );
    }

    /// A capacity the server does not report (Factorio's 0) is unknown, as `bots` is when
    /// the protocol has none: `null` here, and no `gameserver_players_max` sample on the
    /// metrics page (the family stays, with its HELP); a reported one is both.
    #[test]
    fn unknown_capacity_is_null_and_absent() {
        use crate::metrics::{render_probe, Format};
        let state = State::default();
        let t = |name: &str| {
            Target::new(
                name,
                Protocol::Factorio,
                Address::parse("10.0.0.1").unwrap(),
            )
        };
        let open = add(&state, t("open"));
        let capped = add(&state, t("capped"));
        let status = |max| Status {
            online: 11,
            max,
            ..Status::default()
        };
        state.record(&open, Ok(status(0)), Duration::ZERO, at(T0));
        state.record(&capped, Ok(status(64)), Duration::ZERO, at(T0));
        let snapshot = state.snapshot();
        let v = doc(&snapshot, None);
        let targets = v["targets"].as_array().unwrap();
        let by = |n: &str| targets.iter().find(|t| t["name"] == n).unwrap().clone();
        assert_eq!(by("open")["max_players"], Value::Null);
        assert_eq!(by("open")["players"], 11);
        assert_eq!(by("capped")["max_players"], 64);
        let entry = |n: &str| {
            snapshot
                .iter()
                .find(|e| e.meta.target.name == n)
                .unwrap()
                .clone()
        };
        let open = render_probe(Format::Text, &entry("open"));
        assert!(
            open.contains("# TYPE gameserver_players_max gauge\n"),
            "{open}"
        );
        assert!(!open.contains("gameserver_players_max{"), "{open}");
        assert!(open.contains("gameserver_players_online{"), "{open}");
        let capped = render_probe(Format::Text, &entry("capped"));
        assert!(capped.contains("gameserver_players_max{"), "{capped}");
        assert!(capped.contains("} 64\n"), "{capped}");
    }

    /// Hostile server strings and names parse back: quotes, backslashes and controls escaped,
    /// direction overrides and controls dropped from server texts (as in labels), U+2028 and
    /// U+2029 kept (valid JSON, and `JSON.parse` takes them).
    #[test]
    fn hostile_strings_round_trip() {
        let state = State::default();
        let name = "a\"b\\c\n\u{1}</script>\u{2028}ü";
        let meta = add(
            &state,
            Target {
                labels: BTreeMap::from([("k\"".to_string(), "v\u{0}\u{7f}".to_string())]),
                ..Target::new(name, Protocol::A2s, Address::parse("127.0.0.1:1").unwrap())
            },
        );
        let status = Status {
            name: "x\u{202e}y\"\\\u{1b}[31m\u{2029}z".into(),
            map: Some("\u{0}".into()),
            ..Status::default()
        };
        state.record(&meta, Ok(status), Duration::ZERO, at(T0));
        let v = doc(&state.snapshot(), None);
        let t = &v["targets"][0];
        assert_eq!(t["name"], name);
        assert_eq!(t["labels"]["k\""], "v\u{0}\u{7f}");
        assert_eq!(t["server_name"], "xy\"\\[31m\u{2029}z");
        // Nothing left of the map once its control character is dropped: absent.
        assert_eq!(t["map"], Value::Null);
    }

    /// No `target` parameter: everything; named ones in the order named; an unknown one
    /// refuses the lot, naming the owning shard when there is one.
    #[test]
    fn selection() {
        let state = State::default();
        for n in ["a", "b", "c"] {
            add(
                &state,
                Target::new(n, Protocol::A2s, Address::parse("127.0.0.1:1").unwrap()),
            );
        }
        let q = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let names = |r: Result<Vec<Arc<Entry>>, Unknown>| -> Vec<String> {
            r.unwrap()
                .iter()
                .map(|e| e.meta.target.name.clone())
                .collect()
        };
        let nowhere = |_: &str| None;
        assert_eq!(names(select(&state, &q(&[]), nowhere)), ["a", "b", "c"]);
        assert_eq!(
            names(select(&state, &q(&[("x", "1")]), nowhere)),
            ["a", "b", "c"]
        );
        assert_eq!(
            names(select(
                &state,
                &q(&[("target", "c"), ("target", "a")]),
                nowhere
            )),
            ["c", "a"]
        );
        let refused = select(&state, &q(&[("target", "a"), ("target", "z")]), |n| {
            (n == "z").then(|| "1/2".to_string())
        })
        .unwrap_err();
        assert_eq!(
            refused,
            Unknown {
                target: "z".into(),
                shard: Some("1/2".into())
            }
        );
        let body: Value = serde_json::from_str(&refused.to_json()).unwrap();
        assert_eq!(
            body,
            json!({"error": "target belongs to another shard", "target": "z", "shard": "1/2"})
        );
        let unknown = select(&state, &q(&[("target", "z")]), nowhere).unwrap_err();
        let body: Value = serde_json::from_str(&unknown.to_json()).unwrap();
        assert_eq!(body, json!({"error": "unknown target", "target": "z"}));
    }
}
