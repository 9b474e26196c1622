//! Teeworlds / DDNet dialogue: the detecting [`machine::Machine`] (DDNet extended request
//! first, the 0.7 token handshake as a fallback, DDNet's multi-packet lists reassembled under
//! caps) run by the generic driver as an [`Exchange`]. The wire format is the codec's
//! (`protocol/teeworlds/`); why this order, `docs/protocols/teeworlds.md`.
//!
//! Unlike the one-request dialogues, two dialects can be in flight at once (after the
//! fallback both the 0.6 request and the 0.7 handshake wait for an answer), so the machine
//! resends each request kind itself, never two of one kind closer than the registry's
//! `min_gap`, and the driver's own resends are off (the registry marks it self-paced).
//!
//! Latency is the answered info request's round trip (from its last copy to the first reply
//! packet), never the 0.7 handshake's. The dialect that answered is remembered between
//! polls ([`Teeworlds::flavour`], kept by the caller), so a 0.7 server pays the fallback wait
//! on its first poll only.

use std::time::{Duration, Instant};

use serde_json::json;

use super::machine::{ExchangeConfig, Machine, Outcome, Poll, Tokens};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::teeworlds::Flavour;
use crate::protocol::{teeworlds, DecodeError};

impl Tokens {
    /// Fresh random tokens for one poll.
    pub fn random() -> Tokens {
        Tokens {
            six: random_u32(),
            seven: random_u32(),
            // Kept positive: servers echo it as a packed int, and nothing needs the sign bit.
            browse: (random_u32() & 0x7fff_ffff) as i32,
        }
    }
}

/// The Teeworlds dialogue as an [`Exchange`]: the machine, started at the first poll's
/// `now`, plus the deadline, the failure reasons and the normalization.
#[derive(Debug)]
pub struct Teeworlds {
    params: Params,
    /// The dialect that answered: given by the caller from the last poll, read back after.
    flavour: Option<Flavour>,
    tokens: Tokens,
    config: ExchangeConfig,
    deadline: Instant,
    machine: Option<Machine>,
    /// The transport failed (a closed port's ICMP error): the poll ends with it.
    failed: Option<Error>,
}

impl Teeworlds {
    /// A poll until `deadline` that asks `hint` (the dialect that answered last time) first
    /// and never sends two requests of one kind closer than `min_gap`.
    pub fn new(
        params: Params,
        hint: Option<Flavour>,
        tokens: Tokens,
        min_gap: Duration,
        deadline: Instant,
    ) -> Teeworlds {
        let config = ExchangeConfig {
            min_gap,
            want_clients: params.players || params.detail,
            hint,
            ..ExchangeConfig::default()
        };
        Teeworlds {
            params,
            flavour: hint,
            tokens,
            config,
            deadline,
            machine: None,
            failed: None,
        }
    }

    /// The dialect to ask first next time.
    pub fn flavour(&self) -> Option<Flavour> {
        self.flavour
    }

    fn finish(&mut self, done: Result<Outcome, DecodeError>) -> Step {
        let o = match done {
            Ok(o) => o,
            Err(e) => return Step::Failed(e.into()),
        };
        self.flavour = Some(o.info.flavour);
        let mut status = teeworlds::to_status(o.info, self.params.players, self.params.detail);
        status.latency = o.rtt;
        if self.params.detail {
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
    #[cfg(feature = "daemon")]
    if let Some(e) = m.last_ignored() {
        tracing::debug!(ignored = m.ignored(), last = %e, "no Teeworlds answer of ours came");
    }
    if m.is_pending() {
        Error::SplitIncomplete
    } else if m.ignored() > 0 {
        Error::Unanswered { count: m.ignored() }
    } else {
        LinkError::Timeout.into()
    }
}

impl Exchange for Teeworlds {
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
            Input::Closed => self.failed = Some(LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.failed = Some(e.into()),
        }
    }
}

/// What a Teeworlds target remembers between polls: the dialect that answered, asked first.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    pub flavour: Option<Flavour>,
}
