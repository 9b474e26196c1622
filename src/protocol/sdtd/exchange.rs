//! The 7 Days to Die telnet dialogue over one TCP connection: answer the password prompt
//! (the password goes out as a secret, and only when the console asks for it: sent
//! unasked it would run as a command and be echoed into the game's log), run `mem`, read
//! the first `mem` line among the log lines that stream by (at most [`MAX_LINES`] of them),
//! then `exit`.

use std::time::{Duration, Instant};

use super::{classify, parse_mem, Line, EXIT, MEM};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// Lines a poll reads after logging in before giving up on the `mem` line.
pub const MAX_LINES: u32 = 256;
/// The longest line read; the game's are well under 1 KiB.
pub const MAX_LINE: usize = 16 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    /// Waiting for the prompt (or a banner: no password asked).
    Prompted,
    Password,
    /// The password went out; waiting for `Logon successful.`.
    Authing,
    Mem,
    /// `mem` went out; waiting for its line.
    Reading,
    Exit,
    Over,
}

/// One health poll over the telnet console.
pub struct SdtdTelnet {
    password: Secret,
    params: Params,
    deadline: Instant,
    state: State,
    /// The unterminated line so far.
    line: Vec<u8>,
    /// Bytes received, against `Limits::max_reply_bytes`.
    total: usize,
    lines: u32,
    result: Option<Status>,
    error: Option<Error>,
}

impl std::fmt::Debug for SdtdTelnet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SdtdTelnet")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl SdtdTelnet {
    pub fn new(password: Secret, params: Params, deadline: Instant) -> SdtdTelnet {
        SdtdTelnet {
            password,
            params,
            deadline,
            state: State::Connect,
            line: Vec::new(),
            total: 0,
            lines: 0,
            result: None,
            error: None,
        }
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.state = State::Over;
    }

    /// One whole line (or the prompt, which ends without a newline).
    fn line(&mut self, text: &str, rtt: Duration) {
        match (self.state, classify(text)) {
            (State::Prompted, Line::Prompt) => self.state = State::Password,
            (State::Prompted | State::Authing, Line::LoggedIn) => self.state = State::Mem,
            (State::Authing, Line::Incorrect) => self.fail(Error::AuthRefused {
                what: "7 Days to Die telnet password",
            }),
            (State::Reading, _) => {
                if let Some(health) = parse_mem(text) {
                    self.result = Some(Status {
                        latency: rtt,
                        health: Some(Box::new(health)),
                        ..Status::default()
                    });
                    self.state = State::Exit;
                    return;
                }
                self.lines += 1;
                if self.lines > MAX_LINES {
                    self.fail(Error::Unanswered { count: self.lines });
                }
            }
            _ => {}
        }
    }

    fn received(&mut self, bytes: &[u8], rtt: Duration) {
        self.total += bytes.len();
        let cap = self.params.limits.reply_cap();
        if self.total > cap {
            return self.fail(Error::from(DecodeError::TooLarge {
                what: "telnet console bytes",
                value: self.total as u64,
                limit: cap as u64,
            }));
        }
        for &b in bytes {
            if matches!(self.state, State::Over | State::Exit) {
                return;
            }
            if b == b'\n' {
                let text = String::from_utf8_lossy(&self.line).into_owned();
                self.line.clear();
                self.line(text.trim_end_matches('\r'), rtt);
                continue;
            }
            if self.line.len() >= MAX_LINE {
                return self.fail(Error::from(DecodeError::TooLarge {
                    what: "telnet console line",
                    value: self.line.len() as u64 + 1,
                    limit: MAX_LINE as u64,
                }));
            }
            self.line.push(b);
        }
        // The prompt ends without a newline.
        if self.state == State::Prompted || self.state == State::Authing {
            let text = String::from_utf8_lossy(&self.line).into_owned();
            if matches!(classify(&text), Line::Prompt | Line::Incorrect) {
                self.line.clear();
                self.line(&text, rtt);
            }
        }
    }
}

impl Exchange for SdtdTelnet {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.state {
                State::Connect => {
                    self.state = State::Prompted;
                    return Step::Connect(self.deadline);
                }
                State::Prompted | State::Authing | State::Reading if now >= self.deadline => {
                    self.fail(Error::Net(LinkError::Timeout));
                }
                State::Prompted | State::Authing | State::Reading => {
                    return Step::Wait(self.deadline)
                }
                State::Password => {
                    out.clear();
                    out.extend_from_slice(self.password.expose().as_bytes());
                    out.extend_from_slice(b"\r\n");
                    self.state = State::Authing;
                    return Step::SendSecret("telnet password");
                }
                State::Mem => {
                    out.clear();
                    out.extend_from_slice(MEM.as_bytes());
                    out.extend_from_slice(b"\r\n");
                    self.state = State::Reading;
                    return Step::Send("telnet mem");
                }
                State::Exit => {
                    out.clear();
                    out.extend_from_slice(EXIT.as_bytes());
                    out.extend_from_slice(b"\r\n");
                    self.state = State::Over;
                    return Step::Send("telnet exit");
                }
                State::Over => {
                    if let Some(s) = self.result.take() {
                        return Step::Done(s);
                    }
                    let e = self.error.take().unwrap_or(Error::Net(LinkError::Timeout));
                    return Step::Failed(e);
                }
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if matches!(self.state, State::Over | State::Exit) {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => self.received(bytes, rtt),
            Input::Closed => {
                let e = match self.state {
                    // 7 Days to Die closes the connection after too many wrong passwords.
                    State::Authing => Error::AuthRefused {
                        what: "7 Days to Die telnet password",
                    },
                    _ => Error::Net(LinkError::Closed {
                        received: self.total,
                    }),
                };
                self.fail(e)
            }
            Input::Failed(e) => self.fail(Error::Net(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::exchange::dialogue::{converse, ends, Sent};
    use crate::protocol::limits::Limits;

    const BANNER: &str = "Logon successful.\r\n\r\n\r\n\r\n*** Connected with 7DTD server.\r\n\
        *** Server version: V 1.0 (b333) Compatibility Version: V 1.0\r\n\r\n\
        Press 'help' to get a list of all commands. Press 'exit' to end session.\r\n\r\n";
    const MEM_LINE: &str = "Time: 90.00m FPS: 35.12 Heap: 512.0MB Max: 1024.0MB Chunks: 123 \
        CGO: 45 Ply: 3 Zom: 12 Ent: 20 (45) Items: 7 CO: 2 RSS: 1234.5MB\r\n";

    fn x() -> SdtdTelnet {
        SdtdTelnet::new(
            Secret::new("pw"),
            Params {
                players: false,
                rules: false,
                detail: false,
                limits: Limits::default(),
                encoding: encoding_rs::WINDOWS_1252,
            },
            Instant::now() + Duration::from_secs(5),
        )
    }

    /// Runs the dialogue: `greeting` at connect, then after each of our sends the next
    /// answer, fed one byte at a time. Returns the labels and bytes sent, and the result.
    fn run(
        x: &mut SdtdTelnet,
        greeting: &str,
        answers: &[&str],
        close: bool,
    ) -> (Sent, Result<Status, Error>) {
        let answers: Vec<&[u8]> = answers.iter().map(|a| a.as_bytes()).collect();
        let rtt = Duration::from_millis(2);
        converse(x, greeting.as_bytes(), &answers, close, rtt)
    }

    /// Prompt, password, banner, log lines, the `mem` line, `exit`: byte for byte.
    #[test]
    fn mem_after_login() {
        let log = format!("2026-11-29T10:00:00 5400.0 INF Chunk saved\r\n{MEM_LINE}");
        let (sent, r) = run(&mut x(), "Please enter password:", &[BANNER, &log], false);
        let s = r.unwrap();
        let labels: Vec<_> = sent.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(labels, ["telnet password", "telnet mem", "telnet exit"]);
        let bytes: Vec<_> = sent.iter().map(|(_, b)| b.as_slice()).collect();
        assert_eq!(bytes, [&b"pw\r\n"[..], b"mem\r\n", b"exit\r\n"]);
        let h = s.health.unwrap();
        assert_eq!(h.frame_rate_hertz, Some(35.12));
        assert_eq!(h.zombies, Some(12.0));
        assert_eq!(h.uptime_seconds, Some(5400.0));
        assert_eq!(s.latency, Duration::from_millis(2));
    }

    /// A console without a password: no password is sent (it would run as a command).
    #[test]
    fn no_password_asked() {
        let (sent, r) = run(&mut x(), BANNER, &[MEM_LINE], false);
        assert!(r.is_ok());
        assert_eq!(sent[0].0, "telnet mem");
        assert!(sent.iter().all(|(_, b)| b != b"pw\r\n"));
    }

    /// Wrong password (refused, or closed), silence, endless log lines, an endless line,
    /// a stream that ends.
    #[test]
    fn hostile() {
        let prompt = "Please enter password:";
        let wrong = "Password incorrect, please enter password:";
        let (_, r) = run(&mut x(), prompt, &[wrong], false);
        assert!(matches!(r, Err(Error::AuthRefused { .. })), "{r:?}");
        let (_, r) = run(&mut x(), prompt, &[], true);
        assert!(matches!(r, Err(Error::AuthRefused { .. })), "{r:?}");
        let (_, r) = run(&mut x(), prompt, &[BANNER], false);
        assert!(matches!(r, Err(Error::Net(LinkError::Timeout))), "{r:?}");
        let flood = "INF noise\n".repeat(MAX_LINES as usize + 1);
        let (_, r) = run(&mut x(), prompt, &[BANNER, &flood], false);
        assert!(matches!(r, Err(Error::Unanswered { .. })), "{r:?}");
        let long = "x".repeat(MAX_LINE + 1);
        let (_, r) = run(&mut x(), prompt, &[BANNER, &long], false);
        assert!(
            matches!(
                r,
                Err(Error::Net(LinkError::Decode(DecodeError::TooLarge { .. })))
            ),
            "{r:?}"
        );
        let (_, r) = run(&mut x(), prompt, &[BANNER, "Time: 1m FPS"], true);
        assert!(
            matches!(r, Err(Error::Net(LinkError::Closed { .. }))),
            "{r:?}"
        );
        let (_, r) = run(&mut x(), "", &[], false);
        assert!(matches!(r, Err(Error::Net(LinkError::Timeout))), "{r:?}");
    }

    proptest::proptest! {
        /// Whatever the console sends, in whatever pieces, the dialogue ends without a panic.
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..400), piece in 1usize..50) {
            let mut x = x();
            let t0 = Instant::now();
            let mut out = Vec::new();
            let _ = x.poll(t0, &mut out);
            for b in bytes.chunks(piece) {
                x.handle(t0, Input::Received { bytes: b, rtt: Duration::ZERO });
                let _ = x.poll(t0, &mut out);
            }
            x.handle(t0, Input::Closed);
            proptest::prop_assert!(ends(&mut x, t0, &mut out, 4));
        }
    }
}
