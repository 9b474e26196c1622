//! One poll over one TCP connection: `CLIENT_GAME_INFO` out, `SERVER_GAME_INFO` back. A
//! server that is full, bans us or errors says so with its own packet (`refused`); packets
//! of other types are skipped, at most [`MAX_FOREIGN`] of them.

use std::time::Instant;

use super::{decode_game_info, decode_packet, encode_request, to_status, Packet};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};

/// Packets of other types a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Send,
    Waiting,
    Over,
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Openttd {
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    foreign: u32,
    done: Option<Result<crate::status::Status, Error>>,
}

impl Openttd {
    pub fn new(params: Params, deadline: Instant) -> Openttd {
        let cap = params.limits.reply_cap().min(super::MAX_PACKET);
        Openttd {
            params,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(cap),
            foreign: 0,
            done: None,
        }
    }

    fn finish(&mut self, result: Result<crate::status::Status, Error>) {
        if self.done.is_none() {
            self.done = Some(result);
        }
        self.state = State::Over;
    }

    fn packet(&mut self, p: Packet, rtt: std::time::Duration) {
        match p.kind {
            super::SERVER_GAME_INFO => {
                let result = decode_game_info(&p.body)
                    .map(|g| to_status(&g, self.params.rules, self.params.detail, rtt))
                    .map_err(Error::from);
                self.finish(result);
            }
            // The server is there and says no.
            super::SERVER_FULL | super::SERVER_BANNED | super::SERVER_ERROR => {
                self.finish(Err(Error::Net(LinkError::Refused)));
            }
            _ => {
                self.foreign += 1;
                if self.foreign > MAX_FOREIGN {
                    self.finish(Err(Error::Unanswered {
                        count: self.foreign,
                    }));
                }
            }
        }
    }
}

impl Exchange for Openttd {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.state {
            State::Connect => {
                self.state = State::Send;
                Step::Connect(self.deadline)
            }
            State::Send => {
                out.clear();
                encode_request(out);
                self.state = State::Waiting;
                Step::Send("CLIENT_GAME_INFO")
            }
            // At the deadline itself the wait would end at once again and again (a paused
            // test clock never moves on): the poll is over.
            State::Waiting if now >= self.deadline => {
                self.finish(Err(Error::Net(LinkError::Timeout)));
                self.poll(now, out)
            }
            State::Waiting => Step::Wait(self.deadline),
            State::Over => match self.done.take() {
                Some(Ok(status)) => Step::Done(status),
                Some(Err(e)) => Step::Failed(e),
                None => Step::Failed(Error::Net(LinkError::Timeout)),
            },
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                let cap = self.params.limits.reply_cap();
                while self.state == State::Waiting {
                    match self.buf.frame(|b| decode_packet(b, cap)) {
                        Ok(Some(p)) => self.packet(p, rtt),
                        Ok(None) => return,
                        Err(e) => return self.finish(Err(Error::Net(e))),
                    }
                }
            }
            Input::Closed => {
                let e = Error::Net(self.buf.closed());
                self.finish(Err(e));
            }
            Input::Failed(e) => self.finish(Err(Error::Net(e))),
        }
    }
}
