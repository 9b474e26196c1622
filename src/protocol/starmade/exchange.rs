//! One poll over one TCP connection: the status request out, one framed reply back.

use std::time::{Duration, Instant};

use super::{decode_reply, to_info, to_status, Param, MAX_REPLY, REQUEST};
use crate::protocol::exchange::stream_once::{Framed, StreamOnce};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::DecodeError;
use crate::status::Status;

/// The status request and what its one reply means.
#[derive(Debug)]
pub struct StatusRequest {
    params: Params,
}

impl Framed for StatusRequest {
    type Frame = Vec<Param>;
    const REQUEST: &'static str = "status";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&REQUEST);
    }

    fn decode(&self, buf: &[u8]) -> Result<Option<(Vec<Param>, usize)>, DecodeError> {
        decode_reply(buf, self.params.limits.reply_cap())
    }

    fn frame(&mut self, params: Vec<Param>, rtt: Duration) -> Option<Result<Status, Error>> {
        let result = to_info(&params)
            .map(|info| to_status(info, rtt, self.params.detail))
            .map_err(Error::from);
        Some(result)
    }
}

/// One poll's dialogue.
pub type Starmade = StreamOnce<StatusRequest>;

impl Starmade {
    pub fn new(params: Params, deadline: Instant) -> Starmade {
        let cap = params.limits.reply_cap().min(MAX_REPLY);
        StreamOnce::start(StatusRequest { params }, cap, deadline)
    }
}

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Starmade {
    Starmade::new(params, deadline)
}
