//! From the raw file to a [`Config`]: what serde cannot check (durations, ranges, protocols,
//! addresses, encodings, label names, duplicates, timeout < interval), with the
//! `[exporter]` defaults applied to every target.

use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use toml::Spanned;

use super::cidr::IpNet;
use super::credentials::credentials;
use super::location::{line_of, target_key, Ctx};
use super::model::{
    Config, ConfigError, Exporter, DEFAULT_HTTP_HEADER_TIMEOUT, DEFAULT_LISTEN, PLAYER_LABELS,
    RESERVED_LABELS, RULE_LABELS,
};
use super::preset;
use super::reuse::Running;
use super::schema::{RawExporter, RawTarget};
use crate::target::{
    Console, HttpScheme, Limits, PlayerSeries, Protocol, ProxyProtocol, Target, Tls,
    DEFAULT_ENCODING, DEFAULT_INTERVAL, DEFAULT_TIMEOUT,
};

/// Highest `max_reply_bytes` accepted: one poll never holds more than this.
const MAX_REPLY_BYTES_CAP: i64 = 64 * 1024 * 1024;
// `Limits::max_reply_bytes` is a `u32` (the validated value is cast to it).
const _: () = assert!(MAX_REPLY_BYTES_CAP <= u32::MAX as i64);
/// Highest `players.max_series`: beyond this a target's player series would dwarf the rest
/// of a scrape.
const MAX_PLAYER_SERIES_CAP: i64 = 1000;
/// Names one target's `rules` may list, and the length of each.
const MAX_RULES: usize = 32;
const MAX_RULE_NAME_CHARS: usize = 64;

pub(super) fn duration(ctx: &Ctx, v: &Spanned<String>, key: &str) -> Result<Duration, ConfigError> {
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

/// Turns the raw file into a [`Config`], checking what serde cannot. `sources`: the main file's targets first (its context also locates `[exporter]` errors),
/// then each included file's.
/// `dir`: what relative secret file paths are relative to (the main file's directory).
pub(super) fn validate(
    ex: RawExporter,
    sources: &[(Ctx, &[Spanned<RawTarget>])],
    running: &Running,
    dir: &Path,
) -> Result<Config, ConfigError> {
    let total = sources.iter().map(|(_, t)| t.len()).sum();
    let mut targets = Targets::new(exporter(ex, &sources[0].0)?, total, running).within(dir);
    let ctxs: Vec<&Ctx> = sources.iter().map(|(c, _)| c).collect();
    for (source, (_, list)) in sources.iter().enumerate() {
        targets.add(&ctxs, source, 0, list)?;
    }
    Ok(targets.finish())
}

/// `[exporter]`, checked; `ctx` is the main file.
pub(super) fn exporter(ex: RawExporter, ctx: &Ctx) -> Result<Exporter, ConfigError> {
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
        )? as u32;
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

    Ok(Exporter {
        listen,
        interval,
        timeout,
        max_concurrent_polls,
        limits,
        probe_allowed_networks,
        http_header_timeout,
        shard,
    })
}

/// The targets validated so far, a source (a file, or a piece of one) at a time: a large
/// file's raw targets need not all be alive at once (see `pieces`).
pub(super) struct Targets<'r> {
    exporter: Exporter,
    targets: Vec<Arc<Target>>,
    /// Name (the validated target's own) -> (source, byte offset) of its first use: no copy
    /// of the names, and room reserved once (a `BTreeMap<String, _>` was ~7 MB at 100,000
    /// targets, this is ~3 MB).
    /// `None` when the caller checks for duplicates itself at the end ([`Targets::unique`]).
    seen: Option<HashMap<ByName, (usize, usize)>>,
    running: &'r Running<'r>,
    /// What relative secret file paths are relative to.
    dir: PathBuf,
}

impl<'r> Targets<'r> {
    /// `expected`: how many targets to reserve room for.
    pub(super) fn new(exporter: Exporter, expected: usize, running: &'r Running<'r>) -> Self {
        Targets {
            exporter,
            targets: Vec::with_capacity(expected),
            seen: Some(HashMap::with_capacity(expected)),
            running,
            dir: PathBuf::new(),
        }
    }

    /// Like [`Targets::new`], for a caller that only needs to know whether the names are
    /// unique, not where a duplicate is ([`Targets::unique`], after the last target): an
    /// index sorted once (4 bytes a target) instead of a map kept up to date (~33).
    pub(super) fn new_unchecked(
        exporter: Exporter,
        expected: usize,
        running: &'r Running<'r>,
    ) -> Self {
        Targets {
            exporter,
            targets: Vec::with_capacity(expected),
            seen: None,
            running,
            dir: PathBuf::new(),
        }
    }

    /// Relative secret file paths are relative to `dir` (the main file's directory).
    pub(super) fn within(mut self, dir: &Path) -> Self {
        self.dir = dir.to_path_buf();
        self
    }

    /// Room for `n` more targets, reserved once.
    pub(super) fn reserve(&mut self, n: usize) {
        self.targets.reserve_exact(n);
    }

    /// Whether no two targets share a name.
    pub(super) fn unique(&self) -> bool {
        let Ok(n) = u32::try_from(self.targets.len()) else {
            return false;
        };
        let name = |i: &u32| self.targets[*i as usize].name.as_str();
        let mut order: Vec<u32> = (0..n).collect();
        order.sort_unstable_by(|a, b| name(a).cmp(name(b)));
        order.windows(2).all(|w| name(&w[0]) != name(&w[1]))
    }

    /// Validates `list`, the targets of `ctxs[source]` from its `first`th on (error messages
    /// count targets per file).
    pub(super) fn add(
        &mut self,
        ctxs: &[&Ctx],
        source: usize,
        first: usize,
        list: &[Spanned<RawTarget>],
    ) -> Result<(), ConfigError> {
        let ctx = ctxs[source];
        let (interval, timeout, limits) = (
            self.exporter.interval,
            self.exporter.timeout,
            self.exporter.limits,
        );
        let (targets, seen, running) = (&mut self.targets, &mut self.seen, self.running);
        let dir = self.dir.as_path();
        for (i, spanned) in list.iter().enumerate() {
            let i = first + i;
            let t = spanned.get_ref();
            // Until the name is known good (and unique), the target is named by its place.
            let place = |k: &str| format!("target[{i}].{k}");
            let name = t.name.get_ref().clone();
            if name.is_empty() || name.chars().any(char::is_control) {
                return Err(ctx.err(
                    t.name.span(),
                    &place("name"),
                    "must be non-empty and free of control characters",
                ));
            }
            if let Some(&(first_source, first)) = seen.as_ref().and_then(|s| s.get(name.as_str())) {
                let first = if first_source == source {
                    format!("line {}", line_of(ctx.text, first))
                } else {
                    let c = ctxs[first_source];
                    format!("{}:{}", c.file, line_of(c.text, first))
                };
                return Err(ctx.err(
                    t.name.span(),
                    &place("name"),
                    format!("duplicate name {name:?} (first used at {first})"),
                ));
            }
            // The byte offset, not the line: counting lines for every target made parsing
            // quadratic in the fleet size (seconds of CPU per reload at 10,000 targets).
            let first_use = (source, t.name.span().start);
            let named = target_key(i, Some(&name));
            let key = |k: &str| format!("{named}.{k}");
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
            let Shared {
                encoding,
                labels,
                limits: t_limits,
                players,
                rules,
            } = shared(
                ctx,
                &key,
                RawShared {
                    encoding: t.encoding.as_deref(),
                    labels: t.labels.as_deref(),
                    max_reply_bytes: t.max_reply_bytes.as_deref(),
                    max_split_packets: t.max_split_packets.as_deref(),
                    players: t.players.as_deref(),
                    rules: t.rules.as_deref(),
                },
                limits,
            )?;
            let proxy_protocol = match &t.proxy_protocol {
                Some(v) => Some(proxy_protocol(ctx, v, protocol, &key("proxy_protocol"))?),
                None => None,
            };
            let tls = tls(ctx, t, protocol, &key)?;
            let voice_port = match &t.voice_port {
                Some(v) => Some(voice_port(ctx, v, protocol, &key("voice_port"))?),
                None => None,
            };
            let max_players = match &t.max_players {
                Some(v) => Some(max_players(ctx, v, &key("max_players"))?),
                None => None,
            };
            let credentials = credentials(ctx, &key, t, protocol, dir, &name)?;
            // The game picks the dialect its `rcon` table speaks.
            let console = game.map_or(Console::Source, |g| g.quirks.console);
            let credentials = match credentials {
                Some(c) if console != Console::Source && c.rcon.is_some() => {
                    let mut c = (*c).clone();
                    c.rcon = c.rcon.map(|r| r.speaking(console));
                    Some(Arc::new(c))
                }
                c => c,
            };
            // A pinned target's fingerprint rides with its credentials (Target stays small).
            let credentials = match &tls {
                Tls::Pinned(pin) => {
                    let mut c = credentials.map(|c| (*c).clone()).unwrap_or_default();
                    c.tls_pin = Some(**pin);
                    Some(Arc::new(c))
                }
                _ => credentials,
            };
            let target = running.share(Target {
                tls: tls.mode(),
                interval: t_interval,
                timeout: t_timeout,
                encoding,
                labels,
                limits: t_limits,
                game: game.map(|g| g.id),
                players,
                rules: rules.into(),
                proxy_protocol,
                voice_port,
                max_players,
                credentials,
                ..Target::new(name, protocol, address)
            });
            if let Some(seen) = seen.as_mut() {
                seen.insert(ByName(target.clone()), first_use);
            }
            targets.push(target);
        }
        Ok(())
    }

    /// The `[exporter]` the targets are validated under.
    pub(super) fn exporter(&self) -> &Exporter {
        &self.exporter
    }

    pub(super) fn finish(self) -> Config {
        Config {
            exporter: self.exporter,
            targets: self.targets,
            includes: Vec::new(),
            modules: BTreeMap::new(),
        }
    }
}

/// The keys a `[[target]]` and a `[module.NAME]` share, as read.
pub(super) struct RawShared<'a> {
    pub(super) encoding: Option<&'a Spanned<String>>,
    pub(super) labels: Option<&'a Spanned<BTreeMap<String, String>>>,
    pub(super) max_reply_bytes: Option<&'a Spanned<i64>>,
    pub(super) max_split_packets: Option<&'a Spanned<i64>>,
    pub(super) players: Option<&'a Spanned<toml::Value>>,
    pub(super) rules: Option<&'a Spanned<Vec<Spanned<String>>>>,
}

/// Those keys, checked, with the defaults for absent ones (`limits`: the `[exporter]`'s).
pub(super) struct Shared {
    pub(super) encoding: &'static encoding_rs::Encoding,
    pub(super) labels: BTreeMap<String, String>,
    pub(super) limits: Limits,
    pub(super) players: Option<PlayerSeries>,
    pub(super) rules: Vec<String>,
}

/// Checks the shared keys; `key` names one in error messages (`target "eu-survival".labels`).
pub(super) fn shared(
    ctx: &Ctx,
    key: &dyn Fn(&str) -> String,
    raw: RawShared,
    limits: Limits,
) -> Result<Shared, ConfigError> {
    let encoding = match raw.encoding {
        Some(v) => encoding_rs::Encoding::for_label(v.get_ref().as_bytes()).ok_or_else(|| {
            ctx.err(
                v.span(),
                &key("encoding"),
                format!("unknown encoding {:?}", v.get_ref()),
            )
        })?,
        None => DEFAULT_ENCODING,
    };
    let labels = match raw.labels {
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
    let mut limits = limits;
    if let Some(v) = raw.max_reply_bytes {
        limits.max_reply_bytes =
            int_in(ctx, v, &key("max_reply_bytes"), 1024..=MAX_REPLY_BYTES_CAP)? as u32;
    }
    if let Some(v) = raw.max_split_packets {
        limits.max_split_packets = int_in(ctx, v, &key("max_split_packets"), 1..=255)? as u8;
    }
    let players = match raw.players {
        Some(v) => player_series(ctx, v, &key("players"))?,
        None => None,
    };
    let rules = match raw.rules {
        Some(v) => rule_names(ctx, v, &key("rules"))?,
        None => Vec::new(),
    };
    let taken = PLAYER_LABELS
        .iter()
        .filter(|_| players.is_some())
        .chain(RULE_LABELS.iter().filter(|_| !rules.is_empty()))
        .find(|l| labels.contains_key(**l));
    if let (Some(l), Some(v)) = (taken, raw.labels) {
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
    Ok(Shared {
        encoding,
        labels,
        limits,
        players,
        rules,
    })
}

/// A validated target as a key by its name (`seen`).
struct ByName(Arc<Target>);

impl std::borrow::Borrow<str> for ByName {
    fn borrow(&self) -> &str {
        &self.0.name
    }
}

impl std::hash::Hash for ByName {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.name.as_str().hash(h)
    }
}

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.0.name == other.0.name
    }
}

impl Eq for ByName {}

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
                series.max_series = int_in(ctx, &n, &k_key, 1..=MAX_PLAYER_SERIES_CAP)? as u32;
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

/// `proxy_protocol = "v1" | "v2"`, on a target whose protocol runs over TCP.
fn proxy_protocol(
    ctx: &Ctx,
    v: &Spanned<String>,
    protocol: Protocol,
    key: &str,
) -> Result<ProxyProtocol, ConfigError> {
    let version = ProxyProtocol::from_name(v.get_ref()).ok_or_else(|| {
        ctx.err(
            v.span(),
            key,
            format!("unknown version {:?} (want \"v1\" or \"v2\")", v.get_ref()),
        )
    })?;
    if !protocol.over_tcp() {
        return Err(ctx.err(
            v.span(),
            key,
            format!(
                "only TCP protocols ({}) can send a PROXY header; {protocol} runs over UDP",
                Protocol::tcp_names()
            ),
        ));
    }
    Ok(version)
}

/// `tls`, `tls_fingerprint = "sha256:<hex>"`, `tls_insecure = true`: only on HTTP
/// protocols; a pin or `tls_insecure` means TLS; the two exclude each other; verification is
/// only ever off when `tls_insecure = true` says so.
fn tls(
    ctx: &Ctx,
    t: &RawTarget,
    protocol: Protocol,
    key: &dyn Fn(&str) -> String,
) -> Result<Tls, ConfigError> {
    let on = t.tls.as_deref();
    let pin = t.tls_fingerprint.as_deref();
    let insecure = t.tls_insecure.as_deref();
    let Some(scheme) = protocol.http() else {
        let given = [
            on.map(|v| ("tls", v.span())),
            pin.map(|v| ("tls_fingerprint", v.span())),
            insecure.map(|v| ("tls_insecure", v.span())),
        ];
        if let Some((name, span)) = given.into_iter().flatten().next() {
            let http: Vec<&str> = Protocol::ALL
                .into_iter()
                .filter(|p| p.http().is_some())
                .map(Protocol::as_str)
                .collect();
            return Err(ctx.err(
                span,
                &key(name),
                format!(
                    "only HTTP protocols ({}) use TLS settings; {protocol} does not",
                    http.join(", ")
                ),
            ));
        }
        return Ok(Tls::Off);
    };
    let insecure_on = insecure.filter(|v| *v.get_ref());
    if let (Some(p), Some(_)) = (pin, insecure_on) {
        return Err(ctx.err(
            p.span(),
            &key("tls_fingerprint"),
            "a pinned certificate is verified; it cannot be combined with tls_insecure = true",
        ));
    }
    if let Some(off) = on.filter(|v| !*v.get_ref()) {
        if scheme == HttpScheme::HttpsOnly {
            return Err(ctx.err(off.span(), &key("tls"), format!("{protocol} is HTTPS only")));
        }
        if pin.is_some() || insecure_on.is_some() {
            return Err(ctx.err(
                off.span(),
                &key("tls"),
                "tls = false contradicts tls_fingerprint / tls_insecure",
            ));
        }
    }
    if let Some(p) = pin {
        let sha256 = Tls::parse_fingerprint(p.get_ref()).ok_or_else(|| {
            ctx.err(
                p.span(),
                &key("tls_fingerprint"),
                "want \"sha256:\" and the certificate's 64 hex digits (colons allowed)",
            )
        })?;
        return Ok(Tls::Pinned(Box::new(sha256)));
    }
    if insecure_on.is_some() {
        return Ok(Tls::Insecure);
    }
    Ok(match on.map(|v| *v.get_ref()) {
        Some(true) => Tls::Verify,
        Some(false) => Tls::Off,
        None => Tls::default_for(scheme),
    })
}

/// `voice_port = N`: a port number, on a target of a protocol whose spec has a default voice
/// port (`Spec::voice_port`: TeamSpeak 3 and 2, the virtual server `use port=` / `sel`
/// selects).
fn voice_port(
    ctx: &Ctx,
    v: &Spanned<i64>,
    protocol: Protocol,
    key: &str,
) -> Result<std::num::NonZeroU16, ConfigError> {
    if protocol.spec().voice_port.is_none() {
        return Err(ctx.err(
            v.span(),
            key,
            format!(
                "only {} targets select a virtual server by voice port; this one is {protocol}",
                Protocol::voice_names()
            ),
        ));
    }
    u16::try_from(*v.get_ref())
        .ok()
        .and_then(std::num::NonZeroU16::new)
        .ok_or_else(|| {
            ctx.err(
                v.span(),
                key,
                format!("{} is not a port (1 to 65535)", v.get_ref()),
            )
        })
}

/// `max_players = N`: the capacity published where the server reports none (ARK: Survival
/// Ascended and Factorio over RCON), 1 to 65535.
fn max_players(
    ctx: &Ctx,
    v: &Spanned<i64>,
    key: &str,
) -> Result<std::num::NonZeroU16, ConfigError> {
    let limit = u16::MAX;
    u16::try_from(*v.get_ref())
        .ok()
        .and_then(std::num::NonZeroU16::new)
        .ok_or_else(|| {
            ctx.err(
                v.span(),
                key,
                format!("{} is not a capacity (1 to {limit})", v.get_ref()),
            )
        })
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
