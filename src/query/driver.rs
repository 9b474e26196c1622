//! The one driver: runs any [`Exchange`] over any [`Transport`] until it is done.
//!
//! The exchange decides what to send and how long to wait; the driver does the I/O, reads
//! the clock, resends an unanswered datagram request, keeps the minimum gap a server needs
//! between two requests, and tells an optional [`Observer`] everything it does. It is
//! generic over both sides, so each protocol's poll is monomorphized and nothing is boxed;
//! with no observer, observation costs a branch per event.
//!
//! The clock is the driver's (tokio's, paused in tests): an exchange is handed `now` as the
//! plain [`std::time::Instant`] that tokio's instant wraps (`into_std`), and the instants it
//! answers are wrapped back (`from_std`), so both sides read one clock.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::time::Instant;

use super::transport::{Recv, Transport};
use crate::net::NetError;
use crate::protocol::exchange::{Error, Exchange, Input, Step};
use crate::status::Status;

/// Times an unanswered datagram request is sent again within its wait.
pub const RESENDS: u8 = 2;

/// The shortest wait before a request is sent again: below this a slow server would see
/// duplicates more often than a lossy path is helped.
pub const RESEND_AFTER_MIN: Duration = Duration::from_millis(500);

/// How requests to one server are spaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// Copies of an unanswered datagram request sent again, spread evenly over the wait.
    pub resends: u8,
    /// The least time between two requests to the server, resends included (DarkPlaces
    /// drops a second request from the same address within about a second). Zero: no gap
    /// beyond [`RESEND_AFTER_MIN`] for resends.
    pub min_gap: Duration,
}

impl Default for Pacing {
    fn default() -> Self {
        Pacing {
            resends: RESENDS,
            min_gap: Duration::ZERO,
        }
    }
}

/// Something the driver did or saw, for transcripts (`/probe?debug=true`) and tests.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The exchange starts against this address (what name resolution, SRV included, gave);
    /// `datagrams` tells UDP from a stream.
    Peer { addr: SocketAddr, datagrams: bool },
    /// A connection was opened.
    Connected,
    /// A request went out; the label says which.
    Sent { bytes: &'a [u8], what: &'static str },
    /// A request carrying a secret went out ([`Step::SendSecret`]): its length only, so no
    /// observer can show or log the bytes.
    SentSecret { len: usize, what: &'static str },
    /// An unanswered request went out again.
    Resent { bytes: &'a [u8] },
    /// A datagram or stream chunk arrived.
    Received { bytes: &'a [u8] },
    /// The peer closed the stream.
    Closed,
    /// A wait the exchange asked for ended with nothing received.
    TimedOut,
    /// Connecting, sending or receiving failed.
    TransportError(&'a NetError),
    /// The poll ended.
    Finished(Result<&'a Status, &'a Error>),
}

/// Sees every event of one poll, with the time it happened.
pub trait Observer: Send {
    fn event(&mut self, at: Instant, event: Event<'_>);

    /// The target's credentials, told before its first event: an observer that shows what
    /// the server sent hides them there (a server may echo what it was sent).
    fn credentials(&mut self, _credentials: &crate::target::Credentials) {}
}

/// The request that went out last, for resending and round trips.
#[derive(Debug, Default)]
struct Last {
    sent_at: Option<Instant>,
    resends_left: u8,
}

impl Last {
    /// When to send the request again if it is still unanswered then: the time left before
    /// `until` is shared evenly between the copies still to go.
    fn resend_at(&self, until: Instant, pacing: Pacing) -> Option<Instant> {
        let sent_at = self.sent_at.filter(|_| self.resends_left > 0)?;
        let left = until.saturating_duration_since(sent_at);
        let gap = (left / (u32::from(self.resends_left) + 1))
            .max(RESEND_AFTER_MIN)
            .max(pacing.min_gap);
        Some(sent_at + gap).filter(|at| *at < until)
    }
}

/// Runs `exchange` over `transport` until it finishes, and at the latest at `deadline` (an
/// exchange's waits are clamped to it; past it the exchange is polled once more and must
/// finish).
///
/// # Returns
/// The exchange's status or error; the observer, if any, has seen every step.
pub async fn drive<X: Exchange, T: Transport>(
    exchange: &mut X,
    transport: &mut T,
    deadline: Instant,
    pacing: Pacing,
    mut observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let mut out = Vec::with_capacity(64);
    // A request pipelined ahead of the next one ([`Step::SendAhead`]): held until that one
    // is written, so both leave together.
    let mut ahead: Option<(&'static str, Vec<u8>)> = None;
    let mut last = Last::default();
    // Events without a time of their own read the clock only when someone observes.
    let mut seen = |at: Option<Instant>, e: Event<'_>| {
        if let Some(o) = observer.as_deref_mut() {
            o.event(at.unwrap_or_else(Instant::now), e);
        }
    };
    // The time just read after a send or receive serves as the next poll's `now`: one clock
    // read fewer per step on the hot path.
    let mut fresh: Option<Instant> = None;
    if let Some(addr) = transport.peer() {
        seen(
            None,
            Event::Peer {
                addr,
                datagrams: T::DATAGRAMS,
            },
        );
    }
    loop {
        let now = fresh.take().unwrap_or_else(Instant::now);
        let step = if now > deadline {
            // An exchange that has overrun the poll's deadline is polled once more and, if it
            // still does not finish, the poll times out.
            match exchange.poll(now.into_std(), &mut out) {
                s @ (Step::Done(_) | Step::Failed(_)) => s,
                _ => Step::Failed(NetError::Timeout.into()),
            }
        } else {
            exchange.poll(now.into_std(), &mut out)
        };
        // A request sent ahead goes out with the next request; if none follows, alone.
        if let Some((what, bytes)) = ahead.take_if(|_| {
            !matches!(
                step,
                Step::Send(_) | Step::SendSecret(_) | Step::SendAhead(_)
            )
        }) {
            match transport.send(&bytes, deadline).await {
                Ok(_) => {
                    let bytes = &transport.shown(&bytes);
                    seen(None, Event::Sent { bytes, what });
                }
                Err(e) => {
                    fail(exchange, e, &mut seen);
                    continue;
                }
            }
        }
        match step {
            Step::SendAhead(what) => {
                // The last one written wins: only one request goes ahead of the next.
                let mut bytes = ahead.take().map(|(_, b)| b).unwrap_or_default();
                bytes.clear();
                bytes.extend_from_slice(&out);
                ahead = Some((what, bytes));
                fresh = Some(now);
            }
            Step::Connect(until) => match transport
                .connect(Instant::from_std(until).min(deadline))
                .await
            {
                Ok(()) => {
                    last = Last::default();
                    seen(None, Event::Connected);
                }
                Err(e) => fail(exchange, e, &mut seen),
            },
            Step::Send(what) | Step::SendSecret(what) => {
                let secret = matches!(step, Step::SendSecret(_));
                if let Some(at) = last.sent_at.filter(|_| !pacing.min_gap.is_zero()) {
                    tokio::time::sleep_until((at + pacing.min_gap).min(deadline)).await;
                }
                let first = ahead.take();
                let sent = match &first {
                    Some((_, first)) => transport.send_pair(first, &out, deadline).await,
                    None => transport.send(&out, deadline).await,
                };
                match sent {
                    // When it left, where the transport knows (see `transport::Sent`).
                    Ok(sent) => {
                        let at = sent.unwrap_or_else(Instant::now);
                        // A secret is never resent: a copy the observer could not be shown
                        // is one more copy on the wire for nothing.
                        let resends = if transport.resends() && !secret {
                            pacing.resends
                        } else {
                            0
                        };
                        last = Last {
                            sent_at: Some(at),
                            resends_left: resends,
                        };
                        if let Some((what, bytes)) = transport.sent_preamble() {
                            seen(Some(at), Event::Sent { bytes, what });
                        }
                        if let Some((what, bytes)) = &first {
                            let bytes = &transport.shown(bytes);
                            seen(Some(at), Event::Sent { bytes, what });
                        }
                        if secret {
                            let len = out.len();
                            seen(Some(at), Event::SentSecret { len, what });
                        } else {
                            // What the transport lets observers see (HTTP: secrets cut out).
                            let bytes = &transport.shown(&out);
                            seen(Some(at), Event::Sent { bytes, what });
                        }
                        fresh = Some(at);
                    }
                    Err(e) => fail(exchange, e, &mut seen),
                }
            }
            Step::Wait(until) => {
                let until = Instant::from_std(until).min(deadline);
                let resend_at = last.resend_at(until, pacing);
                // No receive buffer is held across this wait: the transport hands over what
                // arrived at its size, and it is dropped once the exchange has seen it.
                match transport.recv(resend_at.unwrap_or(until)).await {
                    // When it was read, where the transport knows (see `transport::Sent`).
                    Ok(Recv::Bytes(bytes, read)) => {
                        let at = read.unwrap_or_else(Instant::now);
                        let bytes = bytes.as_slice();
                        seen(Some(at), Event::Received { bytes });
                        let rtt = last
                            .sent_at
                            .map_or(Duration::ZERO, |s| at.saturating_duration_since(s));
                        exchange.handle(at.into_std(), Input::Received { bytes, rtt });
                        fresh = Some(at);
                    }
                    Ok(Recv::Closed) => {
                        let at = Instant::now();
                        seen(Some(at), Event::Closed);
                        exchange.handle(at.into_std(), Input::Closed);
                    }
                    Ok(Recv::Timeout) if resend_at.is_some() => {
                        last.resends_left = last.resends_left.saturating_sub(1);
                        tracing::trace!("no answer yet, sending the request again");
                        match transport.send(&out, deadline).await {
                            Ok(sent) => {
                                let at = sent.unwrap_or_else(Instant::now);
                                last.sent_at = Some(at);
                                let bytes = &transport.shown(&out);
                                seen(Some(at), Event::Resent { bytes });
                            }
                            Err(e) => fail(exchange, e, &mut seen),
                        }
                    }
                    // The wait is over: the next poll sees a `now` past it.
                    Ok(Recv::Timeout) => seen(None, Event::TimedOut),
                    Err(e) => fail(exchange, e, &mut seen),
                }
            }
            Step::Done(status) => {
                // A count no server reaches is a misread reply: never published.
                if let Some((field, value)) = status.implausible() {
                    let e = Error::Implausible { field, value };
                    seen(None, Event::Finished(Err(&e)));
                    return Err(e);
                }
                seen(None, Event::Finished(Ok(&status)));
                return Ok(status);
            }
            Step::Failed(e) => {
                seen(None, Event::Finished(Err(&e)));
                return Err(e);
            }
        }
    }
}

fn fail<X: Exchange>(
    exchange: &mut X,
    e: NetError,
    seen: &mut impl FnMut(Option<Instant>, Event<'_>),
) {
    let at = Instant::now();
    seen(Some(at), Event::TransportError(&e));
    exchange.handle(at.into_std(), Input::Failed(e));
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;

    use tokio::net::UdpSocket;

    use super::*;
    use crate::net::udp::{UdpChannel, UdpMux};
    use crate::protocol::exchange::oneshot::{Codec, OneShot};
    use crate::protocol::DecodeError;
    use crate::query::fake::{Answer, Fake};
    use crate::query::transport::Sent;

    /// A toy one-shot protocol: the request is "req", the reply anything starting with "re";
    /// "xx" answers something else.
    struct Echo;

    impl Codec for Echo {
        type Reply = usize;
        const REQUEST: &'static str = "echo";

        fn encode_request(&mut self, out: &mut Vec<u8>) {
            out.extend_from_slice(b"req");
        }

        fn decode_reply(&self, d: &[u8]) -> Result<usize, DecodeError> {
            match d {
                [b'r', b'e', ..] => Ok(d.len()),
                [b'x', b'x', ..] => Err(DecodeError::Mismatch("not ours")),
                _ => Err(DecodeError::Invalid("echo")),
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

    /// Records what the driver reports.
    #[derive(Default)]
    struct Transcript(Vec<(Instant, String)>);

    impl Observer for Transcript {
        fn event(&mut self, at: Instant, event: Event<'_>) {
            let line = match event {
                Event::Peer { .. } => return,
                Event::Connected => "connected".to_string(),
                Event::Sent { bytes, what } => format!("sent {what} {bytes:?}"),
                Event::SentSecret { len, what } => format!("sent {what} <redacted {len} bytes>"),
                Event::Resent { bytes } => format!("resent {bytes:?}"),
                Event::Received { bytes } => format!("received {bytes:?}"),
                Event::Closed => "closed".into(),
                Event::TimedOut => "timed out".into(),
                Event::TransportError(e) => format!("error {e}"),
                Event::Finished(Ok(s)) => format!("done {}", s.online),
                Event::Finished(Err(e)) => format!("failed {}", e.reason()),
            };
            self.0.push((at, line));
        }
    }

    /// The observer sees every request, resend, datagram and the result, in order and with
    /// times: the first copy is lost, the second answered after something foreign.
    #[tokio::test(start_paused = true)]
    async fn observer_sees_everything() {
        let mut fake = Fake::<true>::new(|_, n, _| match n {
            0 => vec![],
            _ => vec![
                Answer::Bytes(b"xx".to_vec()),
                Answer::Bytes(b"reply".to_vec()),
            ],
        });
        let start = Instant::now();
        let deadline = start + Duration::from_secs(3);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let mut t = Transcript::default();
        let s = drive(&mut x, &mut fake, deadline, Pacing::default(), Some(&mut t))
            .await
            .unwrap();
        assert_eq!(s.online, 5);
        let lines: Vec<&str> = t.0.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(
            lines,
            [
                "sent echo [114, 101, 113]",
                "resent [114, 101, 113]",
                "received [120, 120]",
                "received [114, 101, 112, 108, 121]",
                "done 5",
            ]
        );
        // The resend waited its share of the deadline: 3 s over three copies.
        assert_eq!(t.0[1].0 - start, Duration::from_secs(1));
        // The round trip counts from the copy that was answered.
        assert_eq!(s.latency, Duration::ZERO);
    }

    /// A reply whose count wrapped (a negative read as unsigned): the poll fails
    /// `malformed`, the field named, and the count is never handed on.
    #[tokio::test(start_paused = true)]
    async fn implausible_count_fails_malformed() {
        struct Wrapped;
        impl Codec for Wrapped {
            type Reply = ();
            const REQUEST: &'static str = "wrapped";
            fn encode_request(&mut self, out: &mut Vec<u8>) {
                out.extend_from_slice(b"req");
            }
            fn decode_reply(&self, _: &[u8]) -> Result<(), DecodeError> {
                Ok(())
            }
            fn to_status(&self, _: (), latency: Duration) -> Status {
                Status {
                    online: 2,
                    max: -1i32 as u32,
                    latency,
                    ..Status::default()
                }
            }
        }
        let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(b"re".to_vec())]);
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut x = OneShot::new(Wrapped, deadline.into_std());
        let mut t = Transcript::default();
        let e = drive(&mut x, &mut fake, deadline, Pacing::default(), Some(&mut t))
            .await
            .unwrap_err();
        assert_eq!(e.reason(), crate::status::Reason::Malformed);
        assert_eq!(
            e.to_string(),
            "max 4294967295 is not a count a real server reports (over 1000000)"
        );
        assert_eq!(
            t.0.last().map(|(_, l)| l.as_str()),
            Some("failed malformed")
        );
    }

    /// A transport that knows when its request left and its reply was read (the shared UDP
    /// socket: the flush, the dispatcher's read) times the round trip by those instants, not
    /// by when the poll ran again: here the clock never moves, and the latency is still the
    /// 5 ms between them.
    #[tokio::test(start_paused = true)]
    async fn round_trip_from_the_transports_instants() {
        struct Stamped {
            sent: Instant,
            read: Instant,
            replied: bool,
        }
        impl Transport for Stamped {
            const DATAGRAMS: bool = true;
            async fn connect(&mut self, _until: Instant) -> Result<(), NetError> {
                Ok(())
            }
            async fn send(&mut self, _bytes: &[u8], _until: Instant) -> Result<Sent, NetError> {
                Ok(Some(self.sent))
            }
            async fn recv(&mut self, _until: Instant) -> Result<Recv, NetError> {
                if std::mem::replace(&mut self.replied, true) {
                    return Ok(Recv::Timeout);
                }
                Ok(Recv::Bytes(b"reply".to_vec(), Some(self.read)))
            }
        }
        let start = Instant::now();
        let mut link = Stamped {
            sent: start + Duration::from_millis(2),
            read: start + Duration::from_millis(7),
            replied: false,
        };
        let deadline = start + Duration::from_secs(3);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let mut t = Transcript::default();
        let s = drive(&mut x, &mut link, deadline, Pacing::default(), Some(&mut t))
            .await
            .unwrap();
        assert_eq!(s.online, 5);
        assert_eq!(s.latency, Duration::from_millis(5));
        assert_eq!(Instant::now(), start, "the clock did not move");
        // The transcript shows the same instants.
        assert_eq!(t.0[0].0, start + Duration::from_millis(2));
        assert_eq!(t.0[1].0, start + Duration::from_millis(7));
    }

    /// A silent server: the wait ends, and the failure is the last event.
    #[tokio::test(start_paused = true)]
    async fn observer_sees_timeout_and_failure() {
        let mut fake = Fake::<true>::new(|_, _, _| vec![]);
        let deadline = Instant::now() + Duration::from_millis(400);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let mut t = Transcript::default();
        let e = drive(&mut x, &mut fake, deadline, Pacing::default(), Some(&mut t))
            .await
            .unwrap_err();
        assert_eq!(e.reason(), crate::status::Reason::Timeout);
        let lines: Vec<&str> = t.0.iter().map(|(_, l)| l.as_str()).collect();
        // 400 ms is below RESEND_AFTER_MIN: no resend.
        assert_eq!(
            lines,
            ["sent echo [114, 101, 113]", "timed out", "failed timeout"]
        );
    }

    /// Only answers to something else: `mismatch`, not `timeout`.
    #[tokio::test(start_paused = true)]
    async fn foreign_only_is_mismatch() {
        let mut fake = Fake::<true>::new(|_, _, _| vec![Answer::Bytes(b"xx".to_vec())]);
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let e = drive(&mut x, &mut fake, deadline, Pacing::default(), None)
            .await
            .unwrap_err();
        assert!(matches!(e, Error::Unanswered { count: 2 }), "{e:?}");
    }

    /// A minimum gap spaces resends and requests: no two copies closer than the gap.
    #[tokio::test(start_paused = true)]
    async fn min_gap_respected() {
        let mut fake = Fake::<true>::new(|_, _, _| vec![]);
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let mut t = Transcript::default();
        let pacing = Pacing {
            resends: 4,
            min_gap: Duration::from_millis(1500),
        };
        drive(&mut x, &mut fake, deadline, pacing, Some(&mut t))
            .await
            .unwrap_err();
        assert_eq!(fake.sent.len(), 4);
        let sends: Vec<Instant> =
            t.0.iter()
                .filter(|(_, l)| l.starts_with("sent") || l.starts_with("resent"))
                .map(|(at, _)| *at)
                .collect();
        assert!(sends.windows(2).all(|w| w[1] - w[0] >= pacing.min_gap));
    }

    /// Logs in with a secret, then asks once: a toy of every exchange that carries one.
    struct Login {
        step: u8,
        deadline: std::time::Instant,
    }

    impl Exchange for Login {
        fn poll(&mut self, _now: std::time::Instant, out: &mut Vec<u8>) -> Step {
            self.step += 1;
            match self.step {
                1 => {
                    out.clear();
                    out.extend_from_slice(b"login hunter2");
                    Step::SendSecret("login")
                }
                2 => {
                    out.clear();
                    out.extend_from_slice(b"req");
                    Step::Send("request")
                }
                3 => Step::Wait(self.deadline),
                _ => Step::Done(Status::default()),
            }
        }

        fn handle(&mut self, _now: std::time::Instant, _input: Input<'_>) {}
    }

    /// A request marked secret goes out whole, but the observer sees only its label and
    /// length, and it is never resent, even over UDP.
    #[tokio::test(start_paused = true)]
    async fn secret_requests_are_redacted_and_not_resent() {
        let mut fake = Fake::<true>::new(|_, _, _| vec![]);
        let deadline = Instant::now() + Duration::from_secs(3);
        let mut x = Login {
            step: 0,
            deadline: deadline.into_std(),
        };
        let mut t = Transcript::default();
        drive(&mut x, &mut fake, deadline, Pacing::default(), Some(&mut t))
            .await
            .unwrap();
        let sent: Vec<&[u8]> = fake.sent.iter().map(|(_, b)| b.as_slice()).collect();
        assert_eq!(sent[0], b"login hunter2");
        assert!(sent[1..].iter().all(|b| *b == b"req"), "{sent:?}");
        let lines: Vec<&str> = t.0.iter().map(|(_, l)| l.as_str()).collect();
        assert_eq!(lines[0], "sent login <redacted 13 bytes>");
        assert!(
            lines.iter().all(|l| !l.contains("104, 117, 110")),
            "{lines:?}"
        );
    }

    /// Sends "first" ahead of "req" (then, with `alone`, "late" ahead of nothing) and waits.
    struct Ahead {
        step: u8,
        alone: bool,
        deadline: std::time::Instant,
    }

    impl Exchange for Ahead {
        fn poll(&mut self, now: std::time::Instant, out: &mut Vec<u8>) -> Step {
            self.step += 1;
            out.clear();
            match self.step {
                1 => {
                    out.extend_from_slice(b"first");
                    Step::SendAhead("ahead")
                }
                2 => {
                    out.extend_from_slice(b"req");
                    Step::Send("request")
                }
                3 if self.alone => {
                    out.extend_from_slice(b"late");
                    Step::SendAhead("late")
                }
                _ if now < self.deadline => {
                    // `out` must keep the request the driver resends.
                    out.extend_from_slice(b"req");
                    Step::Wait(self.deadline)
                }
                _ => Step::Done(Status::default()),
            }
        }

        fn handle(&mut self, _now: std::time::Instant, _input: Input<'_>) {}
    }

    /// A request sent ahead goes out once, just before the next request, and is shown to the
    /// observer; only the next request is resent. One with no request after it goes out
    /// alone before the wait.
    #[tokio::test(start_paused = true)]
    async fn sent_ahead_once_before_the_request() {
        for alone in [false, true] {
            let mut fake = Fake::<true>::new(|_, _, _| vec![]);
            let deadline = Instant::now() + Duration::from_secs(3);
            let mut x = Ahead {
                step: 0,
                alone,
                deadline: deadline.into_std(),
            };
            let mut t = Transcript::default();
            drive(&mut x, &mut fake, deadline, Pacing::default(), Some(&mut t))
                .await
                .unwrap();
            let sent: Vec<&[u8]> = fake.sent.iter().map(|(_, b)| b.as_slice()).collect();
            let lines: Vec<&str> = t.0.iter().map(|(_, l)| l.as_str()).collect();
            let (late_sent, late_line): (&[&[u8]], &[&str]) = if alone {
                (&[b"late"], &["sent late [108, 97, 116, 101]"])
            } else {
                (&[], &[])
            };
            let want_sent = [&[&b"first"[..], b"req"], late_sent, &[b"req", b"req"]].concat();
            assert_eq!(sent, want_sent, "alone {alone}");
            let want_lines = [
                &[
                    "sent ahead [102, 105, 114, 115, 116]",
                    "sent request [114, 101, 113]",
                ][..],
                late_line,
                &[
                    "resent [114, 101, 113]",
                    "resent [114, 101, 113]",
                    "timed out",
                    "done 0",
                ],
            ]
            .concat();
            assert_eq!(lines, want_lines, "alone {alone}");
        }
    }

    async fn server() -> (UdpSocket, SocketAddr) {
        let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let a = s.local_addr().unwrap();
        (s, a)
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    /// Receives datagrams until `quiet` passes without one: what arrived and when.
    async fn collect(s: &UdpSocket, quiet: Duration) -> Vec<(Vec<u8>, Instant, SocketAddr)> {
        let mut got = Vec::new();
        let mut buf = [0u8; 64];
        while let Ok(Ok((n, from))) = tokio::time::timeout(quiet, s.recv_from(&mut buf)).await {
            got.push((buf[..n].to_vec(), Instant::now(), from));
        }
        got
    }

    /// A request whose first copy is lost is sent again, no sooner than RESEND_AFTER_MIN, and
    /// its reply arrives; the round trip counts from the copy that was answered. Both on a
    /// socket of its own and on the shared one. (Moved here from `net::udp` with resending.)
    #[tokio::test]
    async fn lost_request_is_resent() {
        let mux = UdpMux::new();
        for shared in [false, true] {
            let (server, addr) = server().await;
            let mut chan = UdpChannel::open(addr, shared.then_some(&mux))
                .await
                .unwrap();
            assert_eq!(chan.is_shared(), shared);
            let answer_second = async {
                let mut buf = [0u8; 64];
                let (n, _) = server.recv_from(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], b"req");
                let first = Instant::now();
                let (n, from) = server.recv_from(&mut buf).await.unwrap();
                assert_eq!(&buf[..n], b"req");
                server.send_to(b"reply", from).await.unwrap();
                first.elapsed()
            };
            let ask = async {
                let deadline = soon(2000);
                let mut x = OneShot::new(Echo, deadline.into_std());
                let mut t = Transcript::default();
                let s = drive(&mut x, &mut chan, deadline, Pacing::default(), Some(&mut t))
                    .await
                    .unwrap();
                assert_eq!(s.online, 5);
                let sends: Vec<Instant> =
                    t.0.iter()
                        .filter(|(_, l)| l.starts_with("sent") || l.starts_with("resent"))
                        .map(|(at, _)| *at)
                        .collect();
                assert!(s.latency < sends[1].elapsed());
                sends[1] - sends[0]
            };
            let (gap_seen, resent_after) = tokio::join!(answer_second, ask);
            assert!(
                gap_seen >= RESEND_AFTER_MIN - Duration::from_millis(5),
                "{gap_seen:?}"
            );
            assert!(resent_after >= RESEND_AFTER_MIN, "{resent_after:?}");
        }
    }

    /// A silent server gets the request 1 + RESENDS times within a long deadline, spread
    /// over it, and only once within a deadline shorter than RESEND_AFTER_MIN. (Moved here
    /// from `net::udp` with resending.)
    #[tokio::test]
    async fn silent_server_gets_bounded_resends() {
        let (server, addr) = server().await;
        let mut chan = UdpChannel::connect(addr).await.unwrap();
        let started = Instant::now();
        let deadline = soon(1800);
        let mut x = OneShot::new(Echo, deadline.into_std());
        let (result, got) = tokio::join!(
            drive(&mut x, &mut chan, deadline, Pacing::default(), None),
            collect(&server, Duration::from_millis(1000))
        );
        assert!(matches!(result, Err(Error::Net(NetError::Timeout))));
        assert!(started.elapsed() >= Duration::from_millis(1790));
        assert_eq!(got.len(), 1 + RESENDS as usize);
        assert!(got.iter().all(|(d, _, _)| d == b"req"));
        assert!(got[1].1 - got[0].1 >= RESEND_AFTER_MIN - Duration::from_millis(5));

        let deadline = soon(300);
        let mut x = OneShot::new(Echo, deadline.into_std());
        assert!(matches!(
            drive(&mut x, &mut chan, deadline, Pacing::default(), None).await,
            Err(Error::Net(NetError::Timeout))
        ));
        let got = collect(&server, Duration::from_millis(100)).await;
        assert_eq!(got.len(), 1, "{got:?}");
    }
}
