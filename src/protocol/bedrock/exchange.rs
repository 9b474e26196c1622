//! The Minecraft Bedrock dialogue: one RakNet unconnected ping, one pong ([`OneShot`]).
//!
//! Latency is the ping/pong round trip. A pong with another echoed time or a wrong magic is
//! not an answer to this ping (a late reply, or not RakNet at all): it is skipped, and the
//! poll fails with `mismatch` if nothing else comes. Any other undecodable pong fails it at
//! once (`malformed`, or `too_large` for an ID string above the cap).

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::{bedrock, DecodeError};
use crate::status::Status;

/// One unconnected ping.
#[derive(Debug)]
pub struct Ping {
    /// The "client time" the pong must echo. Clients send milliseconds since they started;
    /// servers only echo it, so a random non-negative value serves as the match key.
    pub time: i64,
    pub client_guid: u64,
    pub detail: bool,
}

impl Ping {
    pub fn new(detail: bool) -> Ping {
        Ping {
            time: i64::from(random_u32()),
            client_guid: u64::from(random_u32()) << 32 | u64::from(random_u32()),
            detail,
        }
    }
}

impl Codec for Ping {
    type Reply = bedrock::Pong;
    const REQUEST: &'static str = "RakNet unconnected ping";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        bedrock::encode_ping(self.time, self.client_guid, out);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<bedrock::Pong, DecodeError> {
        bedrock::decode_pong(datagram, self.time)
    }

    fn to_status(&self, pong: bedrock::Pong, latency: Duration) -> Status {
        bedrock::to_status(&pong, latency, self.detail)
    }
}

/// A poll's exchange: one unconnected ping, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<Ping> {
    OneShot::new(Ping::new(params.detail), deadline)
}
