//! The ASE dialogue: the one-byte `s` request and its one-datagram reply ([`OneShot`]).
//!
//! The reply carries no echo and no session id, so only the source address matches it (the
//! link delivers only the server's datagrams). A datagram without the `EYE1` magic is not an
//! answer and is skipped (`mismatch` if nothing else came); one with the magic that does not
//! decode fails the poll (`malformed`, or `too_large` past the player or rule caps). Latency
//! is the request's round trip; Multi Theft Auto answers from a reply it rebuilds about every
//! 10 s, so counts can lag a poll that fast (docs/protocols/ase.md).

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::{ase, DecodeError};
use crate::status::Status;

/// The full-status request and what the caller wants of its reply.
#[derive(Debug)]
pub struct FullStatus {
    pub want: ase::Want,
}

impl Codec for FullStatus {
    type Reply = ase::Reply;
    const REQUEST: &'static str = "ASE s (full status)";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(ase::REQUEST);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<ase::Reply, DecodeError> {
        ase::decode_reply(datagram)
    }

    fn to_status(&self, reply: ase::Reply, latency: Duration) -> Status {
        ase::to_status(&reply, self.want, latency)
    }
}

/// A poll's exchange: one `s`, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<FullStatus> {
    let want = ase::Want {
        detail: params.detail,
        players: params.players,
        rules: params.rules,
    };
    OneShot::new(FullStatus { want }, deadline)
}
