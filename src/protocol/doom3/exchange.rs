//! One poll: one `getInfo` with a fresh challenge, the first `infoResponse` echoing it
//! ([`OneShot`]). Datagrams that are not an info response, or echo another challenge, are
//! skipped (a poll that only gets those fails as `mismatch`); one that is ours but does not
//! decode fails the poll. The reply's layout is read from the reply ([`detect`]).
//!
//! [`detect`]: super::reply::detect

use std::time::{Duration, Instant};

use super::reply::{decode_detected, Reply};
use super::{encode_request, to_status, Dialect};
use crate::protocol::exchange::oneshot::{Codec, OneShot};
use crate::protocol::exchange::tools::random_u32;
use crate::protocol::exchange::Params;
use crate::protocol::DecodeError;
use crate::status::Status;

/// One `getInfo` and the challenge its reply must echo.
#[derive(Debug)]
pub struct GetInfo {
    pub challenge: u32,
    pub params: Params,
}

impl Codec for GetInfo {
    type Reply = (Reply, Dialect);
    const REQUEST: &'static str = "Doom 3 getInfo";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        encode_request(self.challenge, out);
    }

    fn decode_reply(&self, datagram: &[u8]) -> Result<(Reply, Dialect), DecodeError> {
        decode_detected(datagram, self.challenge)
    }

    /// The player list is the count, so it is always read; it and the server variables are
    /// kept in the status only when the poll asks for them.
    fn to_status(&self, (reply, dialect): (Reply, Dialect), latency: Duration) -> Status {
        let mut s = to_status(&reply, dialect, latency, self.params.detail);
        if !self.params.players {
            s.players = None;
        }
        if !self.params.rules {
            s.rules = None;
        }
        s
    }
}

/// A fresh challenge: never `FFFF FFFF`, ETQW's task id, so the layouts stay apart.
pub fn challenge() -> u32 {
    random_u32().min(u32::MAX - 1)
}

/// A poll's exchange: one `getInfo` with a fresh challenge, answered until `deadline`.
pub fn new(params: Params, deadline: Instant) -> OneShot<GetInfo> {
    let get = GetInfo {
        challenge: challenge(),
        params,
    };
    OneShot::new(get, deadline)
}
