//! The one shape of every dialogue: a sans-IO state machine that the generic driver
//! (`query::driver::drive`, in the daemon) runs over a transport.
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
//!      again while no reply comes (its pacing); [`Step::SendSecret`] for bytes that carry
//!      a secret, which no observer sees;
//!    - [`Step::SendAhead`]: pipelining. The bytes in `out` go out once, ahead of the
//!      request of the next [`Step::Send`] and together with it (on the shared UDP socket
//!      in the same `sendmmsg`); they are never resent and no round trip is timed from
//!      them. Poll again at once. For a request whose answer the exchange accepts whenever
//!      it comes (A2S_PLAYER with a known challenge, ahead of A2S_INFO): the two replies
//!      then usually arrive in one receive batch and cost the poll one wake-up, not two
//!      round trips. If its reply is lost, the exchange asks again the ordinary way;
//!    - [`Step::Wait`]: feed whatever arrives until the instant, then poll again;
//!    - [`Step::Done`] / [`Step::Failed`]: the poll's result.
//! 2. [`Exchange::handle`] with each [`Input`]: a datagram or stream chunk, the stream's
//!    end, or a transport error. Then poll again.

use std::time::{Duration, Instant};

use super::error::{Error, LinkError};
use crate::protocol::limits::Limits;
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
    /// As [`Step::Send`], for a request that carries a secret (an RCON auth packet, a login
    /// line, an Authorization header): the observer (the `debug=true` transcript) sees only
    /// its label and length, `<redacted N bytes>`, and the driver never resends it.
    SendSecret(&'static str),
    /// Send the request the exchange just wrote into `out` once, ahead of (and together
    /// with) the next [`Step::Send`]'s; never resent, never timed. The label names it for
    /// the observer, which sees it as sent. See the module documentation.
    SendAhead(&'static str),
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
    Failed(LinkError),
}

/// A dialogue as a state machine; see the module documentation for how it is driven.
pub trait Exchange {
    /// What to do next at `now`. `out` is the request buffer: write the request into it
    /// (cleared first) before answering [`Step::Send`] or [`Step::SendAhead`]; leave it alone
    /// otherwise, since the driver resends what it holds.
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step;

    /// Something happened on the transport at `now`.
    fn handle(&mut self, now: Instant, input: Input<'_>);
}

/// What one poll asks of an exchange, beyond where the server is: the runtime-free part of
/// the daemon's request (the daemon's `query::Request` adds the address and shared sockets).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// Also fetch the player list.
    pub players: bool,
    /// Also fetch rules.
    pub rules: bool,
    /// Keep bulky detail in `Status::extras` (the `query` command).
    pub detail: bool,
    pub limits: Limits,
    /// Code page for protocols that send legacy text (SA:MP).
    pub encoding: &'static encoding_rs::Encoding,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            players: false,
            rules: false,
            detail: false,
            limits: Limits::default(),
            encoding: crate::protocol::limits::DEFAULT_ENCODING,
        }
    }
}
