//! The Tribes / Starsiege dialogue: one request, one reply ([`OneShot`]). `KIND` is the
//! request byte ([`tribes1::TRIBES`] or [`tribes1::STARSIEGE`]): the one thing the two
//! protocols do differently.
//!
//! Latency is the request's round trip. A datagram that does not echo our kind and key (a
//! late reply, someone else's) is skipped; a cut one fails the poll as `malformed`.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::Params;
use crate::protocol::tribes1::{self, Want};
use crate::protocol::DecodeError;
use crate::status::Status;

/// The request (its kind and key) and what the status shows.
#[derive(Debug)]
pub struct Query<const KIND: u8> {
    pub key: u16,
    pub want: Want,
}

impl<const KIND: u8> Codec for Query<KIND> {
    type Reply = tribes1::Reply;
    const REQUEST: &'static str = if KIND == tribes1::STARSIEGE {
        "Starsiege info"
    } else {
        "Tribes info"
    };

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        tribes1::encode_request(KIND, self.key, out);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<tribes1::Reply, DecodeError> {
        tribes1::decode(datagram, KIND, self.key)
    }

    fn to_status(&self, reply: tribes1::Reply, latency: Duration) -> Status {
        tribes1::to_status(&reply, latency, self.want)
    }
}

/// A poll's exchange: one request with `key` (random per poll in the daemon, fixed in the
/// fuzzer so it can learn to echo it), answered until `deadline`.
pub fn new<const KIND: u8>(params: &Params, key: u16, deadline: Instant) -> OneShot<Query<KIND>> {
    OneShot::new(
        Query {
            key,
            want: Want {
                players: params.players,
                detail: params.detail,
            },
        },
        deadline,
    )
}
