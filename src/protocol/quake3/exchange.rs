//! The poll as a small sans-IO machine: `getstatus`, then optionally `getinfo`, every send
//! (resends included) at least a minimum gap after the previous one.
//!
//! # Driving it
//! 1. [`Exchange::poll`] with the current time: [`Action::Send`] these bytes,
//!    [`Action::WaitUntil`] a time (then poll again, or earlier if a datagram arrives), or
//!    [`Action::Done`].
//! 2. Feed every datagram from the server to [`Exchange::handle`]; an `Err` is a datagram that
//!    is not the awaited answer (wrong challenge or command: [`DecodeError::Mismatch`], keep
//!    waiting) or a broken one (any other error: the caller decides whether to give up).
//! 3. At [`Action::Done`], or when the caller's deadline passes, [`Exchange::finish`] gives
//!    what came back: nothing without a `getstatus` reply, and a late `getinfo` is simply
//!    left out.
//!
//! Resends are part of the machine because they must respect the gap: a DarkPlaces server
//! silently drops a repeat within a second, so resending sooner only restarts its timer.

use std::time::{Duration, Instant};

use super::reply::{decode_info, decode_status, Reply};
use super::{encode_request, Command};
use crate::protocol::DecodeError;

/// What to do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Send(Vec<u8>),
    /// Nothing to send before this time; a datagram may arrive sooner.
    WaitUntil(Instant),
    Done,
}

/// What a finished (or abandoned) exchange got.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub status: Reply,
    /// The `getinfo` reply, when it was asked for and came in time.
    pub info: Option<Reply>,
    /// From the last `getstatus` sent to its reply.
    pub latency: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Status,
    Info,
    Done,
}

#[derive(Debug, Clone)]
pub struct Exchange {
    challenge: String,
    want_info: bool,
    gap: Duration,
    step: Step,
    last_send: Option<Instant>,
    sends: u32,
    status: Option<(Reply, Duration)>,
    info: Option<Reply>,
}

impl Exchange {
    /// `challenge` goes into every request (see [`super::challenge`]); `gap` is the least
    /// time between two sends to this server ([`super::MIN_GAP`] unless the operator knows
    /// better).
    pub fn new(challenge: String, want_info: bool, gap: Duration) -> Exchange {
        Exchange {
            challenge,
            want_info,
            gap,
            step: Step::Status,
            last_send: None,
            sends: 0,
            status: None,
            info: None,
        }
    }

    /// Requests sent so far, resends included.
    pub fn sends(&self) -> u32 {
        self.sends
    }

    pub fn poll(&mut self, now: Instant) -> Action {
        let command = match self.step {
            Step::Done => return Action::Done,
            Step::Status => Command::Status,
            Step::Info => Command::Info,
        };
        if let Some(last) = self.last_send {
            let next = last + self.gap;
            if now < next {
                return Action::WaitUntil(next);
            }
        }
        self.last_send = Some(now);
        self.sends += 1;
        let mut out = Vec::with_capacity(32);
        encode_request(command, &self.challenge, &mut out);
        Action::Send(out)
    }

    /// Takes one datagram from the server.
    pub fn handle(&mut self, datagram: &[u8], now: Instant) -> Result<(), DecodeError> {
        match self.step {
            Step::Status => {
                let reply = decode_status(datagram, Some(&self.challenge))?;
                let sent = self.last_send.unwrap_or(now);
                self.status = Some((reply, now.saturating_duration_since(sent)));
                self.step = if self.want_info {
                    Step::Info
                } else {
                    Step::Done
                };
                Ok(())
            }
            Step::Info => {
                self.info = Some(decode_info(datagram, Some(&self.challenge))?);
                self.step = Step::Done;
                Ok(())
            }
            Step::Done => Err(DecodeError::Mismatch("no Quake 3 request outstanding")),
        }
    }

    pub fn finish(self) -> Option<Outcome> {
        let (status, latency) = self.status?;
        Some(Outcome {
            status,
            info: self.info,
            latency,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::reply::{encode_info_reply, encode_status_reply};
    use super::*;

    const GAP: Duration = Duration::from_millis(1100);

    fn status_reply(challenge: &str) -> Vec<u8> {
        let mut d = Vec::new();
        encode_status_reply(
            &[
                ("challenge".into(), challenge.into()),
                ("sv_maxclients".into(), "8".into()),
            ],
            &[],
            &mut d,
        );
        d
    }

    fn info_reply(challenge: &str) -> Vec<u8> {
        let mut d = Vec::new();
        encode_info_reply(&[("challenge".into(), challenge.into())], &mut d);
        d
    }

    /// getstatus alone: send, answer, done; latency is the round trip.
    #[test]
    fn status_only() {
        let t0 = Instant::now();
        let mut x = Exchange::new("c1".into(), false, GAP);
        assert_eq!(
            x.poll(t0),
            Action::Send(b"\xff\xff\xff\xffgetstatus c1\n".to_vec())
        );
        assert_eq!(x.poll(t0), Action::WaitUntil(t0 + GAP));
        x.handle(&status_reply("c1"), t0 + Duration::from_millis(7))
            .unwrap();
        assert_eq!(x.poll(t0 + Duration::from_millis(7)), Action::Done);
        let o = x.finish().unwrap();
        assert_eq!(o.latency, Duration::from_millis(7));
        assert_eq!(o.info, None);
        assert_eq!(o.status.vars.get("sv_maxclients"), Some("8"));
    }

    /// getinfo waits a full gap after getstatus, however fast the first answer came.
    #[test]
    fn info_after_gap() {
        let t0 = Instant::now();
        let mut x = Exchange::new("c2".into(), true, GAP);
        assert!(matches!(x.poll(t0), Action::Send(_)));
        let t1 = t0 + Duration::from_millis(5);
        x.handle(&status_reply("c2"), t1).unwrap();
        assert_eq!(x.poll(t1), Action::WaitUntil(t0 + GAP));
        assert_eq!(
            x.poll(t0 + GAP),
            Action::Send(b"\xff\xff\xff\xffgetinfo c2\n".to_vec())
        );
        // A late duplicate statusResponse is not the info reply.
        assert_eq!(
            x.handle(&status_reply("c2"), t0 + GAP),
            Err(DecodeError::Mismatch("Quake 3 reply command"))
        );
        x.handle(&info_reply("c2"), t0 + GAP + Duration::from_millis(3))
            .unwrap();
        assert_eq!(x.poll(t0 + GAP * 2), Action::Done);
        assert_eq!(x.sends(), 2);
        let o = x.finish().unwrap();
        assert_eq!(o.latency, Duration::from_millis(5));
        assert!(o.info.is_some());
    }

    /// Unanswered requests are resent, never sooner than the gap; answers to another
    /// challenge are refused; an abandoned exchange keeps the status it got.
    #[test]
    fn resends_respect_gap() {
        let t0 = Instant::now();
        let mut x = Exchange::new("c3".into(), true, GAP);
        let mut sends = Vec::new();
        let mut t = t0;
        while t < t0 + Duration::from_secs(4) {
            if let Action::Send(_) = x.poll(t) {
                sends.push(t - t0);
            }
            t += Duration::from_millis(50);
        }
        assert_eq!(
            sends,
            [0, 1100, 2200, 3300].map(Duration::from_millis).to_vec()
        );
        assert_eq!(
            x.handle(&status_reply("other"), t),
            Err(DecodeError::Mismatch("Quake 3 challenge"))
        );
        assert!(x.clone().finish().is_none());
        x.handle(&status_reply("c3"), t).unwrap();
        // The caller's deadline passes before getinfo is answered.
        let o = x.finish().unwrap();
        assert_eq!(o.info, None);
        assert_eq!(o.latency, t - (t0 + Duration::from_millis(3300)));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]

            /// Whatever arrives and whenever it is polled, two sends are never closer than the
            /// gap, and the machine never panics.
            #[test]
            fn sends_keep_the_gap(
                steps in proptest::collection::vec(
                    (0u64..700, proptest::option::of(proptest::collection::vec(any::<u8>(), 0..64)), any::<bool>()),
                    1..40,
                ),
                want_info in any::<bool>(),
            ) {
                let t0 = Instant::now();
                let mut t = t0;
                let mut x = Exchange::new("c".into(), want_info, GAP);
                let mut last: Option<Instant> = None;
                for (advance, datagram, valid) in steps {
                    t += Duration::from_millis(advance);
                    if let Action::Send(_) = x.poll(t) {
                        if let Some(l) = last {
                            prop_assert!(t - l >= GAP);
                        }
                        last = Some(t);
                    }
                    let bytes = match (datagram, valid) {
                        (_, true) => status_reply("c"),
                        (Some(d), false) => d,
                        (None, false) => info_reply("c"),
                    };
                    let _ = x.handle(&bytes, t);
                }
            }
        }
    }

    /// After Done, nothing more is taken.
    #[test]
    fn done_refuses() {
        let t0 = Instant::now();
        let mut x = Exchange::new("c".into(), false, GAP);
        let _ = x.poll(t0);
        x.handle(&status_reply("c"), t0).unwrap();
        assert!(x.handle(&status_reply("c"), t0).is_err());
    }
}
