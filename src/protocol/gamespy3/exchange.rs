//! The GameSpy 3 dialogue on the shared [`Exchange`] trait: told the time, fed datagrams,
//! answering what to do next. No socket, no clock.
//!
//! 1. Send the handshake; wait a third of the budget for the challenge.
//! 2. Send the request: with the challenge, or without one when the server answered 0 or did
//!    not answer the handshake at all (some Battlefield 2 builds). A challenge that comes
//!    late, after the challenge-less request, is still taken: the request goes again with it.
//! 3. Collect the parts in any order until the last and every one before it are in; decode.
//!
//! Memory between polls ([`GameSpy3::challengeless`], kept in the target's session): a
//! server that answered a request without a challenge last time gets that request first,
//! so a Battlefield 2 that ignores handshakes costs one round trip, not a third of the
//! budget per poll. If nothing answers it within a third of the budget, the handshake
//! follows (the server changed).
//!
//! Resends are the driver's: on [`Step::Wait`] it may send the bytes of the last
//! [`Step::Send`] again (duplicate parts are ignored). Failures: `timeout` (nothing came),
//! `mismatch` (only datagrams for another session), `incomplete` (some parts, not all),
//! `challenge` (more than `Limits::max_challenges` challenges), `malformed` / `too_large`
//! (a reply of ours that did not decode, or went past a cap).

use std::time::{Duration, Instant};

use super::body::view_body_keeping;
use super::map::{status_of, Want};
use super::parts::{decode_part_in, Parts};
use super::{decode_handshake_in, encode_handshake, encode_request, DecodeError, Flavor};
use super::{MAX_PARTS, TYPE_HANDSHAKE};
use crate::protocol::exchange::tools::{share, Challenges};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::status::Status;

/// Where the dialogue is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Not started: the first poll decides the time shares.
    Start,
    Handshake {
        sent: bool,
    },
    Query {
        /// `None`: the request goes without challenge bytes.
        challenge: Option<i32>,
        sent: bool,
    },
    Over,
}

/// Reads a dialect's whole single-part reply body into the status (what the caller wants
/// of it, the request's round trip).
pub type ReadBody = fn(body: &[u8], want: Want, latency: Duration) -> Result<Status, DecodeError>;

/// A server family that keeps GameSpy 3's handshake, challenge and reply header but asks
/// with other payload bytes and lays its reply out its own way (Just Cause 2 Multiplayer).
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    /// Session ids, the request's payload, whether the reply is one part, the error words.
    pub flavor: Flavor,
    /// The reply body's reader; `None`: GameSpy 3's key/values, players and teams.
    pub read_body: Option<ReadBody>,
}

impl Dialect {
    /// GameSpy 3 proper.
    pub const GAMESPY3: Dialect = Dialect {
        flavor: Flavor::GAMESPY3,
        read_body: None,
    };
}

/// One poll of one GameSpy 3 server.
#[derive(Debug)]
pub struct GameSpy3 {
    params: Params,
    dialect: Dialect,
    /// The session id as sent and echoed.
    session: i32,
    deadline: Instant,
    phase: Phase,
    /// When the current phase gives up and moves on (or fails at the deadline).
    until: Instant,
    /// The last poll's reply answered a request without a challenge: ask that way first.
    remembered: bool,
    /// A request has gone out, so parts are ours to take.
    asked: bool,
    /// The handshake came after a challenge-less request nobody answered: no second fallback.
    fell_back: bool,
    parts: Parts,
    challenges: Challenges,
    /// Datagrams for another session or type, for the failure reason.
    foreign: u32,
    /// What [`GameSpy3::challengeless`] hands to the next poll.
    challengeless: bool,
    outcome: Option<Result<Status, Error>>,
}

impl GameSpy3 {
    /// A poll until `deadline` with session id `session` (any value: it only matches
    /// replies), starting with the challenge-less request when `challengeless` (remembered
    /// from the last poll).
    pub fn new(params: Params, session: i32, challengeless: bool, deadline: Instant) -> GameSpy3 {
        GameSpy3::in_dialect(Dialect::GAMESPY3, params, session, challengeless, deadline)
    }

    /// [`GameSpy3::new`] for a server of another [`Dialect`].
    pub fn in_dialect(
        dialect: Dialect,
        params: Params,
        session: i32,
        challengeless: bool,
        deadline: Instant,
    ) -> GameSpy3 {
        let limits = params.limits;
        GameSpy3 {
            params,
            dialect,
            session: dialect.flavor.mask(session),
            deadline,
            phase: Phase::Start,
            until: deadline,
            remembered: challengeless,
            asked: false,
            fell_back: false,
            parts: Parts::with_caps(limits.max_split_packets.min(MAX_PARTS), limits.reply_cap()),
            challenges: Challenges::new(limits.max_challenges),
            foreign: 0,
            challengeless: false,
            outcome: None,
        }
    }

    /// The session id as sent and echoed.
    pub fn session(&self) -> i32 {
        self.session
    }

    /// Whether the next poll should send the request without a handshake first: this poll's
    /// reply answered a challenge-less request.
    pub fn challengeless(&self) -> bool {
        self.challengeless
    }

    fn fail(&mut self, e: Error) {
        if self.outcome.is_none() {
            self.outcome = Some(Err(e));
        }
    }

    /// Why nothing whole came before the deadline.
    fn expired(&self) -> Error {
        if self.parts.have() > 0 {
            Error::SplitIncomplete
        } else if self.foreign > 0 {
            Error::Unanswered {
                count: self.foreign,
            }
        } else {
            LinkError::Timeout.into()
        }
    }

    /// The current phase's wait ran out at `now`: move on, or fail at the deadline.
    fn expire(&mut self, now: Instant) {
        if now >= self.deadline {
            let e = self.expired();
            return self.fail(e);
        }
        match self.phase {
            // No challenge came: try the request without one (Battlefield 2).
            Phase::Handshake { .. } if !self.asked => {
                self.phase = Phase::Query {
                    challenge: None,
                    sent: false,
                };
                self.until = self.deadline;
            }
            // The remembered challenge-less request went unanswered: the server may want a
            // handshake now.
            Phase::Query { .. } if self.parts.have() == 0 && !self.fell_back => {
                self.fell_back = true;
                self.phase = Phase::Handshake { sent: false };
                self.until = self.deadline;
            }
            _ => self.until = self.deadline,
        }
    }

    fn on_challenge(&mut self, datagram: &[u8]) -> Result<(), Error> {
        let challenge = decode_handshake_in(&self.dialect.flavor, datagram, self.session)?;
        let challenge = (challenge != 0).then_some(challenge);
        if let Phase::Query {
            challenge: current, ..
        } = self.phase
        {
            if current == challenge || challenge.is_none() {
                // The same answer to a resent handshake, or "no challenge needed" after we
                // already asked without one.
                return Ok(());
            }
        }
        if challenge.is_some() {
            self.challenges.another()?;
        }
        self.phase = Phase::Query {
            challenge,
            sent: false,
        };
        self.until = self.deadline;
        Ok(())
    }

    fn on_part(&mut self, datagram: &[u8], rtt: Duration) -> Result<(), Error> {
        // Parts of an earlier request (before a late challenge) are as good as any.
        if !self.asked {
            return Err(DecodeError::Mismatch("GameSpy3 part before the request").into());
        }
        let part = decode_part_in(&self.dialect.flavor, datagram, self.session)?;
        let want = Want {
            detail: self.params.detail,
            players: self.params.players,
            rules: self.params.rules,
        };
        if let Some(read_body) = self.dialect.read_body {
            // The dialect's reply is one part, read whole (the flavor says single part).
            self.done(read_body(part.body, want, rtt)?);
            return Ok(());
        }
        // A reply in one datagram (the usual) is read where it lies, not copied first.
        let alone = self.parts.alone(&part)?;
        if !alone && !self.parts.add(&part)? {
            return Ok(());
        }
        // Read in place: only what the status keeps is decoded, and the player and team
        // cells are kept only when the status shows them.
        let cells = want.players || want.detail;
        let flavor = &Flavor::GAMESPY3;
        let status = if alone {
            let bodies = [(part.section, part.body)];
            status_of(&view_body_keeping(flavor, bodies, cells)?, want, rtt)
        } else {
            let bodies = self.parts.bodies();
            status_of(&view_body_keeping(flavor, bodies, cells)?, want, rtt)
        };
        self.done(status);
        Ok(())
    }

    /// The reply is whole: remember how it was asked for, and finish.
    fn done(&mut self, status: Status) {
        self.challengeless = matches!(
            self.phase,
            Phase::Query {
                challenge: None,
                ..
            }
        );
        self.outcome = Some(Ok(status));
    }
}

impl Exchange for GameSpy3 {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            if let Some(outcome) = self.outcome.take() {
                self.phase = Phase::Over;
                return match outcome {
                    Ok(status) => Step::Done(status),
                    Err(e) => Step::Failed(e),
                };
            }
            match self.phase {
                Phase::Start => {
                    // A third of the budget for the first step, whichever it is.
                    self.until = share(now, self.deadline, 3);
                    self.phase = if self.remembered {
                        Phase::Query {
                            challenge: None,
                            sent: false,
                        }
                    } else {
                        Phase::Handshake { sent: false }
                    };
                }
                Phase::Handshake { sent: false } => {
                    out.clear();
                    encode_handshake(self.session, out);
                    self.phase = Phase::Handshake { sent: true };
                    return Step::Send("GameSpy3 handshake");
                }
                Phase::Query {
                    challenge,
                    sent: false,
                } => {
                    out.clear();
                    encode_request(self.session, challenge, self.dialect.flavor.payload, out);
                    self.phase = Phase::Query {
                        challenge,
                        sent: true,
                    };
                    self.asked = true;
                    return Step::Send(if challenge.is_some() {
                        "GameSpy3 request with the challenge"
                    } else {
                        "GameSpy3 request (no handshake needed)"
                    });
                }
                Phase::Handshake { sent: true } | Phase::Query { sent: true, .. } => {
                    if now < self.until {
                        return Step::Wait(self.until);
                    }
                    self.expire(now);
                }
                // Polled again after the end: nothing more to do than fail politely.
                Phase::Over => return Step::Failed(LinkError::Timeout.into()),
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.outcome.is_some() || matches!(self.phase, Phase::Over | Phase::Start) {
            return;
        }
        let (datagram, rtt) = match input {
            Input::Received { bytes, rtt } => (bytes, rtt),
            Input::Closed => return self.fail(LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => return self.fail(e.into()),
        };
        let result = if datagram.first() == Some(&TYPE_HANDSHAKE) {
            self.on_challenge(datagram)
        } else {
            self.on_part(datagram, rtt)
        };
        match result {
            Ok(()) => {}
            // Not our answer (another session or type): skipped, counted for the reason.
            Err(e)
                if e.decode()
                    .is_some_and(|d| matches!(d, DecodeError::Mismatch(_))) =>
            {
                self.foreign = self.foreign.saturating_add(1);
            }
            Err(e) => self.fail(e),
        }
    }
}

/// What a GameSpy 3 target remembers between polls: its last reply answered a request
/// without a challenge, so the next poll sends that first (Battlefield 2 builds that ignore
/// the handshake).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    pub challengeless: bool,
}
