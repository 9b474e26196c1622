//! One poll over one TCP connection to the file server: the request for gamestat.txt out,
//! the file back, up to `ENDFILES\r\n`. A reply that never ends is cut at the byte cap
//! (`too_large`) or the deadline (`timeout`); a stream that closes first is `incomplete`.

use std::time::{Duration, Instant};

use super::{decode_frame, to_status, Gamestat, MAX_REPLY, REQUEST};
use crate::protocol::exchange::stream_once::{Framed, StreamOnce};
use crate::protocol::exchange::{Error, Params};
use crate::protocol::DecodeError;
use crate::status::Status;

/// The request and what its one frame (the whole file) means.
#[derive(Debug)]
pub struct GamestatFile {
    params: Params,
}

impl Framed for GamestatFile {
    type Frame = Gamestat;
    const REQUEST: &'static str = "STARTFILES logs/gamestat.txt";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        out.extend_from_slice(REQUEST);
    }

    fn decode(&self, buf: &[u8]) -> Result<Option<(Gamestat, usize)>, DecodeError> {
        decode_frame(buf)
    }

    fn frame(&mut self, g: Gamestat, rtt: Duration) -> Option<Result<Status, Error>> {
        Some(Ok(to_status(
            &g,
            self.params.players,
            self.params.detail,
            rtt,
        )))
    }
}

/// One poll's dialogue.
pub type Soldat = StreamOnce<GamestatFile>;

impl Soldat {
    pub fn new(params: Params, deadline: Instant) -> Soldat {
        let cap = params.limits.reply_cap().min(MAX_REPLY);
        StreamOnce::start(GamestatFile { params }, cap, deadline)
    }
}
