//! One poll over one TCP connection: the server's handshake, then (with credentials)
//! `Authenticate`, `GetServerName` and `GetPlayerList` (required: the name and who is online),
//! then `GetMaxPlayers`, `GetVersion` and the current map (best effort). Calls go one at a
//! time, each with its own handle; a frame that answers no call of ours (a callback, another
//! handle) is skipped, at most [`MAX_FOREIGN`] of them. The password goes out only in
//! `Authenticate`, sent as [`Step::SendSecret`]; a fault's text is never kept.

use std::time::{Duration, Instant};

use serde_json::Value as Json;

use super::xmlrpc::{self, Fault, Param, Reply, Value};
use super::{decode_frame, decode_handshake, encode_frame, Frame, CALL_BIT};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::tools::{note, share};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::{Player, Status};

/// Frames that answer nothing of ours a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 64;
/// The most players asked for (and kept) per poll.
pub const MAX_PLAYERS: i32 = 1000;
/// The login used when a target gives a password but no `username`: the server's lowest
/// level, enough for every call of a poll.
pub const DEFAULT_LOGIN: &str = "User";

/// A GBXRemote login. The password is a [`Secret`]; it is written only into
/// `Authenticate`'s bytes.
#[derive(Debug, Clone)]
pub struct Login {
    pub user: String,
    pub password: Secret,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Authenticate,
    ServerName,
    PlayerList,
    MaxPlayers,
    Version,
    MapInfo,
    ChallengeInfo,
}

impl Call {
    fn method(self) -> &'static str {
        match self {
            Call::Authenticate => "Authenticate",
            Call::ServerName => "GetServerName",
            Call::PlayerList => "GetPlayerList",
            Call::MaxPlayers => "GetMaxPlayers",
            Call::Version => "GetVersion",
            Call::MapInfo => "GetCurrentMapInfo",
            Call::ChallengeInfo => "GetCurrentChallengeInfo",
        }
    }

    fn required(self) -> bool {
        matches!(
            self,
            Call::Authenticate | Call::ServerName | Call::PlayerList
        )
    }

    fn note_key(self) -> &'static str {
        match self {
            Call::MaxPlayers => "max_players_error",
            Call::Version => "version_error",
            _ => "map_error",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    /// Connected; waiting for the handshake until the deadline.
    Handshake,
    /// Send the next call, or finish.
    Next,
    /// The call is out; waiting for its answer until the instant.
    Waiting(Instant),
    Over,
}

/// What the poll learned.
#[derive(Debug, Default)]
struct Found {
    name: Option<String>,
    players: Option<Vec<Player>>,
    max: Option<u32>,
    game: Option<String>,
    version: Option<String>,
    map: Option<String>,
    rules: Vec<(String, String)>,
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Nadeo {
    params: Params,
    deadline: Instant,
    login: Option<Login>,
    state: State,
    buf: StreamBuf,
    /// The calls still to make, first last.
    todo: Vec<Call>,
    calling: Call,
    handle: u32,
    foreign: u32,
    found: Found,
    latency: Option<Duration>,
    extras: serde_json::Map<String, Json>,
    error: Option<Error>,
}

impl Nadeo {
    /// `first`: the first call's handle (bit 31 is set here; a fresh one per poll).
    pub fn new(params: Params, login: Option<Login>, first: u32, deadline: Instant) -> Nadeo {
        let mut todo = vec![
            Call::ServerName,
            Call::PlayerList,
            Call::MaxPlayers,
            Call::Version,
            Call::MapInfo,
        ];
        if login.is_some() {
            todo.insert(0, Call::Authenticate);
        }
        todo.reverse();
        let cap = params.limits.reply_cap().min(super::MAX_FRAME);
        Nadeo {
            params,
            deadline,
            login,
            state: State::Connect,
            buf: StreamBuf::new(cap),
            todo,
            calling: Call::ServerName,
            handle: (first | CALL_BIT).wrapping_sub(1),
            foreign: 0,
            found: Found::default(),
            latency: None,
            extras: serde_json::Map::new(),
            error: None,
        }
    }

    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
        self.state = State::Over;
    }

    /// The call in flight failed: the poll fails if it was required, else the status is made
    /// of what came, with the failure noted.
    fn call_failed(&mut self, e: Error) {
        if self.calling.required() {
            self.fail(e);
        } else {
            note(&mut self.extras, self.calling.note_key(), &e);
            self.state = State::Next;
        }
    }

    /// The connection failed or closed: nothing more can be asked on it.
    fn link_lost(&mut self, e: Error) {
        match self.state {
            State::Over => {}
            State::Connect | State::Handshake => self.fail(e),
            State::Waiting(_) => {
                self.todo.clear();
                self.call_failed(e);
            }
            State::Next => {
                self.todo.clear();
                if self.found.players.is_none() {
                    self.fail(e);
                }
            }
        }
    }

    /// A fault answering the call in flight.
    fn fault(&mut self, f: Fault) {
        let e = match self.calling {
            Call::Authenticate => Error::AuthRefused {
                what: "GBXRemote login (Authenticate)",
            },
            _ if f.denied && self.login.is_none() => Error::NoCredentials {
                protocol: "nadeo",
                key: "username and password_file",
            },
            _ if f.denied => Error::AuthRefused {
                what: "GBXRemote login's rights to a read method",
            },
            // TrackMania Forever knows no `GetCurrentMapInfo`: its map is a challenge.
            Call::MapInfo => {
                self.todo.push(Call::ChallengeInfo);
                self.state = State::Next;
                return;
            }
            c => Error::Fault {
                method: c.method(),
                code: f.code,
            },
        };
        self.call_failed(e);
    }

    fn frame(&mut self, f: Frame, rtt: Duration) {
        if f.handle != self.handle {
            self.foreign += 1;
            if self.foreign > MAX_FOREIGN {
                let count = self.foreign;
                self.call_failed(Error::Unanswered { count });
            }
            return;
        }
        let value = match xmlrpc::decode_response(&f.xml) {
            // Some servers answer a wrong login `false` rather than with a fault.
            Ok(Reply::Value(v)) if self.calling == Call::Authenticate && v != Value::Bool(true) => {
                return self.call_failed(Error::AuthRefused {
                    what: "GBXRemote login (Authenticate)",
                });
            }
            Ok(Reply::Value(v)) => v,
            Ok(Reply::Fault(fault)) => return self.fault(fault),
            Err(e) => return self.call_failed(Error::from(e)),
        };
        match self.answer(value, rtt) {
            Ok(()) => self.state = State::Next,
            Err(e) => self.call_failed(Error::from(e)),
        }
    }

    /// What an answer means for the call in flight.
    fn answer(&mut self, v: Value, rtt: Duration) -> Result<(), DecodeError> {
        let found = &mut self.found;
        match self.calling {
            // Only `true` gets here (see `frame`).
            Call::Authenticate => {}
            Call::ServerName => {
                let name = v
                    .as_str()
                    .ok_or(DecodeError::Invalid("GetServerName answer (not a string)"))?;
                found.name = Some(xmlrpc::strip_formatting(name));
                self.latency = Some(rtt);
            }
            Call::PlayerList => found.players = Some(decode_players(&v)?),
            Call::MaxPlayers => {
                let max = v
                    .get("CurrentValue")
                    .and_then(Value::as_i64)
                    .ok_or(DecodeError::Invalid("GetMaxPlayers CurrentValue"))?;
                // Negative, or more than any real server holds: never published.
                let max = u32::try_from(max)
                    .ok()
                    .filter(|&m| m <= crate::status::MAX_PLAUSIBLE_COUNT)
                    .ok_or(DecodeError::Invalid(
                        "GetMaxPlayers CurrentValue (not a count a real server reports)",
                    ))?;
                found.max = Some(max);
            }
            Call::Version => {
                let text = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
                let name = text("Name").ok_or(DecodeError::Invalid("GetVersion Name"))?;
                let title = text("TitleId");
                found.game = Some(game_of(&name, title.as_deref()).to_string());
                found.version = text("Version");
                if let Some(b) = text("Build") {
                    found.rules.push(("build".into(), b));
                }
                if let Some(t) = title {
                    found.rules.push(("title_id".into(), t));
                }
                if let Some(a) = text("ApiVersion") {
                    found.rules.push(("api_version".into(), a));
                }
                // TrackMania Forever's map is a challenge (it has no GetCurrentMapInfo).
                if name.eq_ignore_ascii_case("TmForever") {
                    if let Some(c) = self.todo.iter_mut().find(|c| **c == Call::MapInfo) {
                        *c = Call::ChallengeInfo;
                    }
                }
            }
            Call::MapInfo | Call::ChallengeInfo => {
                let name = v
                    .get("Name")
                    .and_then(Value::as_str)
                    .ok_or(DecodeError::Invalid("current map Name"))?;
                found.map = Some(xmlrpc::strip_formatting(name));
                let texts = [
                    ("UId", "map_uid"),
                    ("Author", "map_author"),
                    ("Environnement", "environment"),
                ];
                for (k, rule) in texts {
                    if let Some(s) = v.get(k).and_then(Value::as_str) {
                        found.rules.push((rule.into(), s.to_string()));
                    }
                }
            }
        }
        Ok(())
    }

    fn status(&mut self) -> Status {
        let found = std::mem::take(&mut self.found);
        let players = found.players.unwrap_or_default();
        let online = u32::try_from(players.len()).unwrap_or(u32::MAX);
        Status {
            online,
            max: found.max.unwrap_or(0),
            name: found.name.unwrap_or_default(),
            map: found.map,
            game: found.game.or(Some("Trackmania".into())),
            version: found.version,
            latency: self.latency.unwrap_or_default(),
            players: self.params.players.then_some(players),
            rules: self.params.rules.then_some(found.rules),
            extras: std::mem::take(&mut self.extras),
            ..Status::default()
        }
    }

    /// Writes the call for `c` into `out`.
    fn write_call(&self, c: Call, out: &mut Vec<u8>) {
        let mut xml = Vec::new();
        match (c, &self.login) {
            (Call::Authenticate, Some(l)) => xmlrpc::encode_call(
                c.method(),
                &[Param::Str(&l.user), Param::Str(l.password.expose())],
                &mut xml,
            ),
            (Call::PlayerList, _) => xmlrpc::encode_call(
                c.method(),
                &[Param::Int(MAX_PLAYERS), Param::Int(0)],
                &mut xml,
            ),
            _ => xmlrpc::encode_call(c.method(), &[], &mut xml),
        }
        out.clear();
        encode_frame(self.handle, &xml, out);
    }
}

/// The game a `GetVersion` names: `TmForever`, or ManiaPlanet with the title it runs.
fn game_of(name: &str, title: Option<&str>) -> &'static str {
    let title = title.unwrap_or("").to_ascii_lowercase();
    if name.eq_ignore_ascii_case("TmForever") {
        "Trackmania Forever"
    } else if title.starts_with("sm") || title.contains("shootmania") {
        "Shootmania"
    } else if title.starts_with("tm") || title.contains("trackmania") {
        "Trackmania 2"
    } else if name.eq_ignore_ascii_case("ManiaPlanet") {
        "ManiaPlanet"
    } else {
        "Trackmania"
    }
}

/// `GetPlayerList`'s array of structs: the nickname (formatting stripped), else the login.
/// The login is the player's account: not kept beyond standing in for a missing nickname.
pub fn decode_players(v: &Value) -> Result<Vec<Player>, DecodeError> {
    let Value::Array(items) = v else {
        return Err(DecodeError::Invalid("GetPlayerList answer (not an array)"));
    };
    let mut players = Vec::with_capacity(items.len().min(MAX_PLAYERS as usize));
    for item in items.iter().take(MAX_PLAYERS as usize) {
        if !matches!(item, Value::Struct(_)) {
            return Err(DecodeError::Invalid("GetPlayerList entry (not a struct)"));
        }
        let text = |k: &str| {
            item.get(k)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let name = text("NickName")
            .or_else(|| text("Name"))
            .or_else(|| text("Login"))
            .unwrap_or("");
        players.push(Player {
            name: xmlrpc::strip_formatting(name),
            ..Player::default()
        });
    }
    Ok(players)
}

impl Exchange for Nadeo {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.state {
                State::Connect => {
                    self.state = State::Handshake;
                    return Step::Connect(self.deadline);
                }
                State::Handshake if now >= self.deadline => {
                    self.fail(Error::Net(LinkError::Timeout));
                }
                State::Handshake => return Step::Wait(self.deadline),
                State::Next => match self.todo.pop() {
                    Some(c) => {
                        self.calling = c;
                        // Bit 31 set, and above 2^31 itself: gbxremote (gamedig's client)
                        // reads a reply of handle 2^31 as a callback, so servers never see it.
                        self.handle = self.handle.wrapping_add(1) | CALL_BIT;
                        if self.handle == CALL_BIT {
                            self.handle += 1;
                        }
                        self.foreign = 0;
                        self.write_call(c, out);
                        let until = if c.required() {
                            self.deadline
                        } else {
                            share(now, self.deadline, self.todo.len() + 1)
                        };
                        self.state = State::Waiting(until);
                        if c == Call::Authenticate {
                            return Step::SendSecret("Authenticate");
                        }
                        return Step::Send(c.method());
                    }
                    None => {
                        self.state = State::Over;
                        return Step::Done(self.status());
                    }
                },
                // At the instant itself the wait would end at once again and again (a paused
                // test clock never moves on): the call is over. Frames that answered another
                // call were all that came: a mismatch, not silence.
                State::Waiting(until) if now >= until => {
                    let e = match self.foreign {
                        0 => Error::Net(LinkError::Timeout),
                        count => Error::Unanswered { count },
                    };
                    // A late answer carries this call's handle: the next call skips it.
                    self.call_failed(e);
                }
                State::Waiting(until) => return Step::Wait(until),
                State::Over => {
                    let e = self.error.take().unwrap_or(Error::Net(LinkError::Timeout));
                    return Step::Failed(e);
                }
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                if self.state == State::Handshake {
                    match self.buf.frame(decode_handshake) {
                        Ok(Some(())) => self.state = State::Next,
                        Ok(None) => return,
                        Err(e) => return self.fail(Error::Net(e)),
                    }
                }
                let cap = self.params.limits.reply_cap();
                while let State::Waiting(_) = self.state {
                    match self.buf.frame(|b| decode_frame(b, cap)) {
                        Ok(Some(f)) => self.frame(f, rtt),
                        Ok(None) => return,
                        Err(e) => {
                            // The stream is out of step: nothing more can be read on it.
                            self.todo.clear();
                            return self.call_failed(Error::Net(e));
                        }
                    }
                }
            }
            Input::Closed => {
                let e = Error::Net(self.buf.closed());
                self.link_lost(e);
            }
            Input::Failed(e) => self.link_lost(Error::Net(e)),
        }
    }
}
