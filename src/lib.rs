//! gameserver-exporter: watches game servers through their own query protocols and publishes
//! what it sees to Prometheus.
//!
//! # Layout
//! Data flows one way, and a module knows only the ones below it:
//!
//! ```text
//! config ──> scheduler ──(one task per poll)────> query ──> net (sockets, DNS, deadlines)
//!                                                   └─────> protocol (codecs and exchanges, runtime-free)
//! http /metrics <── metrics (renders a snapshot at scrape time) <── state (latest result per target)
//! ```
//!
//! The layers, bottom to top; each may use only the layers below it, and within the daemon
//! only what `tests/it/architecture.rs` lists (its `ALLOWED` table is the edge-by-edge version
//! of this list, checked against every `crate::` path in `src/` on each test run):
//!
//! 1. The shared vocabulary, used by everyone and using nobody: [`status`] (what a poll
//!    found: the normalized status, the failure and its closed set of reasons),
//!    [`secret`] (passwords and tokens read from files, redacted in every `Debug`) and
//!    [`decimal`] (integers written as digits without the formatter).
//! 2. [`protocol`]: one folder per protocol with its sans-IO codec, its exchange (the
//!    dialogue as a state machine: challenges, splits, tokens, fallbacks) and its spec
//!    (`spec.rs`: the protocol's facts stated once: id, default port, resolution, link,
//!    pacing, credential keys and what they mean, how its exchange is built); the parts
//!    every exchange shares (`protocol::exchange`) and the vocabulary a spec and an exchange
//!    need (`protocol::spec`, `limits`, `credentials`, `memory`). Uses only layer 1; no
//!    tokio, no sockets, no clock of its own: an exchange is told `now` (it builds without
//!    the `daemon` feature, and the fuzz targets drive exchanges through input sequences). A
//!    bad input is a structured `DecodeError`, a failed exchange an `exchange::Error`,
//!    never a label.
//!    [`target`] sits on it: what a poll aims at (the `Protocol` list, one line per spec,
//!    which every layer above names; address, limits, the configured target and every
//!    default). [`games`] (game presets: which protocol and default port a game id means)
//!    sits on `target` and is used by `config` and `query`.
//! 3. [`net`]: the transports: the shared UDP socket (mux), connected UDP, TCP, name and SRV
//!    resolution, every wait with a deadline. Errors are `NetError` (the runtime-free
//!    `protocol::exchange::LinkError`, wrapping `DecodeError`).
//! 4. [`query`]: the registry (the one generic poll that runs any protocol's spec: resolve
//!    as it says, open its link, build its exchange) and the driver that runs any exchange
//!    over any transport with resends and pacing, on tokio's clock. It
//!    produces one normalized [`status::Status`] or a [`status::Failure`]: the one place
//!    where errors become a closed [`status::Reason`] is `query::Error::reason` (the
//!    exchanges' error). `docs/adding-a-protocol.md` shows what a new protocol fills in.
//! 5. [`simulate`]: in-process servers for every protocol, used by `demo` and by the tests;
//!    it reaches `protocol` and the vocabulary only, never the client side.
//! 6. The daemon: [`config`] (model, schema and validation; `config::cidr` for the
//!    allow-list), [`state`] (targets and their latest results; `state::roster` cuts player
//!    lists down to bounded per-player series), [`scheduler`] (its tasks on the
//!    `scheduler::poller` thread), [`shard`] (this replica's share of the targets,
//!    Prometheus's `hashmod` over target names), [`metrics`] (the exposition: families,
//!    labels, encoder; never `net`, `protocol`, `query` or `scheduler`), [`daemon`] (the
//!    running exporter, [`daemon::Daemon`]: configuration, scheduler and state tied
//!    together; a file reloaded with the configuration joins as a [`daemon::Companion`]),
//!    [`http`] (every endpoint in one folder: the server and routing, `/probe` (lookup,
//!    resolution through `query`, allow-list, one poll; `config`'s modules for the blackbox
//!    form `module=&target=`), `/health?target=`, `/api/v1/targets`, the status page and
//!    `--web.config.file` (TLS, basic auth; gzip for every answer); parses, delegates,
//!    responds; never `protocol` or `net`), [`serve`] (the entry point: a daemon serving
//!    HTTP until told to stop) and [`demo`].
//!
//! No two top-level modules import each other, directly or through others; nor do two
//! sibling submodules inside one (`metrics::encode` and `metrics::families`, or a file under
//! `protocol::a2s::split` and `protocol::a2s::info`). A module and its own children may use
//! each other (a `mod.rs` re-exports and calls its children, they use its shared items).

#![forbid(unsafe_code)]

#[cfg(feature = "daemon")]
pub mod config;
#[cfg(feature = "daemon")]
pub mod daemon;
pub mod decimal;
#[cfg(feature = "daemon")]
pub mod demo;
pub mod games;
#[cfg(feature = "daemon")]
pub mod http;
#[cfg(feature = "daemon")]
pub mod metrics;
#[cfg(feature = "daemon")]
pub mod net;
pub mod protocol;
#[cfg(feature = "daemon")]
pub mod query;
#[cfg(feature = "daemon")]
pub mod scheduler;
pub mod secret;
#[cfg(feature = "daemon")]
pub mod serve;
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
#[cfg(feature = "daemon")]
pub mod text;
