//! The Mumble dialogue: one 12-byte ping, one 24-byte reply ([`OneShot`]).
//!
//! Latency is the ping's round trip. A reply echoing another ident (a late answer to an
//! earlier ping) is skipped; a short one fails the poll as `malformed`.

use std::time::Duration;

use tokio::time::Instant;

use super::driver::{drive, Observer};
use super::exchange::random_u32;
use super::oneshot::{Codec, OneShot};
use super::{registry, Error, Request, Session};
use crate::net::resolve::resolve;
use crate::protocol::{mumble, DecodeError};
use crate::status::Status;
use crate::target::Protocol;

/// One ping and what its reply must echo.
#[derive(Debug)]
pub(super) struct Ping {
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
pub(super) fn ident() -> [u8; 8] {
    let hi = u64::from(random_u32()) << 32;
    (hi | u64::from(random_u32())).to_be_bytes()
}

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let addr = resolve(&req.address, Protocol::Mumble.default_port(), deadline).await?;
    let mut chan = registry::udp(Protocol::Mumble, addr, req, session).await?;
    let ping = Ping {
        ident: ident(),
        detail: req.detail,
    };
    let mut exchange = OneShot::new(ping, deadline);
    let pacing = registry::entry(Protocol::Mumble).pacing();
    drive(&mut exchange, &mut chan, deadline, pacing, observer).await
}
