//! What a validated configuration is: the model every other module reads (`Config`,
//! `Exporter`, the error type and the defaults), apart from how it is read and checked (the
//! rest of `config/`), so that those files use the model without climbing back to
//! `config/mod.rs`.

use std::collections::BTreeMap;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use super::cidr::IpNet;
use crate::games::Game;
use crate::target::{Address, Limits, PlayerSeries, Protocol, Target};

/// Where the daemon looks for its configuration unless told otherwise.
pub const DEFAULT_PATH: &str = "/etc/gameserver-exporter/exporter.toml";
/// Our port from Prometheus' default-port allocations.
pub const DEFAULT_LISTEN: &str = "0.0.0.0:10765";
/// Default for `exporter.http_header_timeout`.
pub const DEFAULT_HTTP_HEADER_TIMEOUT: Duration = Duration::from_secs(10);
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
    /// The main file's targets, then each included file's, in `include` order. Shared with
    /// the scheduler's running tasks (`state::TargetMeta`), so a running daemon holds each
    /// target once, not once here and once per task (~260 bytes per target).
    pub targets: Vec<Arc<Target>>,
    /// What each `[exporter] include` pattern matched.
    pub includes: Vec<Include>,
    /// `[module.NAME]` sections: settings for `/probe?module=NAME&target=HOST:PORT`, by name.
    pub modules: std::collections::BTreeMap<String, Module>,
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

/// One `include` pattern and what it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Include {
    /// As written in the main file.
    pub pattern: String,
    /// The files read for it, as error messages name them; empty when nothing matched.
    pub files: Vec<String>,
}

/// A module: a configured `[module.NAME]`, or the defaults a protocol or game id stands for.
#[derive(Debug, Clone, PartialEq)]
pub struct Module {
    pub protocol: Protocol,
    /// The game preset (`game = "..."`, or `module=<game id>`): its query port fills in a
    /// port-less address, its quirks apply.
    pub game: Option<&'static Game>,
    pub timeout: Duration,
    pub encoding: &'static encoding_rs::Encoding,
    pub labels: BTreeMap<String, String>,
    pub limits: Limits,
    pub players: Option<PlayerSeries>,
    pub rules: Box<[String]>,
}
