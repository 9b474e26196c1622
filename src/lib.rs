//! gameserver-exporter: watches game servers through their own query protocols and publishes
//! what it sees to Prometheus.
//!
//! # Layout
//! Data flows one way, and a module knows only the ones below it:
//!
//! ```text
//! config ──> scheduler ──(one task per target)──> query ──> net (sockets, DNS, deadlines)
//!                                                   └─────> protocol (pure codecs: bytes <-> values)
//! http /metrics <── metrics (renders a snapshot at scrape time) <── state (latest result per target)
//! ```
//!
//! - [`target`] and [`status`]: the shared vocabulary below every layer: what a poll aims at
//!   (protocol, address, limits, the configured target and its defaults) and what it found.
//! - [`protocol`]: sans-IO codecs, one module per protocol. No tokio, no sockets, no clock.
//!   A bad input is a structured `DecodeError`, never a label.
//! - [`net`]: the transports: the shared UDP socket (mux), connected UDP, TCP, name and SRV
//!   resolution, every wait with a deadline. Errors are `NetError` (wrapping `DecodeError`).
//! - [`query`]: per protocol a sans-IO exchange (challenges, splits, tokens, fallbacks) that
//!   one generic driver runs over a transport with resends and pacing; a registry entry per
//!   protocol. It produces one normalized [`status::Status`] or a [`status::Failure`]: the
//!   one place where errors become a closed [`status::Reason`] is `query::Error::reason`.
//!   `docs/adding-a-protocol.md` shows what a new protocol fills in.
//! - [`config`], [`scheduler`] (its tasks on the [`poller`] thread), [`state`] (with
//!   [`roster`]: player lists cut down to bounded per-player series), [`metrics`],
//!   [`http`], [`daemon`]: the daemon;
//!   [`demo`] runs it against simulators of every protocol.
//! - [`shard`]: `--shard I/N`, Prometheus's `hashmod` over target names, so several replicas
//!   split one configuration.
//! - [`simulate`]: in-process servers for every protocol, used by `demo` and by the tests.

#[cfg(feature = "daemon")]
pub mod cidr;
#[cfg(feature = "daemon")]
pub mod config;
#[cfg(feature = "daemon")]
pub mod daemon;
#[cfg(feature = "daemon")]
pub mod demo;
pub mod games;
#[cfg(feature = "daemon")]
pub mod handles;
#[cfg(feature = "daemon")]
pub mod http;
#[cfg(feature = "daemon")]
pub mod landing;
#[cfg(feature = "daemon")]
pub mod metrics;
#[cfg(feature = "daemon")]
pub mod net;
#[cfg(feature = "daemon")]
pub mod poller;
#[cfg(feature = "daemon")]
pub mod probe;
pub mod protocol;
#[cfg(feature = "daemon")]
pub mod query;
#[cfg(feature = "daemon")]
pub mod roster;
#[cfg(feature = "daemon")]
pub mod scheduler;
#[cfg(feature = "daemon")]
pub mod shard;
#[cfg(feature = "daemon")]
pub mod simulate;
#[cfg(feature = "daemon")]
pub mod state;
pub mod status;
#[cfg(feature = "daemon")]
mod sync;
pub mod target;
