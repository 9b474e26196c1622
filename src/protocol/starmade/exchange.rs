//! One poll over one TCP connection: the status request out, one framed reply back.

use std::time::{Duration, Instant};

use super::{decode_reply, to_info, to_status, Param, MAX_REPLY, REQUEST};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::status::Status;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Send,
    Waiting,
    Over,
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Starmade {
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    done: Option<Result<Status, Error>>,
}

impl Starmade {
    pub fn new(params: Params, deadline: Instant) -> Starmade {
        Starmade {
            params,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(params.limits.reply_cap().min(MAX_REPLY)),
            done: None,
        }
    }

    fn finish(&mut self, result: Result<Status, Error>) {
        if self.done.is_none() {
            self.done = Some(result);
        }
        self.state = State::Over;
    }

    fn reply(&mut self, params: Vec<Param>, rtt: Duration) {
        let result = to_info(&params)
            .map(|info| to_status(info, rtt, self.params.detail))
            .map_err(Error::from);
        self.finish(result);
    }
}

impl Exchange for Starmade {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.state {
            State::Connect => {
                self.state = State::Send;
                Step::Connect(self.deadline)
            }
            State::Send => {
                out.clear();
                out.extend_from_slice(&REQUEST);
                self.state = State::Waiting;
                Step::Send("status")
            }
            // At the deadline itself the wait would end at once again and again: over.
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
        // A failed connect comes before anything is sent: every input counts in every state
        // (finish keeps the first outcome).
        match input {
            Input::Received { .. } if self.state == State::Over => {}
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                let cap = self.params.limits.reply_cap();
                match self.buf.frame(|b| decode_reply(b, cap)) {
                    Ok(Some(params)) => self.reply(params, rtt),
                    Ok(None) => {}
                    Err(e) => self.finish(Err(Error::Net(e))),
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

/// A poll's exchange.
pub fn new(params: Params, deadline: Instant) -> Starmade {
    Starmade::new(params, deadline)
}
