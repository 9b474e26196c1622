//! FiveM dialogue: one `getinfo <challenge>` and its `infoResponse`, run as a [`OneShot`].
//!
//! The registry's minimum gap ([`super::MIN_GAP`]) spaces the driver's resends, so a poll
//! never sends faster than the server's `getinfo` rate limit refills.

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::fivem::players::PlayersApi;
use crate::protocol::fivem::{self, Info};
use crate::protocol::http::then::Then;
use crate::protocol::DecodeError;
use crate::status::Status;

/// One `getinfo` and the challenge its reply must echo.
#[derive(Debug)]
pub struct GetInfo {
    pub challenge: String,
    pub detail: bool,
    pub rules: bool,
}

impl Codec for GetInfo {
    type Reply = Info;
    const REQUEST: &'static str = "getinfo";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        fivem::encode_request(&self.challenge, out);
    }

    /// A reply echoing another challenge (a late answer to an earlier poll) is a `Mismatch`,
    /// skipped; a broken infostring fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Info, DecodeError> {
        fivem::decode_reply(datagram, &self.challenge)
    }

    fn to_status(&self, info: Info, latency: Duration) -> Status {
        fivem::to_status(&info, latency, self.detail, self.rules)
    }
}

/// A whole poll: `getinfo`, then `/players.json` over TCP when players are asked.
pub type Poll = Then<OneShot<GetInfo>, PlayersApi>;

/// A poll: `getinfo`, and with `params.players` the player list, best effort.
pub fn poll(params: &Params, deadline: Instant) -> Poll {
    Then::new(
        new(params, deadline),
        PlayersApi::new(params.players),
        deadline,
    )
}

/// `getinfo` alone: one request with a fresh challenge, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<GetInfo> {
    let codec = GetInfo {
        challenge: fivem::challenge(random_u32()),
        detail: params.detail,
        rules: params.rules,
    };
    OneShot::new(codec, deadline)
}
