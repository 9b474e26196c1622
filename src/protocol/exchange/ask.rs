//! One request and the wait for the datagram that answers it: the step every UDP dialogue is
//! made of. Exchanges keep one [`Ask`] per step and tell it what each datagram was; it says
//! when to send, how long to wait, and why the step failed if nothing usable came.

use std::time::Instant;

use super::error::{Error, LinkError};
use super::step::Step;
use crate::protocol::DecodeError;

/// The state of one request/reply step.
#[derive(Debug)]
pub struct Ask {
    until: Instant,
    sent: bool,
    /// Datagrams that answered something else (another session id, header or payload).
    foreign: u32,
    /// The last datagram that did not decode, for dialogues that skip garbage.
    garbage: Option<DecodeError>,
}

/// What an [`Ask`] wants next.
#[derive(Debug)]
pub enum Next {
    /// Write the request and answer [`Step::Send`].
    Send,
    /// Answer this step (a [`Step::Wait`]).
    Wait(Step),
    /// The deadline passed without an answer: this is why.
    Expired(Error),
}

impl Ask {
    pub fn new(until: Instant) -> Ask {
        Ask {
            until,
            sent: false,
            foreign: 0,
            garbage: None,
        }
    }

    /// Send once, then wait until the deadline; past it, the step has expired.
    pub fn next(&mut self, now: Instant) -> Next {
        if !self.sent {
            self.sent = true;
            return Next::Send;
        }
        if now >= self.until {
            return Next::Expired(self.expired());
        }
        Next::Wait(Step::Wait(self.until))
    }

    /// Sends the request again at the next [`Ask::next`] (a new challenge, a new token): the
    /// deadline and what was seen so far stay.
    pub fn send_again(&mut self) {
        self.sent = false;
    }

    /// A datagram answered something else: skipped, but remembered for the failure reason.
    pub fn foreign(&mut self) {
        self.foreign = self.foreign.saturating_add(1);
    }

    /// A datagram did not decode and the dialogue skips garbage: remembered.
    pub fn garbage(&mut self, e: DecodeError) {
        self.garbage = Some(e);
    }

    /// Why nothing usable came before the deadline: only garbage (`malformed`), only replies
    /// to something else (`mismatch`), or nothing at all (`timeout`).
    fn expired(&self) -> Error {
        if let Some(e) = &self.garbage {
            Error::Garbage(e.clone())
        } else if self.foreign > 0 {
            Error::Unanswered {
                count: self.foreign,
            }
        } else {
            LinkError::Timeout.into()
        }
    }
}
