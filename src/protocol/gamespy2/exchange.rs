//! The GameSpy 2 dialogue as a sans-IO state machine: one request, one reply datagram.

use std::time::{Duration, Instant};

use super::reply::{decode_reply, Reply};
use super::{encode_request, DecodeError, Request};

/// What the caller does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send these bytes to the server, then keep feeding datagrams.
    Send(Vec<u8>),
    /// Wait for a datagram until this instant, then call [`Exchange::on_tick`].
    WaitUntil(Instant),
    Done(Reply),
    Failed(ExchangeError),
}

/// Why an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// The reply did not decode, or exceeded a cap.
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// No reply before the deadline; `mismatched` datagrams echoed another request id.
    #[error("no reply before the deadline ({mismatched} reply(ies) to another request)")]
    Timeout { mismatched: usize },
}

/// One request to one server. The caller picks the request id (this module draws no random
/// numbers) and passes `now`; replies echoing another id are someone else's and are skipped.
#[derive(Debug, Clone)]
pub struct Exchange {
    request: Request,
    timeout: Duration,
    deadline: Option<Instant>,
    mismatched: usize,
    over: bool,
}

impl Exchange {
    pub fn new(request: Request, timeout: Duration) -> Exchange {
        Exchange {
            request,
            timeout,
            deadline: None,
            mismatched: 0,
            over: false,
        }
    }

    /// The request to send; starts the deadline.
    pub fn start(&mut self, now: Instant) -> Step {
        self.deadline = Some(now + self.timeout);
        let mut out = Vec::new();
        encode_request(&self.request, &mut out);
        Step::Send(out)
    }

    pub fn on_datagram(&mut self, datagram: &[u8], now: Instant) -> Step {
        if self.over {
            return self.on_tick(now);
        }
        match decode_reply(datagram, self.request.id, self.request.sections) {
            Ok(reply) => {
                self.over = true;
                Step::Done(reply)
            }
            Err(DecodeError::Mismatch(_)) => {
                self.mismatched += 1;
                self.on_tick(now)
            }
            Err(e) => {
                self.over = true;
                Step::Failed(e.into())
            }
        }
    }

    pub fn on_tick(&mut self, now: Instant) -> Step {
        let Some(deadline) = self.deadline else {
            return self.start(now);
        };
        if !self.over && now < deadline {
            return Step::WaitUntil(deadline);
        }
        self.over = true;
        Step::Failed(ExchangeError::Timeout {
            mismatched: self.mismatched,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::{encode_reply, Sections};
    use super::*;

    const T: Duration = Duration::from_secs(1);

    fn request() -> Request {
        Request {
            id: *b"abcd",
            sections: Sections::ALL,
        }
    }

    /// Someone else's reply is skipped, ours ends the exchange; afterwards nothing restarts it.
    #[test]
    fn skips_other_ids() {
        let t0 = Instant::now();
        let mut x = Exchange::new(request(), T);
        assert_eq!(
            x.start(t0),
            Step::Send(b"\xfe\xfd\x00abcd\xff\xff\xff".to_vec())
        );
        let mut ours = Vec::new();
        let reply = Reply {
            id: *b"abcd",
            vars: vec![("hostname".into(), "x".into())],
            ..Reply::default()
        };
        encode_reply(&reply, Sections::ALL, &mut ours);
        let mut theirs = ours.clone();
        theirs[4] = b'X';
        assert_eq!(x.on_datagram(&theirs, t0), Step::WaitUntil(t0 + T));
        assert!(matches!(x.on_datagram(&ours, t0), Step::Done(r) if r.vars == reply.vars));
        assert_eq!(
            x.on_tick(t0),
            Step::Failed(ExchangeError::Timeout { mismatched: 1 })
        );
    }

    /// A malformed reply fails at once; silence fails at the deadline.
    #[test]
    fn malformed_and_silent() {
        let t0 = Instant::now();
        let mut x = Exchange::new(request(), T);
        x.start(t0);
        assert!(matches!(
            x.on_datagram(b"\x07", t0),
            Step::Failed(ExchangeError::Decode(_))
        ));
        let mut x = Exchange::new(request(), T);
        x.start(t0);
        assert_eq!(x.on_tick(t0 + T / 2), Step::WaitUntil(t0 + T));
        assert_eq!(
            x.on_tick(t0 + T),
            Step::Failed(ExchangeError::Timeout { mismatched: 0 })
        );
    }
}
