//! TeamSpeak 3 ServerQuery dialogue on one TCP connection: banner, `use port=<voice port>`,
//! optionally `login`, `serverinfo`, and `clientlist` only when players are asked for. At
//! most [`MAX_COMMANDS_PER_POLL`] commands, sent one after the other's `error` line; no
//! `quit` (closing is enough, and it would be a fifth command).
//!
//! Latency is the `serverinfo` round trip.

use std::time::{Duration, Instant};

use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::teamspeak3::{
    self as ts3, decode_error_line, decode_records, ids, next_line, ErrorLine, Record,
    MAX_COMMANDS_PER_POLL,
};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Status;

/// A ServerQuery login. The password is a [`Secret`] (its `Debug` is redacted), written only
/// into the `login` command's bytes, which go out as [`Step::SendSecret`]: no transcript or
/// observer sees them.
#[derive(Debug, Clone)]
pub struct Login {
    pub username: String,
    pub password: Secret,
}

/// The ServerQuery admin account a password belongs to when no `username` is given.
pub const DEFAULT_USERNAME: &str = "serveradmin";

/// The commands, in the order a poll sends them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Use,
    Login,
    ServerInfo,
    ClientList,
}

impl Command {
    /// The transcript's name of the request (the login line itself is never shown).
    pub fn label(self) -> &'static str {
        match self {
            Command::Use => "use port=<voice port>",
            Command::Login => "login",
            Command::ServerInfo => "serverinfo",
            Command::ClientList => "clientlist",
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
pub struct Ts3 {
    params: Params,
    voice_port: u16,
    login: Option<Login>,
    deadline: Instant,
    stage: Stage,
    buf: StreamBuf,
    /// Records of the data line(s) of the command in flight.
    data: Vec<Record>,
    info: Option<Record>,
    latency: Duration,
    sent: usize,
    result: Option<Result<Status, Error>>,
}

/// Why a TeamSpeak error line failed the poll. The id is kept (an `UnexpectedType` decode
/// error, `malformed`); a ban is `refused`.
fn server_error(cmd: Command, e: &ErrorLine) -> Error {
    match e.id {
        ids::BANNED | ids::FLOOD_BANNED => LinkError::Refused.into(),
        _ => {
            let what = match cmd {
                Command::Use => "TeamSpeak error id (use)",
                Command::Login => "TeamSpeak error id (login)",
                Command::ServerInfo => "TeamSpeak error id (serverinfo)",
                Command::ClientList => "TeamSpeak error id (clientlist)",
            };
            DecodeError::UnexpectedType { what, found: e.id }.into()
        }
    }
}

impl Ts3 {
    pub fn new(params: Params, voice_port: u16, login: Option<Login>, deadline: Instant) -> Ts3 {
        Ts3 {
            buf: StreamBuf::new(params.limits.reply_cap()),
            params,
            voice_port,
            login,
            deadline,
            stage: Stage::Connect,
            data: Vec::new(),
            info: None,
            latency: Duration::ZERO,
            sent: 0,
            result: None,
        }
    }

    /// Commands sent so far (never more than [`MAX_COMMANDS_PER_POLL`]).
    pub fn commands_sent(&self) -> usize {
        self.sent
    }

    fn encode(&self, cmd: Command, out: &mut Vec<u8>) {
        out.clear();
        match cmd {
            Command::Use => {
                ts3::encode_command("use", &[("port", &self.voice_port.to_string())], out)
            }
            Command::Login => {
                let (user, pass) = self
                    .login
                    .as_ref()
                    .map_or(("", ""), |l| (l.username.as_str(), l.password.expose()));
                ts3::encode_command(
                    "login",
                    &[("client_login_name", user), ("client_login_password", pass)],
                    out,
                );
            }
            Command::ServerInfo => ts3::encode_command("serverinfo", &[], out),
            Command::ClientList => ts3::encode_command("clientlist", &[], out),
        }
    }

    fn fail(&mut self, e: Error) {
        if self.result.is_none() {
            self.result = Some(Err(e));
        }
    }

    /// Takes every complete line buffered.
    fn lines(&mut self, rtt: Duration) {
        while self.result.is_none() {
            let line = match self
                .buf
                .frame(|b| Ok(next_line(b).map(|(l, used)| (l.to_vec(), used))))
            {
                Ok(Some(line)) => line,
                Ok(None) => return,
                Err(e) => return self.fail(e.into()),
            };
            self.line(&line, rtt);
        }
    }

    fn line(&mut self, line: &[u8], rtt: Duration) {
        if line.is_empty() {
            return;
        }
        match self.stage {
            Stage::Banner => {
                if line == ts3::BANNER.as_bytes() {
                    self.stage = Stage::Send(Command::Use);
                } else if let Some(Ok(e)) = decode_error_line(line) {
                    // A banned address gets an error line instead of the banner.
                    self.fail(server_error(Command::Use, &e));
                } else {
                    self.fail(DecodeError::Invalid("TeamSpeak banner (not TS3)").into());
                }
            }
            Stage::Await(cmd) => match decode_error_line(line) {
                None => {
                    // The banner's welcome line may still come while `use` is in flight.
                    if cmd == Command::Use {
                        return;
                    }
                    let (records, _) = decode_records(line);
                    self.data.extend(records);
                }
                Some(Err(d)) => self.fail(d.into()),
                Some(Ok(e)) => self.answered(cmd, &e, rtt),
            },
            // Bytes before we asked anything (after the banner): ignored.
            _ => {}
        }
    }

    fn answered(&mut self, cmd: Command, e: &ErrorLine, rtt: Duration) {
        let data = std::mem::take(&mut self.data);
        if !e.ok() {
            match (cmd, e.id) {
                (Command::ClientList, _) => {
                    // Best effort: the status stands without the list.
                    let err = server_error(cmd, e);
                    return self.finish(None, Some(err));
                }
                (Command::Login, _) => {
                    return self.fail(Error::AuthRefused {
                        what: "ServerQuery login",
                    });
                }
                _ => return self.fail(server_error(cmd, e)),
            }
        }
        match cmd {
            Command::Use if self.login.is_some() => self.stage = Stage::Send(Command::Login),
            Command::Use | Command::Login => self.stage = Stage::Send(Command::ServerInfo),
            Command::ServerInfo => {
                self.latency = rtt;
                let Some(info) = data.into_iter().next() else {
                    return self.fail(DecodeError::Invalid("serverinfo without data").into());
                };
                self.info = Some(info);
                if self.params.players {
                    self.stage = Stage::Send(Command::ClientList);
                } else {
                    self.finish(None, None);
                }
            }
            Command::ClientList => self.finish(Some(data), None),
        }
    }

    fn finish(&mut self, clients: Option<Vec<Record>>, players_error: Option<Error>) {
        let info = self.info.take().unwrap_or_default();
        let mut s = ts3::to_status(&info, clients.as_deref(), self.latency, self.params.detail);
        if let Some(e) = players_error {
            note(&mut s.extras, "players_error", &e);
        }
        self.result = Some(Ok(s));
    }
}

impl Exchange for Ts3 {
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
                    if self.sent >= MAX_COMMANDS_PER_POLL {
                        self.fail(DecodeError::Invalid("command budget spent").into());
                        continue;
                    }
                    self.encode(cmd, out);
                    self.sent += 1;
                    self.stage = Stage::Sending(cmd);
                    if cmd == Command::Login {
                        return Step::SendSecret(cmd.label());
                    }
                    return Step::Send(cmd.label());
                }
                Stage::Sending(cmd) => {
                    self.stage = Stage::Await(cmd);
                    // Lines already buffered (a server answering early) are read now.
                    if !self.buf.is_empty() {
                        self.lines(Duration::ZERO);
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
                self.lines(rtt);
            }
            Input::Closed => {
                let e = self.buf.closed();
                self.fail(e.into());
            }
            Input::Failed(e) => self.fail(e.into()),
        }
    }
}
