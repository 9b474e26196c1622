//! One poll as a sans-IO state machine: one request, the first reply with our challenge.
//! Datagrams that are not an info response with our challenge are ignored (at most
//! [`MAX_DATAGRAMS`] of them); one that is ours but does not decode fails the poll.

use std::time::Instant;

use super::reply::{decode_reply, Reply};
use super::{encode_request, Dialect};
use crate::protocol::DecodeError;

/// Most datagrams one poll reads, ours or not.
pub const MAX_DATAGRAMS: usize = 32;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Feed any datagram that arrives before this instant, then ask again.
    Wait(Instant),
    Done(Box<Reply>),
    Failed(ExchangeError),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    #[error("no Doom 3 info reply before the deadline")]
    Timeout,
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

#[derive(Debug, Clone)]
pub struct Poll {
    dialect: Dialect,
    challenge: u32,
    deadline: Instant,
    datagrams: usize,
    /// The last foreign datagram's error, reported if nothing of ours comes (a server that
    /// only ever answers with the wrong challenge is a mismatch, not a timeout).
    mismatch: Option<DecodeError>,
    result: Option<Result<Reply, DecodeError>>,
}

impl Poll {
    /// Starts a poll; returns it and the request to send. `challenge` is the caller's
    /// random number (this module has no randomness).
    pub fn start(dialect: Dialect, challenge: u32, deadline: Instant) -> (Poll, Vec<u8>) {
        let mut request = Vec::with_capacity(14);
        encode_request(challenge, &mut request);
        let poll = Poll {
            dialect,
            challenge,
            deadline,
            datagrams: 0,
            mismatch: None,
            result: None,
        };
        (poll, request)
    }

    pub fn receive(&mut self, datagram: &[u8]) {
        if self.result.is_some() {
            return;
        }
        self.datagrams += 1;
        if self.datagrams > MAX_DATAGRAMS {
            self.result = Some(Err(DecodeError::TooLarge {
                what: "Doom 3 reply datagrams",
                value: self.datagrams as u64,
                limit: MAX_DATAGRAMS as u64,
            }));
            return;
        }
        match decode_reply(datagram, self.dialect, self.challenge) {
            Err(e @ DecodeError::Mismatch(_)) => self.mismatch = Some(e),
            other => self.result = Some(other),
        }
    }

    pub fn step(&self, now: Instant) -> Step {
        match &self.result {
            Some(Ok(reply)) => Step::Done(Box::new(reply.clone())),
            Some(Err(e)) => Step::Failed(ExchangeError::Decode(e.clone())),
            None if now >= self.deadline => Step::Failed(match &self.mismatch {
                Some(e) => ExchangeError::Decode(e.clone()),
                None => ExchangeError::Timeout,
            }),
            None => Step::Wait(self.deadline),
        }
    }
}
