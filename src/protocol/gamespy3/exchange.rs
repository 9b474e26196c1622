//! The whole dialogue as a sans-IO state machine: it is told the time and fed datagrams, and
//! answers what to do next. No socket, no clock.
//!
//! 1. Send the handshake; wait a third of the budget for the challenge.
//! 2. Send the request: with the challenge, or without one when the server answered 0 or
//!    did not answer the handshake at all (some Battlefield 2 builds). A challenge that comes
//!    late, after the challenge-less request, is still taken: the request goes again with it.
//! 3. Collect the parts in any order until the last and every one before it are in; decode.
//!
//! Resends are the driver's: on [`Step::Wait`] it may send the bytes of the last
//! [`Step::Send`] again (duplicate parts are ignored).

use std::time::{Duration, Instant};

use super::body::{decode_body, Reply};
use super::parts::{decode_part, Parts};
use super::{
    decode_handshake, encode_handshake, encode_request, DecodeError, Flavor, TYPE_HANDSHAKE,
};

/// Challenges we take in one poll: the first, and one that replaces it (a late or repeated
/// handshake reply). A server that keeps issuing new ones fails with [`Error::Challenge`].
pub const MAX_CHALLENGES: u8 = 3;

/// How the exchange is set up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub flavor: Flavor,
    /// The whole poll's budget.
    pub timeout: Duration,
    /// Skip the handshake and send the challenge-less request at once (qstat's `-gs3`).
    pub skip_handshake: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            flavor: Flavor::GAMESPY3,
            timeout: Duration::from_secs(3),
            skip_handshake: false,
        }
    }
}

/// Why the exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Nothing that answered us came before the deadline.
    #[error("no GameSpy3 reply before the deadline")]
    Timeout,
    /// Some parts came, not all.
    #[error("GameSpy3 reply incomplete: {have} part(s) of {}", total.map_or("?".to_string(), |t| t.to_string()))]
    Incomplete { have: usize, total: Option<u8> },
    /// The server kept issuing new challenges.
    #[error("GameSpy3 server issued more than {limit} challenges")]
    Challenge { limit: u8 },
    /// A reply addressed to us did not decode, or exceeded a cap.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// What to do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send the bytes just written into `out`; the label names the request.
    Send(&'static str),
    /// Feed whatever arrives until the instant, then poll again.
    Wait(Instant),
    /// The reply, whole.
    Done(Reply),
    Failed(Error),
}

#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Handshake {
        sent: bool,
    },
    Query {
        challenge: Option<i32>,
        sent: bool,
    },
    /// Finished: polling again repeats the result.
    Over(Box<Step>),
}

/// One poll of one server.
#[derive(Debug)]
pub struct Exchange {
    options: Options,
    /// The session id as the server echoes it.
    session: i32,
    deadline: Instant,
    handshake_until: Instant,
    phase: Phase,
    parts: Parts,
    challenges: u8,
    outcome: Option<Result<Reply, Error>>,
}

impl Exchange {
    /// A poll starting at `now` with session id `session` (drawn by the caller).
    pub fn new(session: i32, options: Options, now: Instant) -> Exchange {
        let phase = if options.skip_handshake {
            Phase::Query {
                challenge: None,
                sent: false,
            }
        } else {
            Phase::Handshake { sent: false }
        };
        Exchange {
            session: options.flavor.mask(session),
            deadline: now + options.timeout,
            handshake_until: now + options.timeout / 3,
            options,
            phase,
            parts: Parts::new(),
            challenges: 0,
            outcome: None,
        }
    }

    /// The session id as sent and echoed.
    pub fn session(&self) -> i32 {
        self.session
    }

    /// What to do at `now`. Writes the request into `out` (cleared first) before a
    /// [`Step::Send`]; leaves it alone otherwise.
    pub fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(outcome) = self.outcome.take() {
            let step = match outcome {
                Ok(reply) => Step::Done(reply),
                Err(e) => Step::Failed(e),
            };
            self.phase = Phase::Over(Box::new(step.clone()));
            return step;
        }
        match &self.phase {
            Phase::Handshake { sent: false } => {
                out.clear();
                encode_handshake(self.session, out);
                self.phase = Phase::Handshake { sent: true };
                Step::Send("handshake")
            }
            Phase::Handshake { sent: true } if now < self.handshake_until => {
                Step::Wait(self.handshake_until)
            }
            Phase::Handshake { sent: true } => {
                // No challenge came: try the request without one (Battlefield 2).
                self.phase = Phase::Query {
                    challenge: None,
                    sent: false,
                };
                self.poll(now, out)
            }
            &Phase::Query {
                challenge,
                sent: false,
            } => {
                out.clear();
                encode_request(self.session, challenge, self.options.flavor.payload, out);
                self.phase = Phase::Query {
                    challenge,
                    sent: true,
                };
                Step::Send(if challenge.is_some() {
                    "request with challenge"
                } else {
                    "request without challenge"
                })
            }
            Phase::Query { sent: true, .. } if now < self.deadline => Step::Wait(self.deadline),
            Phase::Query { sent: true, .. } => {
                let step = Step::Failed(match self.parts.have() {
                    0 => Error::Timeout,
                    have => Error::Incomplete {
                        have,
                        total: self.parts.total(),
                    },
                });
                self.phase = Phase::Over(Box::new(step.clone()));
                step
            }
            Phase::Over(step) => (**step).clone(),
        }
    }

    /// A datagram arrived at `now`. Datagrams not addressed to us (other type, other
    /// session) are ignored.
    pub fn handle(&mut self, _now: Instant, datagram: &[u8]) {
        if self.outcome.is_some() || matches!(self.phase, Phase::Over(_)) {
            return;
        }
        let result = if datagram.first() == Some(&TYPE_HANDSHAKE) {
            self.on_challenge(datagram)
        } else {
            self.on_part(datagram)
        };
        match result {
            Ok(()) | Err(Error::Decode(DecodeError::Mismatch(_))) => {}
            Err(e) => self.outcome = Some(Err(e)),
        }
    }

    fn on_challenge(&mut self, datagram: &[u8]) -> Result<(), Error> {
        let challenge = decode_handshake(datagram, self.session)?;
        let challenge = (challenge != 0).then_some(challenge);
        if let &Phase::Query {
            challenge: current, ..
        } = &self.phase
        {
            if current == challenge || challenge.is_none() {
                // The same answer to a resent handshake, or "no challenge needed" after we
                // already asked without one.
                return Ok(());
            }
        }
        self.challenges += 1;
        if self.challenges > MAX_CHALLENGES {
            return Err(Error::Challenge {
                limit: MAX_CHALLENGES,
            });
        }
        self.phase = Phase::Query {
            challenge,
            sent: false,
        };
        Ok(())
    }

    fn on_part(&mut self, datagram: &[u8]) -> Result<(), Error> {
        // Parts of an earlier request (before a late challenge) are as good as any.
        if !matches!(self.phase, Phase::Query { .. }) {
            return Err(DecodeError::Mismatch("GameSpy3 part before the request").into());
        }
        let part = decode_part(datagram, self.session)?;
        if self.parts.add(&part)? {
            let reply = decode_body(self.parts.bodies())?;
            self.outcome = Some(Ok(reply));
        }
        Ok(())
    }
}
