//! The exchange of a TCP protocol that asks once and reads framed replies on one connection
//! (Soldat's file server, StarMade's status, OpenTTD's game info): connect, write the request,
//! read frames until one settles the poll. The protocol says how to write the request, cut a
//! frame and what a frame means ([`Framed`]); [`StreamOnce`] does the rest (the byte cap, the
//! deadline, a stream closed early, the first outcome kept).

use std::fmt::Debug;
use std::time::{Duration, Instant};

use super::error::{Error, LinkError};
use super::step::{Exchange, Input, Step};
use super::stream::StreamBuf;
use crate::protocol::DecodeError;
use crate::status::Status;

/// What a one-request TCP protocol fills in.
pub trait Framed: Debug {
    /// One decoded frame.
    type Frame;

    /// The request's name in transcripts.
    const REQUEST: &'static str;

    /// Writes the request into `out` (empty on entry).
    fn encode_request(&mut self, out: &mut Vec<u8>);

    /// The next whole frame at the start of `buf` and the bytes it took; `None` while more
    /// bytes are needed.
    fn decode(&self, buf: &[u8]) -> Result<Option<(Self::Frame, usize)>, DecodeError>;

    /// What a frame means: the poll's outcome, or `None` to read on (a frame of another
    /// kind, skipped). `rtt` is the round trip of the chunk that completed it.
    fn frame(&mut self, frame: Self::Frame, rtt: Duration) -> Option<Result<Status, Error>>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Send,
    Waiting,
    Over,
}

/// One poll's dialogue over a [`Framed`] protocol.
#[derive(Debug)]
pub struct StreamOnce<F> {
    framed: F,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    done: Option<Result<Status, Error>>,
}

impl<F: Framed> StreamOnce<F> {
    /// Reads at most `cap` bytes of replies (the lower of the target's reply cap and the
    /// protocol's own bound). A protocol names its exchange `StreamOnce<ItsFramed>` and gives
    /// it a `new(params, deadline)` of its own (an inherent impl in its folder).
    pub fn start(framed: F, cap: usize, deadline: Instant) -> StreamOnce<F> {
        StreamOnce {
            framed,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(cap),
            done: None,
        }
    }

    /// The protocol's side, as built.
    pub fn framed(&self) -> &F {
        &self.framed
    }

    /// The first outcome is kept; the poll is over.
    fn finish(&mut self, result: Result<Status, Error>) {
        if self.done.is_none() {
            self.done = Some(result);
        }
        self.state = State::Over;
    }
}

impl<F: Framed> Exchange for StreamOnce<F> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.state {
            State::Connect => {
                self.state = State::Send;
                Step::Connect(self.deadline)
            }
            State::Send => {
                out.clear();
                self.framed.encode_request(out);
                self.state = State::Waiting;
                Step::Send(F::REQUEST)
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

    /// A connect that fails reaches here before anything was sent: every input counts,
    /// whatever the state (the first outcome is kept). Frames are read until one settles
    /// the poll; what follows it is ignored.
    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.state == State::Over {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                while self.state != State::Over {
                    let framed = &self.framed;
                    match self.buf.frame(|b| framed.decode(b)) {
                        Ok(Some(frame)) => {
                            if let Some(result) = self.framed.frame(frame, rtt) {
                                self.finish(result);
                            }
                        }
                        Ok(None) => return,
                        Err(e) => self.finish(Err(Error::Net(e))),
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
