//! The rFactor dialogue: one `rF_S` datagram, one reply ([`OneShot`]).
//!
//! Latency is the request's round trip. The reply echoes nothing of the request, so any
//! datagram from the server is its answer; one too short fails the poll as `malformed`.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::{rfactor, DecodeError};
use crate::status::Status;

/// The request and what the status shows.
#[derive(Debug)]
pub struct Query {
    pub detail: bool,
}

impl Codec for Query {
    type Reply = rfactor::Info;
    const REQUEST: &'static str = "rF_S";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(rfactor::REQUEST);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<rfactor::Info, DecodeError> {
        rfactor::decode(datagram)
    }

    fn to_status(&self, info: rfactor::Info, latency: Duration) -> Status {
        rfactor::to_status(&info, latency, self.detail)
    }
}

/// A poll's exchange: one request, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<Query> {
    OneShot::new(
        Query {
            detail: params.detail,
        },
        deadline,
    )
}
