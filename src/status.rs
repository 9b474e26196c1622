//! The one normalized result of a poll, shared by every protocol, and the closed set of
//! reasons a poll can fail for. The metrics layer reads only these types, so it needs no
//! per-protocol code.
//!
//! This is the shared vocabulary: it uses nothing else in the crate. The structured errors
//! below it (`protocol::DecodeError`, `net::NetError`, `query::Error`) become a [`Reason`] in
//! one place, `query::Error::reason`.

use std::fmt;
use std::time::Duration;

use serde::Serialize;

/// The largest player count (online, capacity, bots, queue) a status may carry. The busiest
/// game servers hold a few thousand players; a decoded count above a million is a misread
/// reply (a wrong length byte shifted the fields, a negative wrapped to 4,294,967,295), and
/// the poll fails `malformed` naming the field rather than publish it (docs/metrics.md).
pub const MAX_PLAUSIBLE_COUNT: u32 = 1_000_000;

/// What a server said about itself, normalized across protocols.
///
/// `latency` is one request/reply round trip of the protocol's cheapest status exchange,
/// never connection set-up or DNS; each dialogue in [`crate::query`] documents which one.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Status {
    /// Players online as the server reports them (A2S: bots included).
    pub online: u32,
    /// Capacity the server reports; 0 where it reports none (Factorio's server list entry
    /// has no slot count). No server can be joined with 0 slots, so 0 is never a capacity:
    /// it is published as unknown (absent from `gameserver_players_max`, `null` in
    /// `/api/v1/targets`, `–` on the status page), as `bots` and `queued` are when `None`.
    pub max: u32,
    /// Bots, where the protocol says.
    pub bots: Option<u32>,
    /// Players waiting to join, where the game reports a queue (Rust: `qp<n>` keyword).
    pub queued: Option<u32>,
    /// Server name or plain-text MOTD.
    pub name: String,
    pub map: Option<String>,
    pub game: Option<String>,
    pub version: Option<String>,
    /// Whether joining needs a password, where the protocol says.
    pub password: Option<bool>,
    #[serde(serialize_with = "serialize_seconds")]
    pub latency: Duration,
    /// The player list, when it was asked for and the server gave it.
    pub players: Option<Vec<Player>>,
    /// Server rules or key/value settings, when asked for and given, in the server's order.
    pub rules: Option<Vec<(String, String)>>,
    /// Protocol-specific facts (A2S keywords and app id, Minecraft raw JSON, SA:MP language...).
    pub extras: serde_json::Map<String, serde_json::Value>,
    /// Server health (tick rate, tick time), where the game reports it (boxed: most
    /// protocols never fill it, and every exchange step carries a `Status`'s size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub health: Option<Box<Health>>,
}

/// How well the server keeps up, as the game reports it; each field only where it does.
/// Published as `gameserver_tick_*` (docs/metrics.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Health {
    /// Ticks (or frames) per second achieved: Minecraft TPS, Palworld server FPS,
    /// Satisfactory's average tick rate.
    pub tick_rate_hertz: Option<f64>,
    /// The rate the server aims for (Minecraft's target tick rate, 20 by default).
    pub tick_target_rate_hertz: Option<f64>,
    /// Mean time one tick (frame) takes, in seconds (Minecraft MSPT, Palworld frame time).
    pub tick_duration_seconds: Option<f64>,
    /// Tick time percentiles, in seconds (Minecraft's `/tick query`).
    pub tick_quantiles: Option<TickQuantiles>,
    /// Frames per second the server runs, where the game does not tie frames to ticks
    /// (Source's `stats` FPS: the engine runs frames as fast as `fps_max` lets it and
    /// simulates ticks at the tick rate within them).
    pub frame_rate_hertz: Option<f64>,
    /// The server process's CPU use as the game reports it, 0..1 (Source `stats` CPU %).
    pub cpu_usage_ratio: Option<f64>,
    /// Game traffic into the server, bytes per second (Source `stats` In, KiB/s).
    pub network_receive_bytes_per_second: Option<f64>,
    /// Game traffic out of the server, bytes per second (Source `stats` Out, KiB/s).
    pub network_transmit_bytes_per_second: Option<f64>,
    /// How long the server has been running, as it says (Source `stats` Uptime, minutes).
    pub uptime_seconds: Option<f64>,
    /// The game's managed heap in use, bytes (Rust WebRCON `Memory`, 7 Days to Die `Heap`;
    /// both print MB).
    pub memory_heap_bytes: Option<f64>,
    /// The heap's current ceiling, bytes (7 Days to Die `mem`'s `Max`).
    pub memory_heap_max_bytes: Option<f64>,
    /// The server process's resident memory as the game reports it, bytes (7 Days to Die
    /// `RSS`, Rust WebRCON `MemoryUsageSystem`; MB).
    pub memory_resident_bytes: Option<f64>,
    /// Entities in the world (Rust `EntityCount`, 7 Days to Die `Ent`).
    pub entities: Option<f64>,
    /// Zombies alive (7 Days to Die `Zom`).
    pub zombies: Option<f64>,
    /// World chunks loaded (7 Days to Die `Chunks`).
    pub chunks_loaded: Option<f64>,
    /// Players connecting, not yet in the game (Rust WebRCON `Joining`).
    pub players_joining: Option<f64>,
}

/// Tick time percentiles, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct TickQuantiles {
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

impl Status {
    /// The first count above [`MAX_PLAUSIBLE_COUNT`], by field name, with its value.
    pub fn implausible(&self) -> Option<(&'static str, u64)> {
        [
            ("online", Some(self.online)),
            ("max", Some(self.max)),
            ("bots", self.bots),
            ("queued", self.queued),
        ]
        .into_iter()
        .filter_map(|(field, n)| Some((field, n?)))
        .find(|(_, n)| *n > MAX_PLAUSIBLE_COUNT)
        .map(|(field, n)| (field, u64::from(n)))
    }
}

impl Health {
    /// Whether the server reported anything at all.
    pub fn is_empty(&self) -> bool {
        self.tick_rate_hertz.is_none()
            && self.tick_target_rate_hertz.is_none()
            && self.tick_duration_seconds.is_none()
            && self.tick_quantiles.is_none()
            && self.frame_rate_hertz.is_none()
            && self.cpu_usage_ratio.is_none()
            && self.network_receive_bytes_per_second.is_none()
            && self.network_transmit_bytes_per_second.is_none()
            && self.uptime_seconds.is_none()
            && self.memory_heap_bytes.is_none()
            && self.memory_heap_max_bytes.is_none()
            && self.memory_resident_bytes.is_none()
            && self.entities.is_none()
            && self.zombies.is_none()
            && self.chunks_loaded.is_none()
            && self.players_joining.is_none()
    }
}

/// One entry of a server's player list; fields the protocol does not carry stay `None`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Player {
    pub name: String,
    pub id: Option<String>,
    pub score: Option<i64>,
    /// Seconds connected (A2S).
    pub duration: Option<f32>,
    /// Milliseconds (SA:MP `d`).
    pub ping: Option<u32>,
}

fn serialize_seconds<S: serde::Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(d.as_secs_f64())
}

/// Why a poll failed: a small closed set, published as the `reason` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// No (complete) answer before the deadline.
    Timeout,
    /// The port is closed: ICMP port unreachable, or TCP reset on connect.
    Refused,
    /// The name did not resolve (A, AAAA or SRV).
    Dns,
    /// Another network error (unreachable, reset mid-reply, ...).
    Network,
    /// The reply did not decode.
    Malformed,
    /// Replies came, but none echoed our request (session id, header, ping payload).
    Mismatch,
    /// The server kept issuing new challenges past the retry bound.
    Challenge,
    /// The reply exceeded a cap: bytes, split packets or decompressed size.
    TooLarge,
    /// The connection ended, or a split reply stopped, before the reply was complete.
    Incomplete,
    /// The server refused the configured credentials (wrong password or token).
    AuthRefused,
}

impl Reason {
    pub const ALL: [Reason; 10] = [
        Reason::Timeout,
        Reason::Refused,
        Reason::Dns,
        Reason::Network,
        Reason::Malformed,
        Reason::Mismatch,
        Reason::Challenge,
        Reason::TooLarge,
        Reason::Incomplete,
        Reason::AuthRefused,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Timeout => "timeout",
            Reason::Refused => "refused",
            Reason::Dns => "dns",
            Reason::Network => "network",
            Reason::Malformed => "malformed",
            Reason::Mismatch => "mismatch",
            Reason::Challenge => "challenge",
            Reason::TooLarge => "too_large",
            Reason::Incomplete => "incomplete",
            Reason::AuthRefused => "auth_refused",
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed poll: the label-safe reason plus human detail for logs and `query`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub reason: Reason,
    pub detail: String,
}

impl Failure {
    pub fn new(reason: Reason, detail: impl Into<String>) -> Self {
        Failure {
            reason,
            detail: detail.into(),
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.reason, self.detail)
    }
}

impl std::error::Error for Failure {}

#[cfg(test)]
mod plausible_tests {
    use super::*;

    /// Real counts pass; a count past the bound, or a negative that wrapped, is named.
    #[test]
    fn implausible_counts_are_named() {
        let ok = Status {
            online: 3_000,
            max: MAX_PLAUSIBLE_COUNT,
            bots: Some(0),
            ..Status::default()
        };
        assert_eq!(ok.implausible(), None);
        let shifted = Status {
            online: 1_179_323_136,
            ..ok.clone()
        };
        assert_eq!(shifted.implausible(), Some(("online", 1_179_323_136)));
        let wrapped = Status {
            queued: Some(-1i32 as u32),
            ..ok
        };
        assert_eq!(wrapped.implausible(), Some(("queued", 4_294_967_295)));
    }
}
