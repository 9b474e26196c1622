//! Each protocol's dialogue (challenges, split replies, fallbacks) turned into one normalized
//! [`Status`] or one [`Failure`]. The scheduler, `/probe` and the `query` command all call
//! [`poll`]; nothing above this module knows which protocol it is talking to.
//!
//! One `poll` is bounded by `Request::timeout` as a whole: DNS, every round trip and every
//! retry share the same deadline.
//!
//! # Shape
//! Every protocol is a codec in `protocol/` plus an [`exchange::Exchange`] here: a sans-IO
//! state machine that is told `now` and answers "send these bytes / wait until / done /
//! failed". One generic [`driver::drive`] runs any exchange over any
//! [`transport::Transport`] (shared UDP mux, connected UDP, TCP; an in-memory fake in tests),
//! with resends, pacing and an optional [`driver::Observer`]. [`registry`] holds one entry
//! per protocol and dispatches. Errors are [`Error`] values; [`Error::reason`] is the one
//! mapping onto the published failure reasons.

pub mod driver;
#[cfg(test)]
mod fake;
mod health;
mod health_error;
mod peer_gate;
pub mod registry;
#[cfg(test)]
mod registry_tests;
mod request;
mod sdtd_health;
#[cfg(test)]
mod teeworlds_tests;
#[cfg(test)]
mod tests;
pub mod transport;
mod webrcon_health;

use tokio::time::Instant;

use crate::status::{Failure, Status};

/// Name resolution (A/AAAA, no SRV) under a deadline, for callers above `query` that must
/// check an address before polling it (`/probe`'s allow-list) without reaching `net`.
pub use crate::net::resolve::resolve;
pub use crate::protocol::exchange::Error;
pub use driver::{Observer, RESENDS, RESEND_AFTER_MIN};
pub use request::{Request, Session};

/// Polls one server once, remembering nothing.
pub async fn poll(req: &Request) -> Result<Status, Failure> {
    poll_with(req, &mut Session::default()).await
}

/// Polls one server once, using and refreshing what `session` remembers of it.
pub async fn poll_with(req: &Request, session: &mut Session) -> Result<Status, Failure> {
    poll_observed(req, session, None).await
}

/// Like [`poll_with`], showing `observer` every datagram or chunk sent and received, every
/// resend, timeout and the result (for transcripts such as `/probe?debug=true`).
pub async fn poll_observed(
    req: &Request,
    session: &mut Session,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Failure> {
    poll_until(req, session, Instant::now() + req.timeout, observer).await
}

/// Like [`poll_observed`], with the deadline given instead of `req.timeout` from now (the
/// scheduler has just read the clock).
pub async fn poll_until(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Failure> {
    let result = registry::poll(req, session, deadline, observer).await;
    session.udp_shared_ok = result.is_ok();
    session.polled = true;
    result.map_err(Failure::from)
}

/// Like [`poll_until`] with no observer, for a caller that has dispatched on the protocol
/// itself ([`registry::dispatch`]): `X` is `req.protocol`'s exchange and `spec` its spec,
/// and the poll is not boxed here (the scheduler's one box per poll holds it).
pub async fn poll_until_as<X: registry::Build>(
    spec: &'static registry::Spec,
    req: &Request,
    session: &mut Session,
    deadline: Instant,
) -> Result<Status, Failure> {
    let result = registry::run::<X>(spec, req, session, deadline, None).await;
    session.udp_shared_ok = result.is_ok();
    session.polled = true;
    result.map_err(Failure::from)
}
