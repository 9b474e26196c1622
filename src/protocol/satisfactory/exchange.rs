//! Satisfactory dialogue: one Lightweight Query poll and its reply, run as a [`OneShot`];
//! then, with an API token, the HTTPS API's `QueryServerState` on the same port
//! ([`super::api`]).

use std::time::{Duration, Instant};

use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::http::then::Then;
use crate::protocol::satisfactory::api::StateApi;
use crate::protocol::satisfactory::{self, Reply};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// One poll and the cookie its reply must echo.
#[derive(Debug)]
pub struct PollState {
    pub cookie: u64,
    pub detail: bool,
}

impl Codec for PollState {
    type Reply = Reply;
    const REQUEST: &'static str = "poll server state";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        satisfactory::encode_request(self.cookie, out);
    }

    /// Another cookie (a late reply) is a `Mismatch`, skipped.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Reply, DecodeError> {
        satisfactory::decode_reply(datagram, self.cookie)
    }

    fn to_status(&self, reply: Reply, latency: Duration) -> Status {
        satisfactory::to_status(&reply, latency, self.detail)
    }
}

/// A whole poll: the Lightweight Query, then the HTTPS API when a token is configured.
pub type Poll = Then<OneShot<PollState>, StateApi>;

/// A poll with `authorization` (the whole `Authorization` value, `Bearer ...`) for the
/// HTTPS API; `None`: the Lightweight Query alone.
pub fn poll(params: &Params, authorization: Option<Secret>, deadline: Instant) -> Poll {
    Then::new(
        new(params, deadline),
        StateApi::new(authorization),
        deadline,
    )
}

/// The Lightweight Query alone: one request with a fresh cookie, answered until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> OneShot<PollState> {
    let cookie = (u64::from(random_u32()) << 32) | u64::from(random_u32());
    OneShot::new(
        PollState {
            cookie,
            detail: params.detail,
        },
        deadline,
    )
}
