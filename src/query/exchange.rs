//! The one shape of every dialogue: a sans-IO state machine that the generic driver
//! ([`super::driver::drive`]) runs over a transport.
//!
//! An exchange never touches a socket and never reads the clock: it is told `now`, it is fed
//! what the transport saw ([`Input`]), and it answers what to do next ([`Step`]): open a
//! connection, send the request it just wrote, wait until an instant, or finish with a
//! [`Status`] or an [`Error`]. Time budgets, resends, pacing and observation are the
//! driver's; what the bytes mean, and what to ask next, are the exchange's. So every
//! dialogue (A2S challenge rounds and split reassembly, the Minecraft Query token, SA:MP `d`
//! then `c`, the server list ping's legacy fallback chain) can be tested without sockets
//! through an in-memory transport.
//!
//! # Driving an exchange
//! 1. [`Exchange::poll`] with the current time. It answers:
//!    - [`Step::Connect`]: open a (new) connection before the instant (streams only);
//!    - [`Step::Send`]: send the bytes it wrote into `out`; over UDP the driver sends them
//!      again while no reply comes (see [`super::driver::Pacing`]);
//!    - [`Step::Wait`]: feed whatever arrives until the instant, then poll again;
//!    - [`Step::Done`] / [`Step::Failed`]: the poll's result.
//! 2. [`Exchange::handle`] with each [`Input`]: a datagram or stream chunk, the stream's
//!    end, or a transport error. Then poll again.

use std::time::Duration;

use serde_json::{Map, Value};
use tokio::time::Instant;

use super::Error;
use crate::net::NetError;
use crate::status::Status;

/// What the driver should do next.
#[derive(Debug)]
pub enum Step {
    /// Open a new connection (dropping any previous one), giving up at the instant. Streams
    /// only; a datagram transport is ready from the start.
    Connect(Instant),
    /// Send the request the exchange just wrote into `out`. The label names it for the
    /// observer ("A2S_INFO", "A2S_INFO after a challenge", ...).
    Send(&'static str),
    /// Wait for input until the instant, then poll again.
    Wait(Instant),
    /// The poll succeeded.
    Done(Status),
    /// The poll failed.
    Failed(Error),
}

/// What the transport saw, fed to [`Exchange::handle`].
#[derive(Debug)]
pub enum Input<'a> {
    /// A datagram, or the next chunk of a stream. `rtt` is the time since the last copy of
    /// the request went out (after a resend the reply most likely answers the latest copy).
    Received { bytes: &'a [u8], rtt: Duration },
    /// The peer closed the stream.
    Closed,
    /// Connecting, sending or receiving failed.
    Failed(NetError),
}

/// A dialogue as a state machine; see the module documentation for how it is driven.
pub trait Exchange {
    /// What to do next at `now`. `out` is the request buffer: write the request into it
    /// (cleared first) before answering [`Step::Send`]; leave it alone otherwise, since the
    /// driver resends what it holds.
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step;

    /// Something happened on the transport at `now`.
    fn handle(&mut self, now: Instant, input: Input<'_>);
}

/// The deadline for the next of `left` steps that share the time until `deadline` evenly:
/// every dialogue splits its remaining time this one way, so a server that ignores one step
/// cannot starve the next, and answered steps leave more for the rest.
pub fn share(now: Instant, deadline: Instant, left: usize) -> Instant {
    let remaining = deadline.saturating_duration_since(now);
    (now + remaining / (left.max(1) as u32)).min(deadline)
}

/// Records in a status's extras why a best-effort step failed: the failure reason (a label
/// from the closed set), so extras stay as predictable as the metrics. Detail goes to the log.
pub fn note(extras: &mut Map<String, Value>, key: &str, e: &Error) {
    tracing::debug!(step = key, error = %e, "best-effort step failed");
    extras.insert(key.into(), Value::String(e.reason().as_str().into()));
}

/// Counts the challenges a server issues in a row and fails the exchange past the bound.
#[derive(Debug, Clone, Copy)]
pub struct Challenges {
    seen: u8,
    limit: u8,
}

impl Challenges {
    pub fn new(limit: u8) -> Challenges {
        Challenges { seen: 0, limit }
    }

    /// Challenges seen so far.
    pub fn seen(&self) -> u8 {
        self.seen
    }

    /// One more challenge came: fine while within the bound, `challenge` past it.
    pub fn another(&mut self) -> Result<(), Error> {
        self.seen = self.seen.saturating_add(1);
        if self.seen > self.limit {
            return Err(Error::Challenge { limit: self.limit });
        }
        Ok(())
    }
}

/// Unpredictable enough for a ping payload or a session id; not for secrets.
pub fn random_u32() -> u32 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::collections::hash_map::RandomState::new().hash_one(nanos) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shares split what is left evenly, never past the deadline, and zero steps count as one.
    #[test]
    fn shares() {
        let now = Instant::now();
        let deadline = now + Duration::from_secs(3);
        assert_eq!(share(now, deadline, 3), now + Duration::from_secs(1));
        assert_eq!(share(now, deadline, 1), deadline);
        assert_eq!(share(now, deadline, 0), deadline);
        assert_eq!(
            share(deadline + Duration::from_secs(1), deadline, 2),
            deadline
        );
    }

    /// The bound allows exactly `limit` challenges in a row.
    #[test]
    fn challenge_bound() {
        let mut c = Challenges::new(2);
        assert!(c.another().is_ok());
        assert!(c.another().is_ok());
        assert!(matches!(c.another(), Err(Error::Challenge { limit: 2 })));
    }
}
