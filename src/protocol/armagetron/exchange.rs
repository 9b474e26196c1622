//! One poll: `small_request` sent ahead (it opens the server's query window and is never
//! resent), then `big_request` as a [`OneShot`]: resent while unanswered, its answer the
//! first `big_server` message; `small_server` answers (to the request ahead, or to another
//! client's) are skipped as mismatches.

use std::time::{Duration, Instant};

use super::{decode_big_info, decode_messages, encode_request, to_status, BigInfo};
use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::{Exchange, Input, Params, Step};
use crate::protocol::DecodeError;
use crate::status::Status;

/// `big_request` and what its answer must be.
#[derive(Debug)]
pub struct BigRequest {
    pub players: bool,
    pub rules: bool,
}

impl Codec for BigRequest {
    type Reply = BigInfo;
    const REQUEST: &'static str = "big_request";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        encode_request(super::BIG_REQUEST, out);
    }

    /// A packet without a `big_server` message (a `small_server`) is a `Mismatch`; a
    /// broken packet or info fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<BigInfo, DecodeError> {
        let messages = decode_messages(datagram)?;
        match messages.iter().find(|m| m.descriptor == super::BIG_SERVER) {
            Some(m) => decode_big_info(m.data),
            None => Err(DecodeError::Mismatch("no big_server message")),
        }
    }

    fn to_status(&self, reply: BigInfo, latency: Duration) -> Status {
        to_status(&reply, self.players, self.rules, latency)
    }
}

/// The poll: the request ahead, then the one-shot.
#[derive(Debug)]
pub struct Armagetron {
    ahead_sent: bool,
    inner: OneShot<BigRequest>,
}

impl Armagetron {
    pub fn new(params: &Params, deadline: Instant) -> Armagetron {
        let codec = BigRequest {
            players: params.players,
            rules: params.rules,
        };
        Armagetron {
            ahead_sent: false,
            inner: OneShot::new(codec, deadline),
        }
    }
}

impl Exchange for Armagetron {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if !self.ahead_sent {
            self.ahead_sent = true;
            out.clear();
            encode_request(super::SMALL_REQUEST, out);
            return Step::SendAhead("small_request (opens the query window)");
        }
        self.inner.poll(now, out)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        self.inner.handle(now, input);
    }
}
