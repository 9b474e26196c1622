//! The HTTP side, every endpoint in one place: a hyper HTTP/1 server that parses, delegates
//! and responds. It reads the running exporter through [`crate::daemon::Daemon`], renders
//! through [`crate::metrics`] and polls (for `/probe`) through [`crate::query`]; it never
//! reaches `protocol` or `net` (`tests/it/architecture.rs` pins that).
//!
//! | Endpoint | Served by |
//! |---|---|
//! | `/metrics` | [`router`] (rendering: [`crate::metrics`]) |
//! | `/probe`, `/probe?debug=true` | [`probe`] ([`probe::debug`] for the transcript) |
//! | `/health?target=` | [`health`] |
//! | `/sd` | [`router`] (Prometheus HTTP service discovery) |
//! | `/api/v1/targets` | [`api`] (every target's last result as JSON, for game panels) |
//! | `/` | [`landing`] (the status page) |
//! | `/-/healthy`, `/-/ready`, `/-/reload` | [`router`] |
//!
//! Beneath them:
//! - [`router`]: the server (accept, connection limits, header and TLS handshake timeouts),
//!   authentication, routing and the one gzip wrapper every response passes through.
//! - [`web`]: `--web.config.file` (TLS, basic auth), gzip and streamed bodies. [`web::Web`]
//!   is reloaded together with the main configuration as the
//!   [`crate::daemon::Companion`] of the [`crate::daemon::Daemon`].

pub mod api;
pub mod health;
pub mod landing;
pub mod probe;
pub mod router;
pub mod web;

pub use router::{parse_query, serve, MAX_CONNECTIONS, MAX_HEADER_BYTES};
