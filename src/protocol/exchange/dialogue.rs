//! Test-only: drives a stream exchange through a scripted conversation, for the unit tests of
//! the console exchanges (7 Days to Die's telnet, WebRCON), which each had a copy of it.

use std::time::{Duration, Instant};

use super::error::{Error, LinkError};
use super::step::{Exchange, Input, Step};
use crate::status::Status;

/// What a dialogue sent: each request's label and bytes, in order.
pub type Sent = Vec<(String, Vec<u8>)>;

/// Runs the dialogue: `greeting` at connect, then after each of our sends the next answer,
/// every one fed a byte at a time, `rtt` after its request. When the answers run out the
/// server closes the stream (`close`) or stays silent (the result is then a timeout).
pub fn converse<X: Exchange>(
    x: &mut X,
    greeting: &[u8],
    answers: &[&[u8]],
    close: bool,
    rtt: Duration,
) -> (Sent, Result<Status, Error>) {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut sent = Vec::new();
    let mut answers = answers.iter();
    let feed = |x: &mut X, bytes: &[u8]| {
        for b in bytes.chunks(1) {
            x.handle(t0, Input::Received { bytes: b, rtt });
        }
    };
    loop {
        match x.poll(t0, &mut out) {
            Step::Connect(_) => feed(x, greeting),
            Step::Send(l) | Step::SendSecret(l) => {
                sent.push((l.to_string(), out.clone()));
                match answers.next() {
                    Some(a) => feed(x, a),
                    None if close => x.handle(t0, Input::Closed),
                    None => {}
                }
            }
            Step::Wait(_) if close => x.handle(t0, Input::Closed),
            Step::Wait(_) => return (sent, Err(Error::Net(LinkError::Timeout))),
            Step::Done(s) => return (sent, Ok(s)),
            Step::Failed(e) => return (sent, Err(e)),
            Step::SendAhead(_) => unreachable!(),
        }
    }
}

/// Whether the exchange ends (done or failed) within `polls` polls 10 s after `t0`: what the
/// arbitrary-input proptests check after feeding their bytes and closing the stream.
pub fn ends<X: Exchange>(x: &mut X, t0: Instant, out: &mut Vec<u8>, polls: usize) -> bool {
    (0..polls).any(|_| {
        matches!(
            x.poll(t0 + Duration::from_secs(10), out),
            Step::Done(_) | Step::Failed(_)
        )
    })
}
