//! One poll over one TCP connection: `CLIENT_GAME_INFO` out, `SERVER_GAME_INFO` back. A
//! server that is full, bans us or errors says so with its own packet (`refused`); packets
//! of other types are skipped, at most [`MAX_FOREIGN`] of them.

use std::time::{Duration, Instant};

use super::{decode_game_info, decode_packet, encode_request, to_status, Packet};
use crate::protocol::exchange::stream_once::{Framed, StreamOnce};
use crate::protocol::exchange::{Error, LinkError, Params};
use crate::protocol::DecodeError;
use crate::status::Status;

/// Packets of other types a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 16;

/// The request and what each packet back means.
#[derive(Debug)]
pub struct GameInfo {
    params: Params,
    /// Packets of other types skipped so far.
    foreign: u32,
}

impl Framed for GameInfo {
    type Frame = Packet;
    const REQUEST: &'static str = "CLIENT_GAME_INFO";

    fn encode_request(&mut self, out: &mut Vec<u8>) {
        encode_request(out);
    }

    fn decode(&self, buf: &[u8]) -> Result<Option<(Packet, usize)>, DecodeError> {
        decode_packet(buf, self.params.limits.reply_cap())
    }

    fn frame(&mut self, p: Packet, rtt: Duration) -> Option<Result<Status, Error>> {
        match p.kind {
            super::SERVER_GAME_INFO => Some(
                decode_game_info(&p.body)
                    .map(|g| to_status(&g, self.params.rules, self.params.detail, rtt))
                    .map_err(Error::from),
            ),
            // The server is there and says no.
            super::SERVER_FULL | super::SERVER_BANNED | super::SERVER_ERROR => {
                Some(Err(Error::Net(LinkError::Refused)))
            }
            _ => {
                self.foreign += 1;
                (self.foreign > MAX_FOREIGN).then_some(Err(Error::Unanswered {
                    count: self.foreign,
                }))
            }
        }
    }
}

/// One poll's dialogue.
pub type Openttd = StreamOnce<GameInfo>;

impl Openttd {
    pub fn new(params: Params, deadline: Instant) -> Openttd {
        let cap = params.limits.reply_cap().min(super::MAX_PACKET);
        StreamOnce::start(GameInfo { params, foreign: 0 }, cap, deadline)
    }
}
