//! The WebRCON dialogue over one TCP connection: the WebSocket upgrade (the password in its
//! path, so it goes out as a secret), one `serverinfo` command, its reply picked out by
//! identifier among whatever else the console sends (log lines, chat, replies to other
//! clients: at most [`MAX_FOREIGN`] of them), then a close frame.
//!
//! A wrong password: Facepunch's server completes the upgrade and closes the socket at once
//! (a close frame, or the connection's end, before any message); a proxy in front may answer
//! the upgrade with 401 or 403 instead. Either is [`Error::AuthRefused`].
//!
//! Pings are not answered: the poll lasts one round trip, far less than any server's ping
//! timeout.

use std::time::{Duration, Instant};

use super::websocket::{self, decode_frame, decode_upgrade, Frame, Kind, Upgrade};
use super::{parse_reply, parse_serverinfo, request, SERVERINFO};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// Messages not answering our command that a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 64;

/// The randomness one dialogue needs, drawn by the caller: the upgrade's key and the masks
/// of the two frames we send.
#[derive(Debug, Clone, Copy)]
pub struct Nonces {
    pub key: [u8; 16],
    pub command_mask: [u8; 4],
    pub close_mask: [u8; 4],
    /// The command's identifier (positive).
    pub identifier: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Upgrade,
    /// The upgrade went out; waiting for its answer.
    Upgrading,
    Command,
    /// The command went out; waiting for its reply.
    Replying,
    /// The reply came: send a close frame, then finish.
    Close,
    Over,
}

/// One health poll over WebRCON.
pub struct WebRcon {
    host: String,
    password: Secret,
    nonces: Nonces,
    params: Params,
    deadline: Instant,
    state: State,
    key: String,
    buf: StreamBuf,
    /// The message being gathered from its fragments.
    message: Vec<u8>,
    /// Bytes of every message so far, against `Limits::max_reply_bytes`.
    total: usize,
    foreign: u32,
    latency: Duration,
    result: Option<Status>,
    error: Option<Error>,
}

impl std::fmt::Debug for WebRcon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebRcon")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl WebRcon {
    /// `host`: the `Host` header's value (the console's address).
    pub fn new(
        host: String,
        password: Secret,
        nonces: Nonces,
        params: Params,
        deadline: Instant,
    ) -> WebRcon {
        WebRcon {
            host,
            password,
            nonces,
            params,
            deadline,
            state: State::Connect,
            key: String::new(),
            buf: StreamBuf::new(
                params
                    .limits
                    .reply_cap()
                    .saturating_add(websocket::MAX_HEAD),
            ),
            message: Vec::new(),
            total: 0,
            foreign: 0,
            latency: Duration::ZERO,
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

    fn refused() -> Error {
        Error::AuthRefused {
            what: "WebRCON password",
        }
    }

    /// Decodes whatever is buffered, as far as it goes.
    fn drain(&mut self, rtt: Duration) {
        loop {
            match self.state {
                State::Upgrading => {
                    let key = std::mem::take(&mut self.key);
                    let got = self.buf.frame(|b| decode_upgrade(b, &key));
                    self.key = key;
                    match got {
                        Ok(Some(Upgrade::Accepted)) => self.state = State::Command,
                        Ok(Some(Upgrade::Status(401 | 403))) => return self.fail(Self::refused()),
                        Ok(Some(Upgrade::Status(status))) => {
                            return self.fail(Error::HttpStatus { status })
                        }
                        Ok(None) => return,
                        Err(e) => return self.fail(Error::Net(e)),
                    }
                }
                State::Replying | State::Command => {
                    let cap = self.params.limits.reply_cap();
                    match self.buf.frame(|b| decode_frame(b, cap)) {
                        Ok(Some(f)) => self.frame(f, rtt),
                        Ok(None) => return,
                        Err(e) => return self.fail(Error::Net(e)),
                    }
                }
                _ => return,
            }
        }
    }

    fn frame(&mut self, f: Frame, rtt: Duration) {
        match f.kind {
            Kind::Ping | Kind::Pong => return,
            // Closed before answering: how Facepunch's server turns away a wrong password
            // (it upgrades, then closes at once).
            Kind::Close => return self.fail(Self::refused()),
            Kind::Text | Kind::Binary | Kind::Continue => {}
        }
        self.total += f.payload.len();
        let cap = self.params.limits.reply_cap();
        if self.total > cap {
            return self.fail(Error::from(DecodeError::TooLarge {
                what: "WebRCON message bytes",
                value: self.total as u64,
                limit: cap as u64,
            }));
        }
        self.message.extend_from_slice(&f.payload);
        if !f.fin {
            return;
        }
        let message = std::mem::take(&mut self.message);
        let ours = match parse_reply(&message) {
            Ok(r) if r.identifier == Some(i64::from(self.nonces.identifier)) => Some(r),
            _ => None,
        };
        let Some(reply) = ours.filter(|_| self.state == State::Replying) else {
            self.foreign += 1;
            if self.foreign > MAX_FOREIGN {
                self.fail(Error::Unanswered {
                    count: self.foreign,
                });
            }
            return;
        };
        self.latency = rtt;
        match parse_serverinfo(&reply.message) {
            Ok(info) => {
                self.result = Some(Status {
                    latency: self.latency,
                    online: info.players.unwrap_or(0),
                    max: info.max_players.unwrap_or(0),
                    queued: info.queued,
                    health: Some(Box::new(info.health)),
                    ..Status::default()
                });
                self.state = State::Close;
            }
            Err(e) => self.fail(Error::from(e)),
        }
    }
}

impl Exchange for WebRcon {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.state {
                State::Connect => {
                    self.state = State::Upgrade;
                    return Step::Connect(self.deadline);
                }
                State::Upgrade => {
                    out.clear();
                    let (req, key) = websocket::upgrade_request(
                        &self.host,
                        self.password.expose(),
                        self.nonces.key,
                    );
                    *out = req;
                    self.key = key;
                    self.state = State::Upgrading;
                    return Step::SendSecret("WebSocket upgrade (the password is its path)");
                }
                State::Command => {
                    out.clear();
                    let text = request(self.nonces.identifier, SERVERINFO);
                    websocket::encode_text(&text, self.nonces.command_mask, out);
                    self.state = State::Replying;
                    return Step::Send("WebRCON serverinfo");
                }
                // At the deadline the wait would end at once, again and again: the poll is
                // over (as the RCON dialogue's).
                State::Upgrading | State::Replying if now >= self.deadline => {
                    self.fail(Error::Net(LinkError::Timeout));
                }
                State::Upgrading | State::Replying => return Step::Wait(self.deadline),
                State::Close => {
                    out.clear();
                    websocket::encode_close(self.nonces.close_mask, out);
                    self.state = State::Over;
                    return Step::Send("WebSocket close");
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
        if self.state == State::Over {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                self.drain(rtt);
            }
            Input::Closed => {
                let e = match self.state {
                    // Upgraded, then closed without a word: the wrong password.
                    State::Replying | State::Command if self.total == 0 => Self::refused(),
                    _ => Error::Net(self.buf.closed()),
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
    use crate::protocol::exchange::dialogue::{converse, ends};
    use crate::protocol::limits::Limits;

    const NONCES: Nonces = Nonces {
        key: *b"the sample nonce",
        command_mask: [1, 2, 3, 4],
        close_mask: [5, 6, 7, 8],
        identifier: 42,
    };
    const ACCEPT: &[u8] = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
        Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";

    fn params() -> Params {
        Params {
            players: false,
            rules: false,
            detail: false,
            limits: Limits::default(),
            encoding: encoding_rs::WINDOWS_1252,
        }
    }

    fn text_frame(text: &str) -> Vec<u8> {
        let mut f = vec![0x81];
        if text.len() < 126 {
            f.push(text.len() as u8);
        } else {
            f.push(126);
            f.extend_from_slice(&(text.len() as u16).to_be_bytes());
        }
        f.extend_from_slice(text.as_bytes());
        f
    }

    fn reply(id: i64, message: &str) -> Vec<u8> {
        let json = serde_json::json!({"Message": message, "Identifier": id, "Type": "Generic", "Stacktrace": ""});
        text_frame(&json.to_string())
    }

    /// Runs the dialogue with the server's bytes (fed one byte at a time) after each of our
    /// sends; returns what we sent (labels) and the result.
    fn run(
        x: &mut WebRcon,
        answers: &[Vec<u8>],
        close: bool,
    ) -> (Vec<String>, Result<Status, Error>) {
        let answers: Vec<&[u8]> = answers.iter().map(Vec::as_slice).collect();
        let (sent, r) = converse(x, b"", &answers, close, Duration::from_millis(3));
        (sent.into_iter().map(|(label, _)| label).collect(), r)
    }

    fn webrcon() -> WebRcon {
        WebRcon::new(
            "127.0.0.1:28016".into(),
            Secret::new("pw"),
            NONCES,
            params(),
            Instant::now() + Duration::from_secs(5),
        )
    }

    /// Upgrade, a chat broadcast, the reply (all fed byte by byte), a close frame.
    #[test]
    fn serverinfo_among_broadcasts() {
        let mut x = webrcon();
        let mut msgs = reply(-1, "[CHAT] someone: hi");
        msgs.extend(reply(42, r#"{"Framerate":60.0,"EntityCount":1000,"Players":3,"MaxPlayers":50,"Queued":1,"Joining":2}"#));
        let (sent, r) = run(&mut x, &[ACCEPT.to_vec(), msgs], false);
        let s = r.unwrap();
        assert_eq!(
            sent,
            [
                "WebSocket upgrade (the password is its path)",
                "WebRCON serverinfo",
                "WebSocket close"
            ]
        );
        let h = s.health.unwrap();
        assert_eq!(h.frame_rate_hertz, Some(60.0));
        assert_eq!(h.entities, Some(1000.0));
        assert_eq!(h.players_joining, Some(2.0));
        assert_eq!((s.online, s.max, s.queued), (3, 50, Some(1)));
        assert_eq!(s.latency, Duration::from_millis(3));
    }

    /// The bytes we send: the upgrade (with the password) and the masked command.
    #[test]
    fn sent_bytes() {
        let mut x = webrcon();
        let t0 = Instant::now();
        let mut out = Vec::new();
        assert!(matches!(x.poll(t0, &mut out), Step::Connect(_)));
        assert!(matches!(x.poll(t0, &mut out), Step::SendSecret(_)));
        assert!(out.starts_with(b"GET /pw HTTP/1.1\r\n"));
        x.handle(
            t0,
            Input::Received {
                bytes: ACCEPT,
                rtt: Duration::ZERO,
            },
        );
        assert!(matches!(x.poll(t0, &mut out), Step::Send(_)));
        let text = request(42, SERVERINFO);
        let mut expected = vec![0x81, 0x80 | text.len() as u8, 1, 2, 3, 4];
        expected.extend(
            text.bytes()
                .enumerate()
                .map(|(i, b)| b ^ [1, 2, 3, 4][i % 4]),
        );
        assert_eq!(out, expected);
    }

    /// Wrong password: upgraded then closed (a close frame, or the stream's end), or 401.
    #[test]
    fn wrong_password() {
        let mut x = webrcon();
        let (_, r) = run(
            &mut x,
            &[ACCEPT.to_vec(), vec![0x88, 0x02, 0x03, 0xe8]],
            false,
        );
        assert!(matches!(r, Err(Error::AuthRefused { .. })), "{r:?}");
        let mut x = webrcon();
        let (_, r) = run(&mut x, &[ACCEPT.to_vec()], true);
        assert!(matches!(r, Err(Error::AuthRefused { .. })), "{r:?}");
        let mut x = webrcon();
        let (_, r) = run(
            &mut x,
            &[b"HTTP/1.1 401 Unauthorized\r\n\r\n".to_vec()],
            false,
        );
        assert!(matches!(r, Err(Error::AuthRefused { .. })), "{r:?}");
        let mut x = webrcon();
        let (_, r) = run(&mut x, &[b"HTTP/1.1 404 Not Found\r\n\r\n".to_vec()], false);
        assert!(matches!(r, Err(Error::HttpStatus { status: 404 })), "{r:?}");
    }

    /// A 2^31-1 frame length, a reply that never ends, endless broadcasts, a message that is
    /// not serverinfo, a stream that ends mid-reply.
    #[test]
    fn hostile() {
        let mut huge = vec![0x81, 127];
        huge.extend_from_slice(&(i32::MAX as u64).to_be_bytes());
        let (_, r) = run(&mut webrcon(), &[ACCEPT.to_vec(), huge], false);
        assert!(
            matches!(
                r,
                Err(Error::Net(LinkError::Decode(DecodeError::TooLarge { .. })))
            ),
            "{r:?}"
        );
        let (_, r) = run(
            &mut webrcon(),
            &[ACCEPT.to_vec(), vec![0x01, 0x03, b'a', b'b', b'c']],
            false,
        );
        assert!(matches!(r, Err(Error::Net(LinkError::Timeout))), "{r:?}");
        let mut flood = Vec::new();
        for _ in 0..=MAX_FOREIGN {
            flood.extend(reply(0, "log line"));
        }
        let (_, r) = run(&mut webrcon(), &[ACCEPT.to_vec(), flood], false);
        assert!(matches!(r, Err(Error::Unanswered { .. })), "{r:?}");
        let (_, r) = run(
            &mut webrcon(),
            &[ACCEPT.to_vec(), reply(42, "Command not found")],
            false,
        );
        assert!(matches!(r, Err(Error::Net(LinkError::Decode(_)))), "{r:?}");
        let mut cut = reply(42, "{}");
        cut.truncate(5);
        let (_, r) = run(&mut webrcon(), &[ACCEPT.to_vec(), reply(0, "x"), cut], true);
        assert!(
            matches!(r, Err(Error::Net(LinkError::Closed { .. }))),
            "{r:?}"
        );
    }

    proptest::proptest! {
        /// Whatever the server sends after the upgrade, in whatever pieces, the dialogue
        /// ends in a result or an error without panicking.
        #[test]
        fn arbitrary_replies(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300), piece in 1usize..40) {
            let mut x = webrcon();
            let t0 = Instant::now();
            let mut out = Vec::new();
            let _ = x.poll(t0, &mut out);
            let _ = x.poll(t0, &mut out);
            x.handle(t0, Input::Received { bytes: ACCEPT, rtt: Duration::ZERO });
            let _ = x.poll(t0, &mut out);
            for b in bytes.chunks(piece) {
                x.handle(t0, Input::Received { bytes: b, rtt: Duration::ZERO });
            }
            x.handle(t0, Input::Closed);
            proptest::prop_assert!(ends(&mut x, t0, &mut out, 3), "the dialogue did not end");
        }
    }
}
