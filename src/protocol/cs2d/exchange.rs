//! CS2D dialogue: one request and its reply, run as a [`OneShot`]. Nothing in the reply
//! identifies the request, so any datagram with the reply header from the server is taken.

use std::time::{Duration, Instant};

use super::{Reply, Want};
use crate::protocol::cs2d;
use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::DecodeError;
use crate::status::Status;

/// One server info request.
#[derive(Debug)]
pub struct ServerInfo {
    pub want: Want,
}

impl Codec for ServerInfo {
    type Reply = Reply;
    const REQUEST: &'static str = "CS2D serverinfo + player list";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.clear();
        cs2d::encode_request(out);
    }

    /// Another header is a `Mismatch`, skipped; a cut or lying reply fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        cs2d::decode_reply(datagram)
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        cs2d::to_status(&reply, self.want, latency)
    }
}

/// A poll's exchange: one request, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<ServerInfo> {
    let want = Want {
        players: params.players,
        detail: params.detail,
    };
    OneShot::new(ServerInfo { want }, deadline)
}
