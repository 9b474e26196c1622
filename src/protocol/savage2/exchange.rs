//! The Savage 2 dialogue: one `01` request, one reply ([`OneShot`]).
//!
//! Latency is the request's round trip. Nothing in the reply echoes the request, so the
//! first datagram is the reply; a cut one fails the poll as `malformed`.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::{savage2, DecodeError};
use crate::status::Status;

/// The request and what the status shows.
#[derive(Debug)]
pub struct Query {
    pub detail: bool,
}

impl Codec for Query {
    type Reply = savage2::Info;
    const REQUEST: &'static str = "Savage 2 info";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(savage2::REQUEST);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<savage2::Info, DecodeError> {
        savage2::decode(datagram)
    }

    fn to_status(&self, info: savage2::Info, latency: Duration) -> Status {
        savage2::to_status(&info, latency, self.detail)
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
