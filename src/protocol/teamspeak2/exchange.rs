//! TeamSpeak 2 query dialogue on one TCP connection: the `[TS]` banner, `sel <voice port>`,
//! `si`, and `pl` only when players are asked for; each command sent after the previous
//! reply's `OK`. No `quit`: closing is enough.
//!
//! Latency is the `si` round trip.

use std::time::{Duration, Instant};

use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::teamspeak2::{self as ts2, decode_end, End, MAX_LINES};
use crate::protocol::teamspeak3::next_line;
use crate::protocol::DecodeError;
use crate::status::Status;

/// The commands, in the order a poll sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Sel,
    Si,
    Pl,
}

impl Command {
    /// The transcript's name of the request.
    pub fn label(self) -> &'static str {
        match self {
            Command::Sel => "sel <voice port>",
            Command::Si => "si",
            Command::Pl => "pl",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Connect,
    Connecting,
    Banner,
    Send(Command),
    Sending(Command),
    Await(Command),
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Ts2 {
    params: Params,
    voice_port: u16,
    deadline: Instant,
    stage: Stage,
    buf: StreamBuf,
    /// The data lines of the reply in flight, and the bytes they took (capped by
    /// `max_reply_bytes` across lines, not only per line).
    lines: Vec<Vec<u8>>,
    reply_bytes: usize,
    info: Vec<(String, String)>,
    latency: Duration,
    result: Option<Result<Status, Error>>,
}

/// Why an `ERROR` line failed the poll (`malformed`: the server is there but refuses).
fn server_error(cmd: Command) -> Error {
    let what = match cmd {
        Command::Sel => "TeamSpeak 2 ERROR to sel (no virtual server on that voice port)",
        Command::Si => "TeamSpeak 2 ERROR to si",
        Command::Pl => "TeamSpeak 2 ERROR to pl",
    };
    DecodeError::Invalid(what).into()
}

impl Ts2 {
    pub fn new(params: Params, voice_port: u16, deadline: Instant) -> Ts2 {
        Ts2 {
            buf: StreamBuf::new(params.limits.reply_cap()),
            params,
            voice_port,
            deadline,
            stage: Stage::Connect,
            lines: Vec::new(),
            reply_bytes: 0,
            info: Vec::new(),
            latency: Duration::ZERO,
            result: None,
        }
    }

    fn encode(&self, cmd: Command, out: &mut Vec<u8>) {
        out.clear();
        match cmd {
            Command::Sel => ts2::encode_command("sel", Some(&self.voice_port.to_string()), out),
            Command::Si => ts2::encode_command("si", None, out),
            Command::Pl => ts2::encode_command("pl", None, out),
        }
    }

    fn fail(&mut self, e: Error) {
        if self.result.is_none() {
            self.result = Some(Err(e));
        }
    }

    /// Takes every complete line buffered.
    fn take_lines(&mut self, rtt: Duration) {
        while self.result.is_none() {
            let line = match self
                .buf
                .frame(|b| Ok(next_line(b).map(|(l, used)| ((l.to_vec(), used), used))))
            {
                Ok(Some(line)) => line,
                Ok(None) => return,
                Err(e) => return self.fail(e.into()),
            };
            self.line(line.0, line.1, rtt);
        }
    }

    fn line(&mut self, line: Vec<u8>, used: usize, rtt: Duration) {
        match self.stage {
            Stage::Banner => {
                if line.is_empty() {
                    return;
                }
                if line == ts2::BANNER.as_bytes() {
                    self.stage = Stage::Send(Command::Sel);
                } else {
                    self.fail(DecodeError::Invalid("TeamSpeak 2 banner (not [TS])").into());
                }
            }
            Stage::Await(cmd) => match decode_end(&line) {
                None => {
                    // Blank lines between replies carry nothing (`pl`'s rows are never blank).
                    if line.is_empty() {
                        return;
                    }
                    self.reply_bytes = self.reply_bytes.saturating_add(used);
                    let cap = self.params.limits.reply_cap();
                    if self.reply_bytes > cap {
                        return self.fail(LinkError::TooLarge { limit: cap }.into());
                    }
                    if self.lines.len() >= MAX_LINES {
                        return self.fail(
                            DecodeError::TooLarge {
                                what: "TeamSpeak 2 reply lines",
                                value: self.lines.len() as u64 + 1,
                                limit: MAX_LINES as u64,
                            }
                            .into(),
                        );
                    }
                    self.lines.push(line);
                }
                Some(end) => self.answered(cmd, end, rtt),
            },
            // Bytes before we asked anything (after the banner): ignored.
            _ => {}
        }
    }

    fn answered(&mut self, cmd: Command, end: End, rtt: Duration) {
        let lines = std::mem::take(&mut self.lines);
        self.reply_bytes = 0;
        if let End::Error(_) = end {
            if cmd == Command::Pl {
                // Best effort: the status stands without the list.
                return self.finish(None, Some(server_error(cmd)));
            }
            return self.fail(server_error(cmd));
        }
        match cmd {
            Command::Sel => self.stage = Stage::Send(Command::Si),
            Command::Si => {
                self.latency = rtt;
                self.info = ts2::decode_info(&lines);
                if ts2::field(&self.info, "server_name").is_none() {
                    return self.fail(DecodeError::Invalid("si without server_name").into());
                }
                if self.params.players {
                    self.stage = Stage::Send(Command::Pl);
                } else {
                    self.finish(None, None);
                }
            }
            Command::Pl => self.finish(Some(lines), None),
        }
    }

    fn finish(&mut self, players: Option<Vec<Vec<u8>>>, players_error: Option<Error>) {
        let players = players.map(|l| ts2::decode_players(&l));
        let mut s = ts2::to_status(&self.info, players, self.latency, self.params.detail);
        if let Some(e) = players_error {
            note(&mut s.extras, "players_error", &e);
        }
        self.result = Some(Ok(s));
    }
}

impl Exchange for Ts2 {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.result.take() {
                Some(Ok(s)) => return Step::Done(s),
                Some(Err(e)) => return Step::Failed(e),
                None => {}
            }
            match self.stage {
                Stage::Connect => {
                    self.stage = Stage::Connecting;
                    return Step::Connect(self.deadline);
                }
                Stage::Connecting => self.stage = Stage::Banner,
                Stage::Send(cmd) => {
                    self.encode(cmd, out);
                    self.stage = Stage::Sending(cmd);
                    return Step::Send(cmd.label());
                }
                Stage::Sending(cmd) => {
                    self.stage = Stage::Await(cmd);
                    // Lines already buffered (a server answering early) are read now.
                    if !self.buf.is_empty() {
                        self.take_lines(Duration::ZERO);
                    }
                }
                Stage::Banner | Stage::Await(_) if now >= self.deadline => {
                    self.fail(LinkError::Timeout.into())
                }
                Stage::Banner | Stage::Await(_) => return Step::Wait(self.deadline),
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                self.take_lines(rtt);
            }
            Input::Closed => {
                let e = self.buf.closed();
                self.fail(e.into());
            }
            Input::Failed(e) => self.fail(e.into()),
        }
    }
}
