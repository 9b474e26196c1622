//! Quake 3-engine dialogue: one `getstatus` and its `statusResponse`, run as a [`OneShot`].
//!
//! `getstatus` alone carries everything the status needs (variables and player lines), so a
//! poll is one request. `getinfo` is not sent: it would add only ioquake3's
//! `g_humanplayers` (an exact bot count on servers without private slots), and DarkPlaces'
//! flood protection would make the poll wait the registry's minimum gap ([`super::MIN_GAP`])
//! before it.
//! That gap also spaces the driver's resends. Latency is the `getstatus` round trip.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::quake3::{self, Command, Reply, Want};
use crate::protocol::DecodeError;
use crate::status::Status;

/// One `getstatus` and what its reply must echo.
#[derive(Debug)]
pub struct GetStatus {
    /// The challenge the reply must echo.
    pub challenge: String,
    pub want: Want,
}

impl Codec for GetStatus {
    type Reply = Reply;
    const REQUEST: &'static str = "getstatus";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        quake3::encode_request(Command::Status, &self.challenge, out);
    }

    /// Another challenge or another reply (`print`, a late `infoResponse` of another client
    /// library) is a `Mismatch`, skipped; a cut or lying reply fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        quake3::decode_status(datagram, Some(&self.challenge))
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        quake3::to_status(&reply, None, self.want, latency)
    }
}

/// A poll's exchange: one `getstatus` with a fresh challenge, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<GetStatus> {
    let codec = GetStatus {
        challenge: quake3::challenge(random_u32()),
        want: Want {
            detail: params.detail,
            players: params.players,
            rules: params.rules,
        },
    };
    OneShot::new(codec, deadline)
}
