//! The exchange of an HTTP API: one connection, then a few requests one after the other,
//! each answered by one whole response (the link's contract, see the module above). What
//! to ask and what the answers mean is the protocol's [`Api`]; connecting, waiting, the
//! deadline, best-effort steps and the round trip are here, once.

use std::time::{Duration, Instant};

use super::{decode_response, Response};
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Step};
use crate::status::Status;

/// One HTTP API: its requests in order and what their answers mean.
pub trait Api {
    /// Writes request `i` (0, 1, ...) into `out` with [`super::encode_request`] and names it
    /// for transcripts; `None` when there is nothing more to ask.
    fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str>;

    /// Request `i` was answered. An error fails the poll, unless the step is best effort.
    fn response(&mut self, i: usize, response: &Response<'_>) -> Result<(), Error>;

    /// Request `i` is best effort (a player list): its failure is noted in the status's
    /// extras under this key instead of failing the poll.
    fn best_effort(&self, _i: usize) -> Option<&'static str> {
        None
    }

    /// The status from every answer; `latency` is the first request's round trip.
    fn status(&mut self, latency: Duration) -> Result<Status, Error>;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The connection is to be opened.
    Start,
    /// Request `i` is next.
    Next(usize),
    /// Request `i` is out; its answer is awaited until the instant.
    Waiting(usize, Instant),
    Finished,
}

/// The exchange for an [`Api`].
#[derive(Debug)]
pub struct Fetch<A> {
    api: A,
    state: State,
    deadline: Instant,
    latency: Option<Duration>,
    failed: Option<Error>,
    notes: Vec<(&'static str, Error)>,
}

impl<A: Api> Fetch<A> {
    pub fn new(api: A, deadline: Instant) -> Fetch<A> {
        Fetch {
            api,
            state: State::Start,
            deadline,
            latency: None,
            failed: None,
            notes: Vec::new(),
        }
    }

    pub fn api(&self) -> &A {
        &self.api
    }

    /// Request `i` failed with `e`: noted if best effort, else the poll's failure.
    fn step_failed(&mut self, i: usize, e: Error) {
        match self.api.best_effort(i) {
            Some(key) => {
                self.notes.push((key, e));
                self.state = State::Next(i + 1);
            }
            None => self.failed = Some(e),
        }
    }

    fn finish(&mut self) -> Step {
        self.state = State::Finished;
        match self.api.status(self.latency.unwrap_or_default()) {
            Ok(mut status) => {
                for (key, e) in &self.notes {
                    note(&mut status.extras, key, e);
                }
                Step::Done(status)
            }
            Err(e) => Step::Failed(e),
        }
    }
}

impl<A: Api> Exchange for Fetch<A> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(e) = self.failed.take() {
            self.state = State::Finished;
            return Step::Failed(e);
        }
        match self.state {
            State::Start => {
                self.state = State::Next(0);
                Step::Connect(self.deadline)
            }
            State::Next(i) => match self.api.request(i, out) {
                Some(what) => {
                    self.state = State::Waiting(i, self.deadline);
                    Step::Send(what)
                }
                None => self.finish(),
            },
            State::Waiting(i, until) if now >= until => {
                self.step_failed(i, LinkError::Timeout.into());
                self.poll(now, out)
            }
            State::Waiting(_, until) => Step::Wait(until),
            // Polled again after the result: say it is over.
            State::Finished => Step::Failed(LinkError::Closed { received: 0 }.into()),
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        let State::Waiting(i, _) = self.state else {
            // Connecting failed, or input while nothing was asked.
            if let Input::Failed(e) = input {
                self.failed = Some(e.into());
            }
            return;
        };
        match input {
            Input::Received { bytes, rtt } => {
                self.latency.get_or_insert(rtt);
                let done = match decode_response(bytes) {
                    Ok(response) => self.api.response(i, &response),
                    Err(e) => Err(e.into()),
                };
                match done {
                    Ok(()) => self.state = State::Next(i + 1),
                    Err(e) => self.step_failed(i, e),
                }
            }
            Input::Closed => self.step_failed(i, LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.step_failed(i, e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::http::{encode_request, encode_response};

    /// Asks `/a` (required) and `/b` (best effort); the status counts the answers' bytes.
    #[derive(Debug, Default)]
    struct Two {
        bytes: u32,
    }

    impl Api for Two {
        fn request(&mut self, i: usize, out: &mut Vec<u8>) -> Option<&'static str> {
            let path = ["/a", "/b"].get(i)?;
            encode_request("GET", path, &[], b"", out);
            Some("GET")
        }

        fn response(&mut self, _i: usize, r: &Response<'_>) -> Result<(), Error> {
            self.bytes += r.json()?.len() as u32;
            Ok(())
        }

        fn best_effort(&self, i: usize) -> Option<&'static str> {
            (i == 1).then_some("b_error")
        }

        fn status(&mut self, latency: Duration) -> Result<Status, Error> {
            Ok(Status {
                online: self.bytes,
                latency,
                ..Status::default()
            })
        }
    }

    fn json(body: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let h: [(&str, &[u8]); 1] = [("content-type", b"application/json")];
        encode_response(200, h, body, &mut out);
        out
    }

    /// Runs a fetch of [`Two`] over these whole responses (a replay script).
    fn run(responses: &[Vec<u8>]) -> (Result<Status, Error>, usize) {
        let mut script = Vec::new();
        for r in responses {
            script.push(1);
            script.push(r.len() as u8);
            script.extend_from_slice(r);
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let mut x = Fetch::new(Two::default(), deadline);
        let r = replay(&mut x, start, deadline, &script);
        (r.result.unwrap(), r.sent)
    }

    /// Both answered: connect once, two requests, the status from both.
    #[test]
    fn both_answered() {
        let (result, sent) = run(&[json(b"[1]"), json(b"[22]")]);
        assert_eq!(result.unwrap().online, 7);
        assert_eq!(sent, 2);
    }

    /// The best-effort step failing is noted; the required one failing fails the poll with
    /// its typed error.
    #[test]
    fn best_effort_and_required() {
        let mut refused = Vec::new();
        encode_response(401, [], b"", &mut refused);
        let (result, _) = run(&[json(b"[1]"), refused.clone()]);
        let s = result.unwrap();
        assert_eq!(s.online, 3);
        assert_eq!(s.extras["b_error"], "auth_refused");
        let (result, _) = run(&[refused]);
        assert!(matches!(result, Err(Error::HttpStatus { status: 401 })));
    }
}
