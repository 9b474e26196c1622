//! Teeworlds / DDNet dialogue: the detecting [`machine::Machine`] (DDNet extended request
//! first, the 0.7 token handshake as a fallback, DDNet's multi-packet lists reassembled under
//! caps) run by the generic driver as an [`Exchange`]. The wire format is the codec's
//! (`protocol/teeworlds/`); why this order, `docs/protocols/teeworlds.md`.
//!
//! Unlike the one-request dialogues, two dialects can be in flight at once (after the
//! fallback both the 0.6 request and the 0.7 handshake wait for an answer), so the machine
//! resends each request kind itself, never two of one kind closer than the registry's
//! `min_gap`, and the driver's own resends are off ([`PACING`]).
//!
//! Latency is the answered info request's round trip (from its last copy to the first reply
//! packet), never the 0.7 handshake's. The dialect that answered is remembered in the
//! [`Session`], so a 0.7 server pays the fallback wait on its first poll only.

mod machine;

use std::time::Duration;

use serde_json::json;
use tokio::time::Instant;

use self::machine::{ExchangeConfig, Machine, Outcome, Poll};
use super::driver::{drive, Observer, Pacing};
use super::exchange::{random_u32, Exchange, Input, Step};
use super::{registry, Error, Request, Session};
use crate::net::{self, NetError};
use crate::protocol::{teeworlds, DecodeError};
use crate::status::Status;
use crate::target::Protocol;

pub(super) use self::machine::Tokens;

/// The machine resends per request kind; the driver only does the I/O.
const PACING: Pacing = Pacing {
    resends: 0,
    min_gap: Duration::ZERO,
};

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let addr =
        net::resolve::resolve(&req.address, Protocol::Teeworlds.default_port(), deadline).await?;
    let mut chan = registry::udp(Protocol::Teeworlds, addr, req, session).await?;
    let tokens = Tokens {
        six: random_u32(),
        seven: random_u32(),
        // Kept positive: servers echo it as a packed int, and nothing needs the sign bit.
        browse: (random_u32() & 0x7fff_ffff) as i32,
    };
    let mut exchange = Teeworlds::new(req, session, tokens, deadline);
    drive(&mut exchange, &mut chan, deadline, PACING, observer).await
}

/// The Teeworlds dialogue as an [`Exchange`]: the machine, started at the first poll's
/// `now`, plus the deadline, the failure reasons and the normalization.
#[derive(Debug)]
pub(super) struct Teeworlds<'a> {
    req: &'a Request,
    session: &'a mut Session,
    tokens: Tokens,
    config: ExchangeConfig,
    deadline: Instant,
    machine: Option<Machine>,
    /// The transport failed (a closed port's ICMP error): the poll ends with it.
    failed: Option<Error>,
}

impl<'a> Teeworlds<'a> {
    pub(super) fn new(
        req: &'a Request,
        session: &'a mut Session,
        tokens: Tokens,
        deadline: Instant,
    ) -> Teeworlds<'a> {
        let config = ExchangeConfig {
            min_gap: registry::entry(Protocol::Teeworlds).min_gap,
            want_clients: req.players || req.detail,
            hint: session.teeworlds_flavour,
            ..ExchangeConfig::default()
        };
        Teeworlds {
            req,
            session,
            tokens,
            config,
            deadline,
            machine: None,
            failed: None,
        }
    }

    fn finish(&mut self, done: Result<Outcome, DecodeError>) -> Step {
        let o = match done {
            Ok(o) => o,
            Err(e) => return Step::Failed(e.into()),
        };
        self.session.teeworlds_flavour = Some(o.info.flavour);
        let mut status = teeworlds::to_status(o.info, self.req.players, self.req.detail);
        status.latency = o.rtt;
        if self.req.detail {
            // False when fewer clients came than the server counted (a lost DDNet packet).
            status.extras.insert("complete".into(), json!(o.complete));
        }
        Step::Done(status)
    }
}

/// Why a machine that never finished failed at the deadline: a DDNet reply under way without
/// its first packet (`incomplete`), only datagrams answering something else (`mismatch`), or
/// nothing (`timeout`).
fn expired(m: &Machine) -> Error {
    if let Some(e) = m.last_ignored() {
        tracing::debug!(ignored = m.ignored(), last = %e, "no Teeworlds answer of ours came");
    }
    if m.is_pending() {
        Error::SplitIncomplete
    } else if m.ignored() > 0 {
        Error::Unanswered { count: m.ignored() }
    } else {
        NetError::Timeout.into()
    }
}

impl Exchange for Teeworlds<'_> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(e) = self.failed.take() {
            return Step::Failed(e);
        }
        let (tokens, config) = (self.tokens, self.config);
        let m = self
            .machine
            .get_or_insert_with(|| Machine::new(now, tokens, config));
        if now >= self.deadline {
            return match m.settle_at_deadline() {
                Some(done) => self.finish(done),
                None => Step::Failed(expired(m)),
            };
        }
        match m.poll(now) {
            Poll::Transmit(datagram, what) => {
                out.clear();
                out.extend_from_slice(&datagram);
                Step::Send(what)
            }
            Poll::Wait(until) => Step::Wait(until.min(self.deadline)),
            Poll::Done(done) => self.finish(done),
        }
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        let Some(m) = &mut self.machine else {
            return;
        };
        match input {
            Input::Received { bytes, .. } => m.handle_datagram(now, bytes),
            Input::Closed => self.failed = Some(NetError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.failed = Some(e.into()),
        }
    }
}

#[cfg(test)]
mod tests;
