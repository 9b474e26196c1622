//! The Ventrilo dialogue: one detailed status request (command 2), its reply's parts
//! collected in any order until every one is in. No socket, no clock.
//!
//! Resends are the driver's: it may send the request again while it waits, and the server
//! answers each copy, so a part that came already is ignored when it is the same bytes.
//! Latency is the request's round trip to the datagram completing the reply. Failures:
//! `timeout` (nothing came), `mismatch` (only packets for another request id), `incomplete`
//! (some parts, not all), `malformed` (lengths, numbers, totals or checksum that do not add
//! up; an `ERROR` answer), `too_large` (past a cap).

use std::time::Instant;

use super::obfuscation::Key;
use super::packet::{decode_part, encode_request, Keys, Parts, CMD_DETAIL};
use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::status::Status;

/// One poll of one Ventrilo server.
#[derive(Debug)]
pub struct Ventrilo {
    params: Params,
    /// The request id every part echoes.
    id: u16,
    keys: Keys,
    ask: Ask,
    parts: Parts,
    outcome: Option<Result<Status, Error>>,
    over: bool,
}

impl Ventrilo {
    /// A poll until `deadline` asking with `id` and `keys` (any values: the id only matches
    /// replies, the keys only scramble).
    pub fn new(params: Params, id: u16, keys: Keys, deadline: Instant) -> Ventrilo {
        let limits = params.limits;
        Ventrilo {
            params,
            id,
            keys,
            ask: Ask::new(deadline),
            parts: Parts::new(limits.max_split_packets, limits.reply_cap()),
            outcome: None,
            over: false,
        }
    }

    fn fail(&mut self, e: Error) {
        if self.outcome.is_none() {
            self.outcome = Some(Err(e));
        }
    }

    fn on_datagram(&mut self, datagram: &[u8], rtt: std::time::Duration) -> Result<(), Error> {
        let part = decode_part(datagram, self.id)?;
        let Some(text) = self.parts.add(part)? else {
            return Ok(());
        };
        let info = super::parse(&text)?;
        let p = &self.params;
        let status = super::to_status(&info, rtt, p.players, p.rules, p.detail)?;
        self.outcome = Some(Ok(status));
        Ok(())
    }
}

/// A poll's exchange: a fresh id and fresh keys (steps never 0, so both runs are scrambled
/// as every reader's requests are).
pub fn new(params: Params, deadline: Instant) -> Ventrilo {
    let [a, b, c, d] = random_u32().to_be_bytes();
    let id = (random_u32() & 0xFFFF) as u16;
    let keys = Keys {
        header: Key::new(a, b | 1),
        data: Key::new(c, d | 1),
    };
    Ventrilo::new(params, id, keys, deadline)
}

impl Exchange for Ventrilo {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(outcome) = self.outcome.take() {
            self.over = true;
            return match outcome {
                Ok(status) => Step::Done(status),
                Err(e) => Step::Failed(e),
            };
        }
        if self.over {
            return Step::Failed(LinkError::Timeout.into());
        }
        match self.ask.next(now) {
            Next::Send => {
                out.clear();
                encode_request(CMD_DETAIL, self.id, self.keys, out);
                Step::Send("Ventrilo detailed status (command 2)")
            }
            Next::Wait(step) => step,
            Next::Expired(e) => {
                self.over = true;
                if self.parts.have() > 0 {
                    Step::Failed(Error::SplitIncomplete)
                } else {
                    Step::Failed(e)
                }
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.outcome.is_some() || self.over {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => match self.on_datagram(bytes, rtt) {
                Ok(()) => {}
                // Not our reply (another request id, not a status packet): skipped, counted.
                Err(e)
                    if e.decode()
                        .is_some_and(|d| matches!(d, DecodeError::Mismatch(_))) =>
                {
                    self.ask.foreign();
                }
                Err(e) => self.fail(e),
            },
            Input::Closed => self.fail(LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.fail(e.into()),
        }
    }
}
