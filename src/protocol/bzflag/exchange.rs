//! One poll over one TCP connection: the hello and both queries in one write, then the
//! hello's answer, `qg`, `qp`, `tu` and one `ap` per player, read to `tu` and the last record so
//! the connection closes with nothing unread. A full server answers the hello with player id
//! 0xff and closes (`refused`). Messages bzfs broadcasts to every connection (chat, team
//! updates) are skipped, at most [`MAX_FOREIGN`] of them.
//!
//! Latency is the round trip to the hello's answer (bzfs answers the queries in the same
//! pass).

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::{
    decode_game, decode_hello, decode_message, decode_player_count, decode_record, encode_request,
    to_status, Game, Hello, Message, Record,
};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::status::Status;

/// Messages of other kinds (and repeated records) a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    Send,
    Waiting,
    Over,
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Bzflag {
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    /// Bytes read so far, against `max_reply_bytes` (frames are taken as they complete, so
    /// the buffer alone would never reach the cap).
    read: usize,
    hello: Option<Hello>,
    game: Option<Game>,
    expected: Option<u16>,
    /// The `tu` that follows `qp`: read before the poll ends, so nothing is left unread
    /// even when no player follows.
    teams: bool,
    records: Vec<Record>,
    seen: HashSet<u8>,
    foreign: u32,
    latency: Duration,
    done: Option<Result<Status, Error>>,
}

impl Bzflag {
    pub fn new(params: Params, deadline: Instant) -> Bzflag {
        Bzflag {
            buf: StreamBuf::new(params.limits.reply_cap()),
            params,
            deadline,
            state: State::Connect,
            read: 0,
            hello: None,
            game: None,
            expected: None,
            teams: false,
            records: Vec::new(),
            seen: HashSet::new(),
            foreign: 0,
            latency: Duration::ZERO,
            done: None,
        }
    }

    fn finish(&mut self, result: Result<Status, Error>) {
        if self.done.is_none() {
            self.done = Some(result);
        }
        self.state = State::Over;
    }

    fn skip(&mut self) {
        self.foreign += 1;
        if self.foreign > MAX_FOREIGN {
            self.finish(Err(Error::Unanswered {
                count: self.foreign,
            }));
        }
    }

    fn message(&mut self, m: Message) -> Result<(), Error> {
        match m.code {
            super::MSG_QUERY_GAME if self.game.is_none() => self.game = Some(decode_game(&m.body)?),
            super::MSG_QUERY_PLAYERS if self.expected.is_none() => {
                self.expected = Some(decode_player_count(&m.body)?.1)
            }
            super::MSG_TEAM_UPDATE if self.expected.is_some() && !self.teams => self.teams = true,
            super::MSG_ADD_PLAYER => {
                let record = decode_record(&m.body)?;
                // A player joining while we read is broadcast to us too: once per id.
                if self.seen.insert(record.id) {
                    self.records.push(record);
                } else {
                    self.skip();
                }
            }
            _ => self.skip(),
        }
        Ok(())
    }

    fn complete(&self) -> bool {
        matches!((&self.game, self.expected), (Some(_), Some(n)) if self.teams && self.records.len() >= usize::from(n))
    }

    fn take(&mut self, rtt: Duration) -> Result<(), Error> {
        while self.state == State::Waiting {
            if self.hello.is_none() {
                let Some(hello) = self.buf.frame(decode_hello).map_err(Error::Net)? else {
                    return Ok(());
                };
                if hello.id == super::NO_SLOT {
                    return Err(Error::Net(LinkError::Refused));
                }
                self.latency = rtt;
                self.hello = Some(hello);
                continue;
            }
            let Some(m) = self.buf.frame(decode_message).map_err(Error::Net)? else {
                return Ok(());
            };
            self.message(m)?;
            if self.complete() {
                let game = self.game.take().unwrap_or_default();
                let version = self.hello.as_ref().map_or("", |h| h.version.as_str());
                let p = &self.params;
                let status = to_status(
                    &game,
                    &self.records,
                    version,
                    self.latency,
                    (p.players, p.rules, p.detail),
                );
                self.finish(Ok(status));
            }
        }
        Ok(())
    }
}

impl Exchange for Bzflag {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.state {
            State::Connect => {
                self.state = State::Send;
                Step::Connect(self.deadline)
            }
            State::Send => {
                out.clear();
                encode_request(out);
                self.state = State::Waiting;
                Step::Send("hello + MsgQueryGame + MsgQueryPlayers")
            }
            // At the deadline itself the wait would end at once again and again.
            State::Waiting if now >= self.deadline => {
                self.finish(Err(Error::Net(LinkError::Timeout)));
                self.poll(now, out)
            }
            State::Waiting => Step::Wait(self.deadline),
            State::Over => match self.done.take() {
                Some(Ok(status)) => Step::Done(status),
                Some(Err(e)) => Step::Failed(e),
                None => Step::Failed(Error::Net(LinkError::Timeout)),
            },
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.read = self.read.saturating_add(bytes.len());
                let cap = self.params.limits.reply_cap();
                self.buf.push(bytes);
                if let Err(e) = self.take(rtt) {
                    return self.finish(Err(e));
                }
                if self.state == State::Waiting && self.read > cap {
                    self.finish(Err(Error::Net(LinkError::TooLarge { limit: cap })));
                }
            }
            Input::Closed => {
                let e = Error::Net(self.buf.closed());
                self.finish(Err(e));
            }
            Input::Failed(e) => self.finish(Err(Error::Net(e))),
        }
    }
}
