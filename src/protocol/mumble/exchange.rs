//! The Mumble dialogue: one 12-byte ping, one 24-byte reply ([`OneShot`]).
//!
//! Latency is the ping's round trip. A reply echoing another ident (a late answer to an
//! earlier ping) is skipped; a short one fails the poll as `malformed`.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u64;
use crate::protocol::exchange::Params;
use crate::protocol::{mumble, DecodeError};
use crate::status::Status;

/// One ping and what its reply must echo.
#[derive(Debug)]
pub struct Ping {
    pub ident: [u8; 8],
    pub detail: bool,
}

impl Codec for Ping {
    type Reply = mumble::Pong;
    const REQUEST: &'static str = "Mumble ping";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        mumble::encode_ping(self.ident, out);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<mumble::Pong, DecodeError> {
        mumble::decode_pong(datagram, self.ident)
    }

    fn to_status(&self, pong: mumble::Pong, latency: Duration) -> Status {
        mumble::to_status(&pong, latency, self.detail)
    }
}

/// A fresh ident per poll: Murmur echoes any 8 bytes, so this is only for matching.
pub fn ident() -> [u8; 8] {
    // One clock read and one hash for all 64 bits (two `random_u32` cost twice that).
    random_u64().to_be_bytes()
}

/// A poll's exchange: one ping with a fresh ident, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<Ping> {
    let ping = Ping {
        ident: ident(),
        detail: params.detail,
    };
    OneShot::new(ping, deadline)
}
