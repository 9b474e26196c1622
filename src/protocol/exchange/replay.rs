//! Drives an exchange through a scripted sequence of inputs on a virtual clock, the way the
//! daemon's driver does over a socket: what the fuzz targets use to feed every exchange
//! hostile input sequences (datagrams or stream chunks, closes, link failures, time passing)
//! without sockets, a runtime or a real clock.
//!
//! # Script
//! A script is plain bytes, read one record at a time whenever the exchange waits; any byte
//! string is a valid script. A record starts with an op byte; its low two bits say what
//! happens, the upper six bits `n` how long it takes:
//!
//! - `0`: nothing arrives; the wait ends at the instant the exchange asked for;
//! - `1`: after `n` × 10 ms (at most until the wait ends), bytes arrive: a length byte, then
//!   that many bytes (fewer if the script ends);
//! - `2`: the peer closes the stream;
//! - `3`: the link fails (`n` % 3: timeout, refused, an I/O error).
//!
//! When the script runs out, every further wait ends with nothing. As in the driver, waits
//! are cut at the deadline, and an exchange still running past it is polled once more and
//! then fails with a timeout. Connecting and sending always succeed.

use std::time::{Duration, Instant};

use super::error::{Error, LinkError};
use super::step::{Exchange, Input, Step};
use crate::status::Status;

/// At most this many polls per replay: an exchange needing more (sending forever without
/// waiting) is stuck, and [`Replay::stuck`] says so.
pub const MAX_STEPS: usize = 100_000;

/// How a replay ended.
#[derive(Debug)]
pub struct Replay {
    /// The exchange's result; `None` if it was stuck.
    pub result: Option<Result<Status, Error>>,
    /// Requests the exchange sent.
    pub sent: usize,
    /// Polls made.
    pub steps: usize,
    /// The virtual time the replay ended at.
    pub ended: Instant,
}

impl Replay {
    /// The exchange neither finished nor waited within [`MAX_STEPS`] polls.
    pub fn stuck(&self) -> bool {
        self.result.is_none()
    }
}

/// Runs `exchange` from `start` until it finishes, feeding it `script` (see the module
/// documentation), at the latest until `deadline` (and one poll more).
pub fn replay<X: Exchange>(
    exchange: &mut X,
    start: Instant,
    deadline: Instant,
    script: &[u8],
) -> Replay {
    let mut rest = script;
    let mut now = start;
    let mut out = Vec::new();
    let mut sent = 0;
    let mut sent_at: Option<Instant> = None;
    for steps in 1..=MAX_STEPS {
        let step = exchange.poll(now, &mut out);
        let step = match step {
            s @ (Step::Done(_) | Step::Failed(_)) => s,
            _ if now > deadline => Step::Failed(LinkError::Timeout.into()),
            s => s,
        };
        match step {
            Step::Done(status) => return ended(Ok(status), sent, steps, now),
            Step::Failed(e) => return ended(Err(e), sent, steps, now),
            Step::Connect(_) => {}
            Step::Send(_) | Step::SendSecret(_) | Step::SendAhead(_) => {
                assert!(!out.is_empty(), "an exchange sent an empty request");
                sent += 1;
                // A request sent ahead is not timed: round trips count from the next one.
                if !matches!(step, Step::SendAhead(_)) {
                    sent_at = Some(now);
                }
            }
            Step::Wait(until) => {
                let until = until.min(deadline);
                let Some((&op, tail)) = rest.split_first() else {
                    now = wait_over(now, until);
                    continue;
                };
                rest = tail;
                let n = u64::from(op >> 2);
                match op & 3 {
                    0 => now = wait_over(now, until),
                    1 => {
                        let len = rest.first().map_or(0, |&l| usize::from(l));
                        let bytes = rest.get(1..).unwrap_or(&[]);
                        let bytes = &bytes[..len.min(bytes.len())];
                        rest = &rest[(1 + bytes.len()).min(rest.len())..];
                        now = (now + Duration::from_millis(n * 10)).min(until.max(now));
                        let rtt = sent_at.map_or(Duration::ZERO, |s| now - s);
                        exchange.handle(now, Input::Received { bytes, rtt });
                    }
                    2 => exchange.handle(now, Input::Closed),
                    _ => {
                        let e = match n % 3 {
                            0 => LinkError::Timeout,
                            1 => LinkError::Refused,
                            _ => std::io::Error::other("scripted").into(),
                        };
                        exchange.handle(now, Input::Failed(e));
                    }
                }
            }
        }
    }
    Replay {
        result: None,
        sent,
        steps: MAX_STEPS,
        ended: now,
    }
}

/// The time after a wait that nothing ended: the instant asked for, and a little later if
/// that has passed already (a real clock moves on; without this, an exchange waiting for a
/// past instant would never see time pass).
fn wait_over(now: Instant, until: Instant) -> Instant {
    if until > now {
        until
    } else {
        now + Duration::from_millis(1)
    }
}

fn ended(result: Result<Status, Error>, sent: usize, steps: usize, ended: Instant) -> Replay {
    Replay {
        result: Some(result),
        sent,
        steps,
        ended,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exchange::oneshot::{Codec, OneShot};
    use crate::protocol::DecodeError;
    use crate::status::Reason;

    /// Answers "ok" with its length as the online count; "xx" is someone else's reply.
    struct Ok2;

    impl Codec for Ok2 {
        type Reply = usize;
        const REQUEST: &'static str = "ok?";

        fn encode_request(&mut self, out: &mut Vec<u8>) {
            out.push(b'?');
        }

        fn decode_reply(&self, d: &[u8]) -> Result<usize, DecodeError> {
            match d {
                [b'o', b'k', ..] => Ok(d.len()),
                [b'x', b'x'] => Err(DecodeError::Mismatch("not ours")),
                _ => Err(DecodeError::Invalid("ok")),
            }
        }

        fn to_status(&self, n: usize, latency: Duration) -> Status {
            Status {
                online: n as u32,
                latency,
                ..Status::default()
            }
        }
    }

    /// A foreign reply is skipped, the answer after 30 ms ends the exchange with that round
    /// trip; an empty script times out at the deadline; a scripted failure fails it.
    #[test]
    fn scripts() {
        let start = Instant::now();
        let deadline = start + Duration::from_secs(1);
        let script = [1, 2, b'x', b'x', 1 | (3 << 2), 3, b'o', b'k', b'!'];
        let r = replay(&mut OneShot::new(Ok2, deadline), start, deadline, &script);
        let s = r.result.unwrap().unwrap();
        assert_eq!((s.online, s.latency), (3, Duration::from_millis(30)));
        assert_eq!((r.sent, r.ended - start), (1, Duration::from_millis(30)));

        let r = replay(&mut OneShot::new(Ok2, deadline), start, deadline, &[]);
        assert_eq!(r.result.unwrap().unwrap_err().reason(), Reason::Timeout);
        assert_eq!(r.ended, deadline);

        let r = replay(
            &mut OneShot::new(Ok2, deadline),
            start,
            deadline,
            &[3 | (1 << 2)],
        );
        assert_eq!(r.result.unwrap().unwrap_err().reason(), Reason::Refused);
    }
}
