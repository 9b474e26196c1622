//! The Cube 2 dialogue: one server-info ping, one reply ([`OneShot`]).
//!
//! Latency is the ping's round trip. The reply starts with the request's bytes, so a reply
//! to another ping (a late one, or another poller's) is a `Mismatch` and skipped.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::{cube2, DecodeError};
use crate::status::Status;

/// The ping and what the status shows.
#[derive(Debug)]
pub struct Ping {
    /// The request's bytes, which the reply must echo.
    pub request: Vec<u8>,
    pub players: bool,
    pub detail: bool,
}

impl Codec for Ping {
    type Reply = cube2::Info;
    const REQUEST: &'static str = "Cube 2 server-info ping";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.request);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<cube2::Info, DecodeError> {
        cube2::decode(datagram, &self.request)
    }

    fn to_status(&self, info: cube2::Info, latency: Duration) -> Status {
        cube2::to_status(&info, latency, self.players, self.detail)
    }
}

/// A poll's exchange: one ping carrying `nonce`, answered until `deadline`.
pub fn new(params: &Params, nonce: i32, deadline: Instant) -> OneShot<Ping> {
    let mut request = Vec::new();
    cube2::encode_request(nonce, &mut request);
    OneShot::new(
        Ping {
            request,
            players: params.players,
            detail: params.detail,
        },
        deadline,
    )
}

/// A fresh nonce per poll, only for matching the reply.
pub fn nonce() -> i32 {
    random_u32() as i32
}
