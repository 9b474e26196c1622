//! The Source RCON dialogue over one TCP connection: log in, then run a script of commands
//! one at a time, each reply joined from however many packets it took.
//!
//! # Where a reply ends
//! RCON has no end-of-reply mark, and real servers differ (docs/protocols/factorio.md):
//! - SRCDS answers an empty RESPONSE_VALUE before the login answer, and answers an empty
//!   command with an empty reply of that command's id, after everything it sent before;
//! - vanilla Minecraft cuts long replies into 4096-byte packets without newlines (so bodies
//!   are joined as they are), and closes the connection when one read holds two packets: the
//!   marker therefore goes out in its own write, and only once the command's first packet has
//!   come back (the server has read the command by then);
//! - Factorio never answers an empty command, and sends each reply in one packet.
//!
//! So once a command's first packet has come, an empty command (the marker) follows with an
//! id of its own; a packet with the marker's id ends the reply (SRCDS, Minecraft), and so
//! does [`QUIET`] without a packet (Factorio), or the deadline. Packets of ids we did not
//! send (interleaved output) are skipped, at most [`MAX_FOREIGN`] of them.

use std::time::{Duration, Instant};

use super::{decode, encode, Packet, AUTH_REFUSED_ID, TYPE_AUTH, TYPE_AUTH_RESPONSE, TYPE_EXEC};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// How long a reply may pause before it counts as complete when the server does not answer
/// the marker (Factorio): its packets come back to back, far closer than this.
pub const QUIET: Duration = Duration::from_millis(300);
/// Packets of ids we did not send that a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 64;

/// What to ask after the login, and what the answers mean: one per protocol.
pub trait Script: Send + 'static {
    /// The next command given the replies so far (in order); `None`: done.
    fn next_command(&mut self, replies: &[String]) -> Option<String>;
    /// The poll's result from every reply; `latency` is the first command's round trip.
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error>;
}

/// A script chosen per target (the health query: each game's console its own commands).
impl Script for Box<dyn Script> {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        (**self).next_command(replies)
    }
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        (**self).finish(replies, latency)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Login,
    /// The login went out; waiting for its answer.
    Authing,
    /// Logged in: send the script's next command, or finish.
    Next,
    /// The command went out; waiting for its first packet.
    First,
    /// Its first packet came: send the marker.
    Marker,
    /// Collecting the reply until the marker's answer or a quiet pause.
    Collecting,
    Over,
}

/// One poll's RCON dialogue.
pub struct Rcon<S: Script> {
    script: S,
    password: Secret,
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    auth_id: i32,
    command_id: i32,
    marker_id: i32,
    /// The reply being collected, joined as it came.
    reply: Vec<u8>,
    replies: Vec<String>,
    /// Body bytes of every reply so far, against `Limits::max_reply_bytes`.
    total: usize,
    foreign: u32,
    quiet_until: Option<Instant>,
    latency: Option<Duration>,
    error: Option<Error>,
}

impl<S: Script> std::fmt::Debug for Rcon<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rcon")
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl<S: Script> Rcon<S> {
    /// `first_id`: the login's id (positive; each command takes the next two).
    pub fn new(
        script: S,
        password: Secret,
        params: Params,
        first_id: i32,
        deadline: Instant,
    ) -> Self {
        let auth_id = first_id.clamp(1, i32::MAX / 2);
        Rcon {
            script,
            password,
            params,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(params.limits.reply_cap().min(super::MAX_SIZE + 4)),
            auth_id,
            command_id: auth_id,
            marker_id: auth_id,
            reply: Vec::new(),
            replies: Vec::new(),
            total: 0,
            foreign: 0,
            quiet_until: None,
            latency: None,
            error: None,
        }
    }

    /// An exchange that fails with `error` before connecting (a target without the
    /// credentials its protocol needs: [`Error::NoCredentials`]).
    pub fn failing(script: S, params: Params, error: Error, deadline: Instant) -> Self {
        let mut x = Rcon::new(script, Secret::new(""), params, 1, deadline);
        x.error = Some(error);
        x
    }

    fn fail(&mut self, e: Error) {
        if self.error.is_none() {
            self.error = Some(e);
        }
        self.state = State::Over;
    }

    fn reply_done(&mut self) {
        let text = String::from_utf8_lossy(&self.reply).into_owned();
        self.reply.clear();
        self.replies.push(text);
        self.quiet_until = None;
        self.state = State::Next;
    }

    fn packet(&mut self, now: Instant, p: Packet, rtt: Duration) {
        match self.state {
            State::Authing if p.id == AUTH_REFUSED_ID && p.kind == TYPE_AUTH_RESPONSE => {
                self.fail(Error::AuthRefused {
                    what: "RCON password",
                })
            }
            State::Authing if p.id == self.auth_id && p.kind == TYPE_AUTH_RESPONSE => {
                self.state = State::Next
            }
            // SRCDS: an empty RESPONSE_VALUE before the login answer.
            State::Authing if p.id == self.auth_id => {}
            State::First | State::Marker | State::Collecting if p.id == self.command_id => {
                self.total += p.body.len();
                if self.total > self.params.limits.reply_cap() {
                    return self.fail(Error::from(DecodeError::TooLarge {
                        what: "RCON reply bytes",
                        value: self.total as u64,
                        limit: self.params.limits.reply_cap() as u64,
                    }));
                }
                self.reply.extend_from_slice(&p.body);
                if self.latency.is_none() {
                    self.latency = Some(rtt);
                }
                match self.state {
                    State::First => self.state = State::Marker,
                    _ => self.quiet_until = Some(now + QUIET),
                }
            }
            State::Collecting if p.id == self.marker_id => self.reply_done(),
            _ => {
                self.foreign += 1;
                if self.foreign > MAX_FOREIGN {
                    self.fail(Error::Unanswered {
                        count: self.foreign,
                    });
                }
            }
        }
    }
}

impl<S: Script> Exchange for Rcon<S> {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(e) = self.error.take() {
            self.state = State::Over;
            return Step::Failed(e);
        }
        loop {
            match self.state {
                State::Connect => {
                    self.state = State::Login;
                    return Step::Connect(self.deadline);
                }
                State::Login => {
                    out.clear();
                    encode(
                        self.auth_id,
                        TYPE_AUTH,
                        self.password.expose().as_bytes(),
                        out,
                    );
                    self.state = State::Authing;
                    return Step::SendSecret("RCON login");
                }
                // At the deadline itself the wait would end at once, again and again (the
                // driver polls past it only once the clock has moved on; a paused test
                // clock never does): the poll is over.
                State::Authing | State::First if now >= self.deadline => {
                    self.state = State::Over;
                    return Step::Failed(Error::Net(LinkError::Timeout));
                }
                State::Authing | State::First => return Step::Wait(self.deadline),
                State::Next => match self.script.next_command(&self.replies) {
                    Some(cmd) => {
                        self.command_id = self.marker_id.saturating_add(1);
                        self.marker_id = self.command_id.saturating_add(1);
                        out.clear();
                        encode(self.command_id, TYPE_EXEC, cmd.as_bytes(), out);
                        self.state = State::First;
                        return Step::Send("RCON command");
                    }
                    None => {
                        self.state = State::Over;
                        let replies = std::mem::take(&mut self.replies);
                        let latency = self.latency.unwrap_or_default();
                        return match self.script.finish(replies, latency) {
                            Ok(s) => Step::Done(s),
                            Err(e) => Step::Failed(e),
                        };
                    }
                },
                State::Marker => {
                    out.clear();
                    encode(self.marker_id, TYPE_EXEC, b"", out);
                    self.state = State::Collecting;
                    self.quiet_until = Some(now + QUIET);
                    return Step::Send("RCON end marker (empty command)");
                }
                State::Collecting => {
                    let quiet = self.quiet_until.unwrap_or(now);
                    if now >= quiet || now >= self.deadline {
                        self.reply_done();
                        continue;
                    }
                    return Step::Wait(quiet.min(self.deadline));
                }
                State::Over => {
                    let e = self.error.take().unwrap_or(Error::Net(LinkError::Timeout));
                    return Step::Failed(e);
                }
            }
        }
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                loop {
                    if self.state == State::Over {
                        return;
                    }
                    match self.buf.frame(decode) {
                        Ok(Some(p)) => self.packet(now, p, rtt),
                        Ok(None) => return,
                        Err(e) => return self.fail(Error::Net(e)),
                    }
                }
            }
            Input::Closed => {
                // Minecraft closes the connection on a wrong password with some versions.
                let e = match self.state {
                    State::Authing => Error::Net(LinkError::Closed { received: 0 }),
                    _ => Error::Net(self.buf.closed()),
                };
                self.fail(e)
            }
            Input::Failed(e) => self.fail(Error::Net(e)),
        }
    }
}
