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
//! - [`net`]: the thin async layer: connected UDP, framed TCP reads, name and SRV resolution.
//! - [`query`]: each protocol's dialogue (challenges, splits, fallbacks) producing one
//!   normalized [`status::Status`] or a [`status::Failure`] with a closed [`status::Reason`].
//! - [`config`], [`scheduler`] (its tasks on the [`poller`] thread), [`state`], [`metrics`],
//!   [`http`], [`daemon`]: the daemon; [`web`]: TLS, basic auth and gzip for the HTTP side
//!   (`--web.config.file`), [`health`]: `/health?target=` for uptime tools;
//!   [`demo`] runs it against simulators of every protocol.
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
pub mod health;
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
pub mod scheduler;
#[cfg(feature = "daemon")]
pub mod simulate;
#[cfg(feature = "daemon")]
pub mod state;
pub mod status;
#[cfg(feature = "daemon")]
mod sync;
pub mod target;
#[cfg(feature = "daemon")]
pub mod web;
