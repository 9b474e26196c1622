//! The exchange of every protocol that is one request and one reply (Mumble's ping, Quake 3
//! `getstatus`, a RakNet unconnected ping): the codec says how to write the request, read
//! the reply and normalize it; [`OneShot`] does the rest (skipping datagrams that answer
//! something else, the deadline, the failure reason).

use std::time::Duration;

use std::time::Instant;

use super::ask::{Ask, Next};
use super::error::{Error, LinkError};
use super::step::{Exchange, Input, Step};
use crate::protocol::DecodeError;
use crate::status::Status;

/// What a one-request/one-reply protocol fills in.
pub trait Codec {
    /// The decoded reply.
    type Reply;

    /// The request's name in transcripts.
    const REQUEST: &'static str;

    /// Writes the request into `out` (empty on entry). Called again only if the exchange is
    /// restarted; resends reuse the bytes.
    fn encode_request(&mut self, out: &mut Vec<u8>);

    /// Decodes one datagram. [`DecodeError::Mismatch`] means "not the answer to our request"
    /// (another session id, a stale reply): it is skipped. Any other error fails the poll.
    fn decode_reply(&self, datagram: &[u8]) -> Result<Self::Reply, DecodeError>;

    /// Normalizes the reply; `latency` is its round trip.
    fn to_status(&self, reply: Self::Reply, latency: Duration) -> Status;
}

/// A one-request/one-reply exchange over a codec.
#[derive(Debug)]
pub struct OneShot<C> {
    codec: C,
    ask: Ask,
    result: Option<Result<Status, Error>>,
}

impl<C: Codec> OneShot<C> {
    /// Waits for the reply until `deadline`.
    pub fn new(codec: C, deadline: Instant) -> OneShot<C> {
        OneShot {
            codec,
            ask: Ask::new(deadline),
            result: None,
        }
    }
}

impl<C: Codec> Exchange for OneShot<C> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.result.take() {
            Some(Ok(status)) => return Step::Done(status),
            Some(Err(e)) => return Step::Failed(e),
            None => {}
        }
        match self.ask.next(now) {
            Next::Send => {
                out.clear();
                self.codec.encode_request(out);
                Step::Send(C::REQUEST)
            }
            Next::Wait(step) => step,
            Next::Expired(e) => Step::Failed(e),
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.result.is_some() {
            return;
        }
        self.result = match input {
            Input::Received { bytes, rtt } => match self.codec.decode_reply(bytes) {
                Ok(reply) => Some(Ok(self.codec.to_status(reply, rtt))),
                Err(DecodeError::Mismatch(_)) => {
                    self.ask.foreign();
                    None
                }
                Err(e) => Some(Err(e.into())),
            },
            Input::Closed => Some(Err(LinkError::Closed { received: 0 }.into())),
            Input::Failed(e) => Some(Err(e.into())),
        };
    }
}
