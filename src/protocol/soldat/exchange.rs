//! One poll over one TCP connection to the file server: the request for gamestat.txt out,
//! the file back, up to `ENDFILES\r\n`. A reply that never ends is cut at the byte cap
//! (`too_large`) or the deadline (`timeout`); a stream that closes first is `incomplete`.

use std::time::{Duration, Instant};

use super::{decode_frame, to_status, Gamestat, MAX_REPLY, REQUEST};
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
pub struct Soldat {
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    done: Option<Result<Status, Error>>,
}

impl Soldat {
    pub fn new(params: Params, deadline: Instant) -> Soldat {
        let cap = params.limits.reply_cap().min(MAX_REPLY);
        Soldat {
            params,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(cap),
            done: None,
        }
    }

    fn finish(&mut self, result: Result<Status, Error>) {
        if self.done.is_none() {
            self.done = Some(result);
        }
        self.state = State::Over;
    }

    fn gamestat(&mut self, g: Gamestat, rtt: Duration) {
        let status = to_status(&g, self.params.players, self.params.detail, rtt);
        self.finish(Ok(status));
    }
}

impl Exchange for Soldat {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.state {
            State::Connect => {
                self.state = State::Send;
                Step::Connect(self.deadline)
            }
            State::Send => {
                out.clear();
                out.extend_from_slice(REQUEST);
                self.state = State::Waiting;
                Step::Send("STARTFILES logs/gamestat.txt")
            }
            // At the deadline the wait would end at once, again and again: the poll is over.
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

    /// A connect that fails reaches here before anything was sent: every input counts,
    /// whatever the state (the first result is kept).
    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.state == State::Over {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                match self.buf.frame(decode_frame) {
                    Ok(Some(g)) => self.gamestat(g, rtt),
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
