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
//! - [`protocol`]: sans-IO codecs, one module per protocol. No tokio, no sockets, no clock.
//! - [`net`]: the thin async layer: connected UDP, framed TCP reads, name and SRV resolution.
//! - [`query`]: each protocol's dialogue (challenges, splits, fallbacks) producing one
//!   normalized [`status::Status`] or a [`status::Failure`] with a closed [`status::Reason`].
//! - [`config`], [`scheduler`], [`state`], [`metrics`], [`http`], [`daemon`]: the daemon;
//!   [`demo`] runs it against simulators of every protocol.
//! - [`simulate`]: in-process servers for every protocol, used by `demo` and by the tests.

pub mod config;
pub mod daemon;
pub mod demo;
pub mod http;
pub mod metrics;
pub mod net;
pub mod protocol;
pub mod query;
pub mod scheduler;
pub mod simulate;
pub mod state;
pub mod status;
