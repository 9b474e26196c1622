//! The TOML configuration: schema, defaults and validation.
//!
//! Decoding happens in two steps. serde reads the file into raw structs whose fields are
//! [`toml::Spanned`], with `deny_unknown_fields` everywhere, so a typo is an error; then
//! [`validate`] turns the raw structs into a [`Config`] and checks what serde cannot (durations,
//! protocols, addresses, encodings, label names, duplicates, timeout < interval). Every error is
//! one line naming the file, the line and the key, e.g.
//! `exporter.toml:12: target[1].timeout: 20s must be shorter than interval 15s`.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

mod include;
mod preset;

use crate::cidr::IpNet;
pub use crate::target::Target;
use crate::target::{
    Address, Limits, PlayerSeries, Protocol, DEFAULT_ENCODING, DEFAULT_INTERVAL, DEFAULT_TIMEOUT,
};
pub use include::Include;

/// Where the daemon looks for its configuration unless told otherwise.
pub const DEFAULT_PATH: &str = "/etc/gameserver-exporter/exporter.toml";
/// Our port from Prometheus' default-port allocations.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:10765";
/// Default for `exporter.http_header_timeout`.
pub const DEFAULT_HTTP_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// Highest `max_reply_bytes` accepted: one poll never holds more than this.
const MAX_REPLY_BYTES_CAP: i64 = 64 * 1024 * 1024;
/// Highest `players.max_series`: beyond this a target's player series would dwarf the rest
/// of a scrape.
const MAX_PLAYER_SERIES_CAP: i64 = 1000;
/// Names one target's `rules` may list, and the length of each.
const MAX_RULES: usize = 32;
const MAX_RULE_NAME_CHARS: usize = 64;

/// Label names the exporter sets itself or Prometheus reserves; a target's own labels may not
/// use them (nor anything starting with `__`). `metrics::families` checks in a test that every
/// label it writes is listed here.
pub const RESERVED_LABELS: [&str; 11] = [
    "target", "protocol", "name", "map", "game", "version", "reason", "job", "instance", "le",
    "quantile",
];

/// Labels only the opt-in per-player and rule series set: reserved only on a target that turns
/// the feature on, so a config that used them as its own labels before those features existed
/// still loads unchanged.
pub const PLAYER_LABELS: [&str; 1] = ["player"];
pub const RULE_LABELS: [&str; 2] = ["rule", "value"];

/// A validated configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub exporter: Exporter,
    /// The main file's targets, then each included file's, in `include` order.
    pub targets: Vec<Target>,
    /// What each `[exporter] include` pattern matched.
    pub includes: Vec<Include>,
}

/// The `[exporter]` table, defaults filled in.
#[derive(Debug, Clone, PartialEq)]
pub struct Exporter {
    pub listen: SocketAddr,
    pub interval: Duration,
    pub timeout: Duration,
    pub max_concurrent_polls: usize,
    pub limits: Limits,
    pub probe_allowed_networks: Vec<IpNet>,
    /// Deadline for an HTTP client to finish sending its request headers.
    pub http_header_timeout: Duration,
    /// `exporter.shard` (`--shard` and the environment override it, see [`crate::shard`]).
    /// The daemon stores the shard in force here.
    pub shard: Option<crate::shard::Shard>,
}

impl Exporter {
    /// A target under this `[exporter]`: its interval, timeout and limits, and the
    /// vocabulary's defaults for the rest (encoding, no extra labels).
    pub fn target(&self, name: impl Into<String>, protocol: Protocol, address: Address) -> Target {
        Target {
            interval: self.interval,
            timeout: self.timeout,
            limits: self.limits,
            ..Target::new(name, protocol, address)
        }
    }
}

/// A configuration error, already formatted as `file:line: key: message`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ConfigError {}

/// Reads and validates the file at `path` and the files it includes.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError(format!("{}: cannot read: {e}", path.display())))?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let origin = include::Origin {
        dir: path.parent().unwrap_or(Path::new("")),
        main: Some(path),
    };
    let config = parse_in(&name, &text, Some(origin))?;
    for i in config.includes.iter().filter(|i| i.files.is_empty()) {
        tracing::info!(pattern = %i.pattern, "exporter.include: the pattern matches no files");
    }
    Ok(config)
}

/// Validates `text`; `file` names it in error messages. It cannot `include` (nothing to be
/// relative to): use [`load`] for that.
pub fn parse(file: &str, text: &str) -> Result<Config, ConfigError> {
    parse_in(file, text, None)
}

fn parse_in(
    file: &str,
    text: &str,
    origin: Option<include::Origin>,
) -> Result<Config, ConfigError> {
    let raw: RawFile = decode(file, text)?;
    let ctx = Ctx { file, text };
    let patterns = raw
        .exporter
        .as_ref()
        .and_then(|e| e.include.as_deref())
        .unwrap_or_default();
    let (files, includes) = include::read(&ctx, patterns, origin)?;
    let mut included = Vec::with_capacity(files.len());
    let mut total = raw.target.len();
    for f in &files {
        let r: include::RawTargets = decode(&f.name, &f.text)?;
        total += r.target.len();
        include::check_total(&ctx, patterns[0].span(), total)?;
        included.push(r.target);
    }
    let mut sources = vec![(ctx, raw.target.as_slice())];
    for (f, targets) in files.iter().zip(&included) {
        let ctx = Ctx {
            file: &f.name,
            text: &f.text,
        };
        sources.push((ctx, targets.as_slice()));
    }
    let mut config = validate(raw.exporter.unwrap_or_default(), &sources)?;
    config.includes = includes;
    Ok(config)
}

/// serde's reading of one file, its errors located like ours (`file:line: key: message`).
fn decode<T: serde::de::DeserializeOwned>(file: &str, text: &str) -> Result<T, ConfigError> {
    toml::from_str(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let line = line_of(text, span.start);
        let msg = e.message().trim_end();
        match key_at(text, span.start) {
            Some(key) => ConfigError(format!("{file}:{line}: {key}: {msg}")),
            None => ConfigError(format!("{file}:{line}: {msg}")),
        }
    })
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn err(&self, span: Range<usize>, key: &str, msg: impl fmt::Display) -> ConfigError {
        ConfigError(format!(
            "{}:{}: {key}: {msg}",
            self.file,
            line_of(self.text, span.start)
        ))
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Names the key a parse error points into (`exporter.listen`, `target[2].foo`), from the
/// table header above it and the `key =` on its line: toml's own messages name the problem
/// but not where in our schema it sits.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let mut table = None;
    let mut targets = 0usize;
    for l in text[..line_start].lines().chain(std::iter::once(line)) {
        let l = l.trim();
        if l.starts_with("[[target]]") {
            targets += 1;
            table = Some(format!("target[{}]", targets - 1));
        } else if l.starts_with("[exporter]") {
            table = Some("exporter".to_string());
        } else if l.starts_with('[') {
            table = None;
        }
    }
    let key = (!line.starts_with('['))
        .then(|| line.split_once('=').map(|(k, _)| k.trim().to_string()))
        .flatten()
        .filter(|k| !k.is_empty());
    match (table, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (Some(t), None) => Some(t),
        (None, Some(k)) => Some(k),
        (None, None) => None,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    exporter: Option<RawExporter>,
    #[serde(default)]
    target: Vec<Spanned<RawTarget>>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawExporter {
    listen: Option<Spanned<String>>,
    interval: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    max_concurrent_polls: Option<Spanned<i64>>,
    max_reply_bytes: Option<Spanned<i64>>,
    max_split_packets: Option<Spanned<i64>>,
    max_challenges: Option<Spanned<i64>>,
    http_header_timeout: Option<Spanned<String>>,
    probe_allowed_networks: Option<Vec<Spanned<String>>>,
    include: Option<Vec<Spanned<String>>>,
    shard: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTarget {
    name: Spanned<String>,
    protocol: Option<Spanned<String>>,
    address: Spanned<String>,
    interval: Option<Spanned<String>>,
    timeout: Option<Spanned<String>>,
    encoding: Option<Spanned<String>>,
    max_reply_bytes: Option<Spanned<i64>>,
    max_split_packets: Option<Spanned<i64>>,
    labels: Option<Spanned<BTreeMap<String, String>>>,
    game: Option<Spanned<String>>,
    players: Option<Spanned<toml::Value>>,
    rules: Option<Spanned<Vec<Spanned<String>>>>,
}

fn duration(ctx: &Ctx, v: &Spanned<String>, key: &str) -> Result<Duration, ConfigError> {
    let d = humantime::parse_duration(v.get_ref()).map_err(|e| {
        ctx.err(
            v.span(),
            key,
            format!("invalid duration {:?}: {e}", v.get_ref()),
        )
    })?;
    if d.is_zero() {
        return Err(ctx.err(v.span(), key, "must be greater than zero"));
    }
    Ok(d)
}

fn int_in(
    ctx: &Ctx,
    v: &Spanned<i64>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
) -> Result<i64, ConfigError> {
    let n = *v.get_ref();
    if !range.contains(&n) {
        return Err(ctx.err(
            v.span(),
            key,
            format!("{n} is out of range {}..={}", range.start(), range.end()),
        ));
    }
    Ok(n)
}

fn show(d: Duration) -> humantime::FormattedDuration {
    humantime::format_duration(d)
}

/// `sources`: the main file's targets first (its context also locates `[exporter]` errors),
/// then each included file's.
fn validate(
    ex: RawExporter,
    sources: &[(Ctx, &[Spanned<RawTarget>])],
) -> Result<Config, ConfigError> {
    let ctx = &sources[0].0;
    let listen = match &ex.listen {
        Some(v) => v.get_ref().parse::<SocketAddr>().map_err(|_| {
            ctx.err(
                v.span(),
                "exporter.listen",
                format!("invalid socket address {:?} (want IP:PORT)", v.get_ref()),
            )
        })?,
        None => DEFAULT_LISTEN.parse().expect("constant address parses"),
    };
    let interval = match &ex.interval {
        Some(v) => duration(ctx, v, "exporter.interval")?,
        None => DEFAULT_INTERVAL,
    };
    let timeout = match &ex.timeout {
        Some(v) => duration(ctx, v, "exporter.timeout")?,
        None => DEFAULT_TIMEOUT,
    };
    if timeout >= interval {
        let span = ex
            .timeout
            .as_ref()
            .or(ex.interval.as_ref())
            .map_or(0..0, |s| s.span());
        return Err(ctx.err(
            span,
            "exporter.timeout",
            format!(
                "{} must be shorter than interval {}",
                show(timeout),
                show(interval)
            ),
        ));
    }
    let mut limits = Limits::default();
    let max_concurrent_polls = match &ex.max_concurrent_polls {
        Some(v) => int_in(ctx, v, "exporter.max_concurrent_polls", 1..=1_000_000)? as usize,
        None => 1024,
    };
    if let Some(v) = &ex.max_reply_bytes {
        limits.max_reply_bytes = int_in(
            ctx,
            v,
            "exporter.max_reply_bytes",
            1024..=MAX_REPLY_BYTES_CAP,
        )? as usize;
    }
    if let Some(v) = &ex.max_split_packets {
        limits.max_split_packets = int_in(ctx, v, "exporter.max_split_packets", 1..=255)? as u8;
    }
    if let Some(v) = &ex.max_challenges {
        limits.max_challenges = int_in(ctx, v, "exporter.max_challenges", 1..=16)? as u8;
    }
    let http_header_timeout = match &ex.http_header_timeout {
        Some(v) => duration(ctx, v, "exporter.http_header_timeout")?,
        None => DEFAULT_HTTP_HEADER_TIMEOUT,
    };
    let mut probe_allowed_networks = Vec::new();
    for (i, v) in ex.probe_allowed_networks.iter().flatten().enumerate() {
        let net = IpNet::parse(v.get_ref()).ok_or_else(|| {
            ctx.err(
                v.span(),
                &format!("exporter.probe_allowed_networks[{i}]"),
                format!(
                    "invalid network {:?} (want CIDR like 10.0.0.0/8)",
                    v.get_ref()
                ),
            )
        })?;
        probe_allowed_networks.push(net);
    }
    let shard = match &ex.shard {
        Some(v) => Some(
            crate::shard::Shard::parse(v.get_ref())
                .map_err(|e| ctx.err(v.span(), "exporter.shard", e))?,
        ),
        None => None,
    };

    let total = sources.iter().map(|(_, t)| t.len()).sum();
    let mut targets: Vec<Target> = Vec::with_capacity(total);
    // Name -> (source, byte offset) of its first use.
    let mut seen: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (source, (ctx, list)) in sources.iter().enumerate() {
        for (i, spanned) in list.iter().enumerate() {
            let t = spanned.get_ref();
            let key = |k: &str| format!("target[{i}].{k}");
            let name = t.name.get_ref().clone();
            if name.is_empty() || name.chars().any(char::is_control) {
                return Err(ctx.err(
                    t.name.span(),
                    &key("name"),
                    "must be non-empty and free of control characters",
                ));
            }
            if let Some(&(first_source, first)) = seen.get(&name) {
                let first = if first_source == source {
                    format!("line {}", line_of(ctx.text, first))
                } else {
                    let c = &sources[first_source].0;
                    format!("{}:{}", c.file, line_of(c.text, first))
                };
                return Err(ctx.err(
                    t.name.span(),
                    &key("name"),
                    format!("duplicate name {name:?} (first used at {first})"),
                ));
            }
            // The byte offset, not the line: counting lines for every target made parsing
            // quadratic in the fleet size (seconds of CPU per reload at 10,000 targets).
            seen.insert(name.clone(), (source, t.name.span().start));
            let preset::Resolved {
                protocol,
                address,
                game,
            } = preset::resolve(ctx, i, spanned.span(), t)?;
            let t_interval = match &t.interval {
                Some(v) => duration(ctx, v, &key("interval"))?,
                None => interval,
            };
            let t_timeout = match &t.timeout {
                Some(v) => duration(ctx, v, &key("timeout"))?,
                None => timeout,
            };
            if t_timeout >= t_interval {
                let span = t
                    .timeout
                    .as_ref()
                    .or(t.interval.as_ref())
                    .map_or(0..0, |s| s.span());
                return Err(ctx.err(
                    span,
                    &key("timeout"),
                    format!(
                        "{} must be shorter than interval {}",
                        show(t_timeout),
                        show(t_interval)
                    ),
                ));
            }
            let encoding = match &t.encoding {
                Some(v) => {
                    encoding_rs::Encoding::for_label(v.get_ref().as_bytes()).ok_or_else(|| {
                        ctx.err(
                            v.span(),
                            &key("encoding"),
                            format!("unknown encoding {:?}", v.get_ref()),
                        )
                    })?
                }
                None => DEFAULT_ENCODING,
            };
            let labels = match &t.labels {
                Some(v) => {
                    for name in v.get_ref().keys() {
                        if let Err(why) = check_label_name(name) {
                            return Err(ctx.err(v.span(), &key(&format!("labels.{name}")), why));
                        }
                    }
                    v.get_ref().clone()
                }
                None => BTreeMap::new(),
            };
            let mut t_limits = limits;
            if let Some(v) = &t.max_reply_bytes {
                t_limits.max_reply_bytes =
                    int_in(ctx, v, &key("max_reply_bytes"), 1024..=MAX_REPLY_BYTES_CAP)? as usize;
            }
            if let Some(v) = &t.max_split_packets {
                t_limits.max_split_packets =
                    int_in(ctx, v, &key("max_split_packets"), 1..=255)? as u8;
            }
            let players = match &t.players {
                Some(v) => player_series(ctx, v, &key("players"))?,
                None => None,
            };
            let rules = match &t.rules {
                Some(v) => rule_names(ctx, v, &key("rules"))?,
                None => Vec::new(),
            };
            let taken = PLAYER_LABELS
                .iter()
                .filter(|_| players.is_some())
                .chain(RULE_LABELS.iter().filter(|_| !rules.is_empty()))
                .find(|l| labels.contains_key(**l));
            if let (Some(l), Some(v)) = (taken, &t.labels) {
                let why = format!(
                    "label name {l:?} is reserved on a target with {}",
                    if PLAYER_LABELS.contains(l) {
                        "players"
                    } else {
                        "rules"
                    }
                );
                return Err(ctx.err(v.span(), &key(&format!("labels.{l}")), why));
            }
            targets.push(Target {
                interval: t_interval,
                timeout: t_timeout,
                encoding,
                labels,
                limits: t_limits,
                game: game.map(|g| g.id),
                players,
                rules,
                ..Target::new(name, protocol, address)
            });
        }
    }
    Ok(Config {
        exporter: Exporter {
            listen,
            interval,
            timeout,
            max_concurrent_polls,
            limits,
            probe_allowed_networks,
            http_header_timeout,
            shard,
        },
        targets,
        includes: Vec::new(),
    })
}

/// `players = true | false | { max_series = N }`.
fn player_series(
    ctx: &Ctx,
    v: &Spanned<toml::Value>,
    key: &str,
) -> Result<Option<PlayerSeries>, ConfigError> {
    let table = match v.get_ref() {
        toml::Value::Boolean(on) => return Ok(on.then(PlayerSeries::default)),
        toml::Value::Table(table) => table,
        _ => {
            return Err(ctx.err(
                v.span(),
                key,
                "expected true, false or a table like { max_series = 100 }",
            ))
        }
    };
    let mut series = PlayerSeries::default();
    for (k, value) in table {
        let k_key = format!("{key}.{k}");
        match (k.as_str(), value) {
            ("max_series", toml::Value::Integer(n)) => {
                let n = Spanned::new(v.span(), *n);
                series.max_series = int_in(ctx, &n, &k_key, 1..=MAX_PLAYER_SERIES_CAP)? as usize;
            }
            ("max_series", other) => {
                return Err(ctx.err(
                    v.span(),
                    &k_key,
                    format!("expected an integer, found {}", other.type_str()),
                ))
            }
            _ => {
                return Err(ctx.err(
                    v.span(),
                    &k_key,
                    format!("unknown field `{k}`, expected `max_series`"),
                ))
            }
        }
    }
    Ok(Some(series))
}

/// `rules = ["name", ...]`: a bounded list of distinct, printable names.
fn rule_names(
    ctx: &Ctx,
    v: &Spanned<Vec<Spanned<String>>>,
    key: &str,
) -> Result<Vec<String>, ConfigError> {
    let list = v.get_ref();
    if list.len() > MAX_RULES {
        return Err(ctx.err(
            v.span(),
            key,
            format!("{} names, at most {MAX_RULES} allowed", list.len()),
        ));
    }
    let mut names: Vec<String> = Vec::with_capacity(list.len());
    for (i, name) in list.iter().enumerate() {
        let n = name.get_ref();
        let k = format!("{key}[{i}]");
        if n.is_empty() || n.chars().any(char::is_control) {
            return Err(ctx.err(
                name.span(),
                &k,
                "must be non-empty and free of control characters",
            ));
        }
        if n.chars().count() > MAX_RULE_NAME_CHARS {
            return Err(ctx.err(
                name.span(),
                &k,
                format!("longer than {MAX_RULE_NAME_CHARS} characters"),
            ));
        }
        if names.contains(n) {
            return Err(ctx.err(name.span(), &k, format!("duplicate rule {n:?}")));
        }
        names.push(n.clone());
    }
    Ok(names)
}

fn check_label_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "invalid label name {name:?} (want [a-zA-Z_][a-zA-Z0-9_]*)"
        ));
    }
    if name.starts_with("__") {
        return Err(format!("label name {name:?} is reserved (starts with __)"));
    }
    if RESERVED_LABELS.contains(&name) {
        return Err(format!("label name {name:?} is reserved"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        parse("exporter.toml", text).unwrap_err().0
    }

    const T: &str = "[[target]]\nname = \"a\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1\"\n";

    /// A minimal file gets every documented default.
    #[test]
    fn defaults() {
        let c = parse("x", T).unwrap();
        assert_eq!(c.exporter.listen, "0.0.0.0:10765".parse().unwrap());
        assert_eq!(c.exporter.interval, Duration::from_secs(15));
        assert_eq!(c.exporter.timeout, Duration::from_secs(5));
        assert_eq!(c.exporter.max_concurrent_polls, 1024);
        assert_eq!(c.exporter.limits, Limits::default());
        assert_eq!(c.exporter.limits.max_challenges, 3);
        assert_eq!(c.exporter.http_header_timeout, Duration::from_secs(10));
        assert_eq!(c.exporter.shard, None);
        assert_eq!(c.targets.len(), 1);
        let t = &c.targets[0];
        assert_eq!(
            (t.interval, t.timeout),
            (c.exporter.interval, c.exporter.timeout)
        );
        assert_eq!(t.encoding, encoding_rs::WINDOWS_1252);
        assert_eq!(t.address, Address::parse("127.0.0.1").unwrap());
    }

    /// Every key is read and per-target overrides win.
    #[test]
    fn full() {
        let c = parse(
            "x",
            r#"
[exporter]
listen = "127.0.0.1:9999"
interval = "1m"
timeout = "2s"
max_concurrent_polls = 8
max_reply_bytes = 65536
max_split_packets = 4
max_challenges = 5
http_header_timeout = "3s"
probe_allowed_networks = ["10.0.0.0/8", "::1"]
shard = "1-of-3"

[[target]]
name = "survival"
protocol = "minecraft"
address = "mc.example.org:25566"
interval = "10s"
timeout = "3s"
encoding = "windows-1251"
max_reply_bytes = 4194304
labels = { region = "eu", tier = "1" }

[[target]]
name = "other"
protocol = "a2s"
address = "127.0.0.1"
max_split_packets = 9
"#,
        )
        .unwrap();
        assert_eq!(c.exporter.interval, Duration::from_secs(60));
        assert_eq!(c.exporter.max_concurrent_polls, 8);
        assert_eq!(c.exporter.limits.max_reply_bytes, 65536);
        assert_eq!(c.exporter.limits.max_split_packets, 4);
        assert_eq!(c.exporter.probe_allowed_networks.len(), 2);
        assert_eq!(
            c.exporter.shard,
            Some(crate::shard::Shard::new(1, 3).unwrap())
        );
        // The file names every target; which are polled is the daemon's business.
        assert_eq!(c.targets.len(), 2);
        let t = &c.targets[0];
        assert_eq!(t.protocol, Protocol::Minecraft);
        assert_eq!(t.interval, Duration::from_secs(10));
        assert_eq!(t.timeout, Duration::from_secs(3));
        assert_eq!(t.encoding, encoding_rs::WINDOWS_1251);
        assert_eq!(t.labels.get("region").map(String::as_str), Some("eu"));
        assert_eq!(t.limits.max_split_packets, 4);
        assert_eq!(t.limits.max_reply_bytes, 4194304);
        assert_eq!(t.limits.max_challenges, 5);
        assert_eq!(c.exporter.limits.max_challenges, 5);
        assert_eq!(c.exporter.http_header_timeout, Duration::from_secs(3));
        // The other target keeps the [exporter] reply cap and overrides only its own key.
        let o = &c.targets[1];
        assert_eq!(o.limits.max_reply_bytes, 65536);
        assert_eq!(o.limits.max_split_packets, 9);
    }

    /// Limits out of range are refused with the key that is wrong.
    #[test]
    fn limits_out_of_range() {
        let e = err(&format!("[exporter]\nmax_challenges = 0\n{T}"));
        assert!(
            e.contains("exporter.max_challenges: 0 is out of range 1..=16"),
            "{e}"
        );
        let e = err(&format!("{T}max_reply_bytes = 100000000\n"));
        assert!(
            e.contains("target[0].max_reply_bytes: 100000000 is out of range"),
            "{e}"
        );
        let e = err(&format!("{T}max_split_packets = 256\n"));
        assert!(
            e.contains("target[0].max_split_packets: 256 is out of range 1..=255"),
            "{e}"
        );
        let e = err(&format!("[exporter]\nhttp_header_timeout = \"0s\"\n{T}"));
        assert!(
            e.contains("exporter.http_header_timeout: must be greater than zero"),
            "{e}"
        );
    }

    /// An unknown key in [exporter] names the line and the key.
    #[test]
    fn unknown_exporter_key() {
        assert_eq!(
            err("[exporter]\ninterval = \"15s\"\nlisten_addr = \"x\"\n"),
            "exporter.toml:3: exporter.listen_addr: unknown field `listen_addr`, expected one of `listen`, `interval`, `timeout`, `max_concurrent_polls`, `max_reply_bytes`, `max_split_packets`, `max_challenges`, `http_header_timeout`, `probe_allowed_networks`, `include`, `shard`"
        );
    }

    /// An unknown key in a target names the target by index.
    #[test]
    fn unknown_target_key() {
        assert_eq!(
            err(&format!("{T}{T}port = 1\n").replacen("\"a\"", "\"b\"", 1)),
            "exporter.toml:9: target[1].port: unknown field `port`, expected one of `name`, `protocol`, `address`, `interval`, `timeout`, `encoding`, `max_reply_bytes`, `max_split_packets`, `labels`, `game`, `players`, `rules`"
        );
    }

    /// `players` and `rules`: off by default, on with the default cap, a cap of its own,
    /// the rule names in config order.
    #[test]
    fn players_and_rules() {
        let c = parse("x", T).unwrap();
        assert_eq!((c.targets[0].players, c.targets[0].rules.len()), (None, 0));
        let t = |extra: &str| parse("x", &format!("{T}{extra}")).unwrap().targets[0].clone();
        assert_eq!(
            t("players = true\n").players,
            Some(PlayerSeries { max_series: 100 })
        );
        assert_eq!(t("players = false\n").players, None);
        assert_eq!(
            t("players = { max_series = 7 }\n").players,
            Some(PlayerSeries { max_series: 7 })
        );
        assert_eq!(
            t("[target.players]\nmax_series = 1000\n").players,
            Some(PlayerSeries { max_series: 1000 })
        );
        assert_eq!(t("players = {}\n").players, Some(PlayerSeries::default()));
        assert_eq!(
            t("rules = [\"mp_timelimit\", \"sv_contact\"]\n").rules,
            ["mp_timelimit", "sv_contact"]
        );
    }

    /// Bad `players` and `rules` values are refused, each with its key.
    #[test]
    fn bad_players_and_rules() {
        for (extra, want) in [
            (
                "players = { max_series = 0 }\n",
                "exporter.toml:5: target[0].players.max_series: 0 is out of range 1..=1000",
            ),
            (
                "players = { max_series = 1001 }\n",
                "exporter.toml:5: target[0].players.max_series: 1001 is out of range 1..=1000",
            ),
            (
                "players = { max_series = \"10\" }\n",
                "exporter.toml:5: target[0].players.max_series: expected an integer, found string",
            ),
            (
                "players = { max = 10 }\n",
                "exporter.toml:5: target[0].players.max: unknown field `max`, expected `max_series`",
            ),
            (
                "players = \"yes\"\n",
                "exporter.toml:5: target[0].players: expected true, false or a table like { max_series = 100 }",
            ),
            (
                "rules = \"mp_timelimit\"\n",
                "exporter.toml:5: target[0].rules: invalid type: string \"mp_timelimit\", expected a sequence",
            ),
            (
                "rules = [\"a\", \"\"]\n",
                "exporter.toml:5: target[0].rules[1]: must be non-empty and free of control characters",
            ),
            (
                "rules = [\"a\", \"b\", \"a\"]\n",
                "exporter.toml:5: target[0].rules[2]: duplicate rule \"a\"",
            ),
        ] {
            assert_eq!(err(&format!("{T}{extra}")), want, "{extra}");
        }
        // `player`, `rule` and `value` stay a target's own labels unless it turns on the
        // feature whose series set them: configs written before those features still load.
        let own = "labels = { player = \"p\", rule = \"r\", value = \"v\" }\n";
        assert_eq!(
            parse("x", &format!("{T}{own}")).unwrap().targets[0]
                .labels
                .len(),
            3
        );
        assert_eq!(
            err(&format!("{T}players = true\nlabels = {{ player = \"p\" }}\n")),
            "exporter.toml:6: target[0].labels.player: label name \"player\" is reserved on a target with players"
        );
        assert_eq!(
            err(&format!("{T}rules = [\"a\"]\nlabels = {{ value = \"v\" }}\n")),
            "exporter.toml:6: target[0].labels.value: label name \"value\" is reserved on a target with rules"
        );
        let long = "r".repeat(65);
        assert_eq!(
            err(&format!("{T}rules = [\"{long}\"]\n")),
            "exporter.toml:5: target[0].rules[0]: longer than 64 characters"
        );
        let many: Vec<String> = (0..33).map(|i| format!("\"r{i}\"")).collect();
        assert_eq!(
            err(&format!("{T}rules = [{}]\n", many.join(", "))),
            "exporter.toml:5: target[0].rules: 33 names, at most 32 allowed"
        );
    }

    /// An unknown top-level table is refused.
    #[test]
    fn unknown_table() {
        assert_eq!(
            err("[exportr]\n"),
            "exporter.toml:1: unknown field `exportr`, expected `exporter` or `target`"
        );
    }

    /// A missing required key names the target.
    #[test]
    fn missing_key() {
        assert_eq!(
            err("[[target]]\nname = \"a\"\nprotocol = \"a2s\"\n"),
            "exporter.toml:1: target[0]: missing field `address`"
        );
    }

    /// A wrongly typed value names its key.
    #[test]
    fn wrong_type() {
        assert_eq!(
            err("[exporter]\nmax_concurrent_polls = \"many\"\n"),
            "exporter.toml:2: exporter.max_concurrent_polls: invalid type: string \"many\", expected i64"
        );
    }

    /// Two targets with one name are refused, pointing at the second.
    #[test]
    fn duplicate_name() {
        assert_eq!(
            err(&format!("{T}{T}")),
            "exporter.toml:6: target[1].name: duplicate name \"a\" (first used at line 2)"
        );
    }

    /// A duration humantime cannot read is refused.
    #[test]
    fn bad_duration() {
        assert_eq!(
            err("[exporter]\ninterval = \"15 parsecs\"\n"),
            "exporter.toml:2: exporter.interval: invalid duration \"15 parsecs\": unknown time unit \"parsecs\", supported units: ns, us/µs, ms, sec, min, hours, days, weeks, months, years (and few variations)"
        );
        assert_eq!(
            err("[exporter]\ntimeout = \"0s\"\n"),
            "exporter.toml:2: exporter.timeout: must be greater than zero"
        );
    }

    /// A timeout not shorter than the interval is refused, per target and globally.
    #[test]
    fn timeout_not_shorter() {
        assert_eq!(
            err(&format!("{T}{T}timeout = \"20s\"\n").replacen("\"a\"", "\"b\"", 1)),
            "exporter.toml:9: target[1].timeout: 20s must be shorter than interval 15s"
        );
        assert_eq!(
            err("[exporter]\ninterval = \"5s\"\ntimeout = \"5s\"\n"),
            "exporter.toml:3: exporter.timeout: 5s must be shorter than interval 5s"
        );
    }

    /// An unknown protocol lists the known ones.
    #[test]
    fn unknown_protocol() {
        assert_eq!(
            err(&T.replace("a2s", "quake9")),
            "exporter.toml:3: target[0].protocol: unknown protocol \"quake9\" (one of: a2s, minecraft, minecraft-query, minecraft-bedrock, samp, mumble, quake3)"
        );
    }

    /// A bad address is refused with the reason.
    #[test]
    fn bad_address() {
        assert_eq!(
            err(&T.replace("127.0.0.1", "host:99999")),
            "exporter.toml:4: target[0].address: invalid address \"host:99999\": invalid port \"99999\""
        );
    }

    /// An encoding encoding_rs does not know is refused.
    #[test]
    fn bad_encoding() {
        assert_eq!(
            err(&format!("{T}encoding = \"klingon\"\n")),
            "exporter.toml:5: target[0].encoding: unknown encoding \"klingon\""
        );
    }

    /// Invalid, reserved and `__` label names are refused.
    #[test]
    fn bad_labels() {
        assert_eq!(
            err(&format!("{T}labels = {{ \"1x\" = \"v\" }}\n")),
            "exporter.toml:5: target[0].labels.1x: invalid label name \"1x\" (want [a-zA-Z_][a-zA-Z0-9_]*)"
        );
        assert_eq!(
            err(&format!("{T}labels = {{ job = \"v\" }}\n")),
            "exporter.toml:5: target[0].labels.job: label name \"job\" is reserved"
        );
        assert_eq!(
            err(&format!("{T}labels = {{ __x = \"v\" }}\n")),
            "exporter.toml:5: target[0].labels.__x: label name \"__x\" is reserved (starts with __)"
        );
    }

    /// Bad listen addresses, networks and out-of-range numbers are refused.
    #[test]
    fn bad_exporter_values() {
        assert_eq!(
            err("[exporter]\nlisten = \"localhost\"\n"),
            "exporter.toml:2: exporter.listen: invalid socket address \"localhost\" (want IP:PORT)"
        );
        assert_eq!(
            err("[exporter]\nprobe_allowed_networks = [\"10.0.0.0/33\"]\n"),
            "exporter.toml:2: exporter.probe_allowed_networks[0]: invalid network \"10.0.0.0/33\" (want CIDR like 10.0.0.0/8)"
        );
        assert_eq!(
            err("[exporter]\nmax_split_packets = 300\n"),
            "exporter.toml:2: exporter.max_split_packets: 300 is out of range 1..=255"
        );
    }

    /// A bad exporter.shard names the key and the reason.
    #[test]
    fn bad_shard() {
        assert_eq!(
            err("[exporter]\nshard = \"3/3\"\n"),
            "exporter.toml:2: exporter.shard: shard index 3 must be below the shard count 3"
        );
        assert_eq!(
            err("[exporter]\nshard = \"one of three\"\n"),
            "exporter.toml:2: exporter.shard: invalid shard \"one of three\" (want I/N such as 0/3, or I-of-N such as 0-of-3)"
        );
        assert_eq!(
            err("[exporter]\nshard = 3\n"),
            "exporter.toml:2: exporter.shard: invalid type: integer `3`, expected a string"
        );
    }
}
