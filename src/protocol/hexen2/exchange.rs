//! HexenWorld dialogue: one `status` and its reply, run as a [`OneShot`]. No challenge: a
//! reply is matched by its address and marker only.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::quake1::{self, Reply};
use crate::protocol::quake2::exchange::want;
use crate::protocol::quake3::Want;
use crate::protocol::{hexen2, DecodeError};
use crate::status::Status;

/// One `status` request.
#[derive(Debug)]
pub struct GetStatus {
    pub want: Want,
}

impl Codec for GetStatus {
    type Reply = Reply;
    const REQUEST: &'static str = "status";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        hexen2::encode_request(out);
    }

    /// Another marker or header is a `Mismatch`, skipped; a cut or lying reply fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        hexen2::decode_reply(datagram)
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        quake1::to_status(&reply, self.want, latency)
    }
}

/// A poll's exchange: one `status`, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<GetStatus> {
    OneShot::new(GetStatus { want: want(params) }, deadline)
}
