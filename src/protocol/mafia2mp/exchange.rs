//! The Mafia II query dialogue: one request and its reply, run as a [`OneShot`]. Nothing in
//! the reply but the magic identifies the request, so any datagram with the dialect's magic
//! from the server is taken.

use std::time::{Duration, Instant};

use super::{Dialect, Reply, Want};
use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::{mafia2mp, DecodeError};
use crate::status::Status;

/// One query in a dialect.
#[derive(Debug)]
pub struct Query {
    pub dialect: Dialect,
    pub want: Want,
}

impl Codec for Query {
    type Reply = Reply;
    const REQUEST: &'static str = "Mafia II query";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.clear();
        mafia2mp::encode_request(&self.dialect, out);
    }

    /// Another magic is a `Mismatch`, skipped; a cut, lying or oversized reply fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        mafia2mp::decode_reply(&self.dialect, datagram)
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        mafia2mp::to_status(&reply, self.want, latency)
    }
}

/// A poll's exchange in `dialect`: one request, answered until `deadline`.
pub fn new(dialect: Dialect, params: &Params, deadline: Instant) -> OneShot<Query> {
    let want = Want {
        players: params.players,
        detail: params.detail,
    };
    OneShot::new(Query { dialect, want }, deadline)
}
