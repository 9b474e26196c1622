//! The Frontlines dialogue: one `FLSQ` info request, one reply ([`OneShot`]).
//!
//! Latency is the request's round trip. A datagram that is not an info reply (a challenge,
//! a late answer to something else) is skipped; a cut one fails the poll as `malformed`.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::{ffow, DecodeError};
use crate::status::Status;

/// The request and what the status shows.
#[derive(Debug)]
pub struct Query {
    pub detail: bool,
}

impl Codec for Query {
    type Reply = ffow::Info;
    const REQUEST: &'static str = "FLSQ info";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(ffow::REQUEST);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<ffow::Info, DecodeError> {
        ffow::decode(datagram)
    }

    fn to_status(&self, info: ffow::Info, latency: Duration) -> Status {
        ffow::to_status(&info, latency, self.detail)
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
