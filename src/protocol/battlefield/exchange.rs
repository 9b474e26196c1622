//! One poll over one TCP connection: `serverInfo` (required), then `version` (best effort:
//! which game it is) and, when players are asked for, `listPlayers all` (best effort: BC2
//! wants a login for it). Requests go one at a time, each with its own sequence number; a
//! packet that is not the response to the request in flight (a server event, a late answer)
//! is skipped, at most [`MAX_FOREIGN`] of them.

use std::time::{Duration, Instant};

use serde_json::Value;

use super::{decode, encode_request, Packet, ServerInfo};
use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::tools::{note, share};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::status::{Player, Status};

/// Packets that answer nothing of ours a poll skips before giving up.
pub const MAX_FOREIGN: u32 = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ask {
    ServerInfo,
    Version,
    Players,
}

impl Ask {
    fn words(self) -> &'static [&'static str] {
        match self {
            Ask::ServerInfo => &["serverInfo"],
            Ask::Version => &["version"],
            Ask::Players => &["listPlayers", "all"],
        }
    }

    fn label(self) -> &'static str {
        match self {
            Ask::ServerInfo => "serverInfo",
            Ask::Version => "version",
            Ask::Players => "listPlayers all",
        }
    }

    fn note_key(self) -> &'static str {
        match self {
            Ask::ServerInfo => "server_info_error",
            Ask::Version => "version_error",
            Ask::Players => "players_error",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Connect,
    /// Send the next request, or finish.
    Next,
    /// The request is out; waiting for its answer until the instant.
    Waiting(Instant),
    Over,
}

/// One poll's dialogue.
#[derive(Debug)]
pub struct Battlefield {
    params: Params,
    deadline: Instant,
    state: State,
    buf: StreamBuf,
    /// The requests still to send, first next.
    todo: Vec<Ask>,
    asking: Ask,
    number: u32,
    foreign: u32,
    info: Option<ServerInfo>,
    game: Option<(String, Option<String>)>,
    players: Option<Vec<Player>>,
    latency: Option<Duration>,
    extras: serde_json::Map<String, Value>,
    error: Option<Error>,
}

impl Battlefield {
    /// `first`: the first request's sequence number (a fresh one per poll).
    pub fn new(params: Params, first: u32, deadline: Instant) -> Battlefield {
        let mut todo = vec![Ask::ServerInfo, Ask::Version];
        if params.players {
            todo.push(Ask::Players);
        }
        todo.reverse();
        let cap = params.limits.reply_cap().min(super::MAX_PACKET);
        Battlefield {
            params,
            deadline,
            state: State::Connect,
            buf: StreamBuf::new(cap),
            todo,
            asking: Ask::ServerInfo,
            number: first.wrapping_sub(1),
            foreign: 0,
            info: None,
            game: None,
            players: None,
            latency: None,
            extras: serde_json::Map::new(),
            error: None,
        }
    }

    /// The step in flight failed: the poll fails if it was `serverInfo`, else the status is
    /// made of what came, with the failure noted.
    fn step_failed(&mut self, e: Error) {
        if self.asking == Ask::ServerInfo || self.info.is_none() {
            self.error.get_or_insert(e);
            self.state = State::Over;
        } else {
            note(&mut self.extras, self.asking.note_key(), &e);
            // The connection may hold the rest of an answer: ask nothing more on it.
            self.todo.clear();
            self.state = State::Next;
        }
    }

    /// The connection failed or closed (connecting included): nothing more can be asked on
    /// it, and without `serverInfo`'s answer the poll has failed.
    fn link_lost(&mut self, e: Error) {
        match self.state {
            State::Over => {}
            State::Waiting(_) => self.step_failed(e),
            State::Connect | State::Next if self.info.is_none() => {
                self.error.get_or_insert(e);
                self.state = State::Over;
            }
            State::Connect | State::Next => {}
        }
        self.todo.clear();
    }

    fn packet(&mut self, p: Packet, rtt: Duration) {
        if !p.is_response() || p.number() != self.number {
            self.foreign += 1;
            if self.foreign > MAX_FOREIGN {
                self.step_failed(Error::Unanswered {
                    count: self.foreign,
                });
            }
            return;
        }
        let result = match self.asking {
            Ask::ServerInfo => super::decode_server_info(&p.words).map(|i| {
                self.latency = Some(rtt);
                self.info = Some(i);
            }),
            Ask::Version => super::decode_game(&p.words).map(|g| self.game = Some(g)),
            Ask::Players => super::decode_players(&p.words).map(|l| self.players = Some(l)),
        };
        match result {
            Ok(()) => self.state = State::Next,
            Err(e) => self.step_failed(Error::from(e)),
        }
    }

    fn status(&mut self) -> Status {
        let info = self.info.take().unwrap_or_default();
        let (game, version) = match self.game.take() {
            Some((g, v)) => (Some(g), v),
            None => (Some("Battlefield".to_string()), None),
        };
        let rules = self.params.rules.then(|| rules(&info));
        if self.params.detail {
            self.extras
                .insert("team_scores".into(), Value::from(info.team_scores.clone()));
        }
        // A list longer than the count (spectators, commanders): publish the list's.
        let online = match &self.players {
            Some(l) => info.online.max(l.len() as u32),
            None => info.online,
        };
        Status {
            online,
            max: info.max,
            name: info.name,
            map: Some(info.map),
            game,
            version,
            password: info.password,
            latency: self.latency.unwrap_or_default(),
            players: self.players.take(),
            rules,
            extras: std::mem::take(&mut self.extras),
            ..Status::default()
        }
    }
}

/// `serverInfo`'s other fields, as rules.
fn rules(i: &ServerInfo) -> Vec<(String, String)> {
    let mut r = vec![
        ("gamemode".to_string(), i.mode.clone()),
        ("roundsplayed".into(), i.rounds_played.to_string()),
        ("roundstotal".into(), i.rounds_total.to_string()),
        ("targetscore".into(), i.target_score.to_string()),
        ("onlinestate".into(), i.online_state.clone()),
    ];
    for (n, s) in i.team_scores.iter().enumerate() {
        r.push((format!("team{}score", n + 1), s.to_string()));
    }
    let flags = [
        ("ranked", i.ranked),
        ("punkbuster", i.punkbuster),
        ("joinqueue", i.join_queue),
    ];
    for (k, v) in flags {
        if let Some(v) = v {
            r.push((k.into(), v.to_string()));
        }
    }
    let numbers = [("uptime", i.uptime), ("roundtime", i.round_time)];
    for (k, v) in numbers {
        if let Some(v) = v {
            r.push((k.into(), v.to_string()));
        }
    }
    let texts = [
        ("address", &i.address),
        ("punkbusterversion", &i.punkbuster_version),
        ("region", &i.region),
        ("pingsite", &i.ping_site),
        ("country", &i.country),
    ];
    for (k, v) in texts {
        if let Some(v) = v {
            r.push((k.into(), v.clone()));
        }
    }
    r
}

impl Exchange for Battlefield {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.state {
                State::Connect => {
                    self.state = State::Next;
                    return Step::Connect(self.deadline);
                }
                State::Next => match self.todo.pop() {
                    Some(ask) => {
                        self.asking = ask;
                        self.number = self.number.wrapping_add(1) & super::SEQUENCE_MASK;
                        out.clear();
                        encode_request(self.number, ask.words(), out);
                        let until = match ask {
                            Ask::ServerInfo => self.deadline,
                            _ => share(now, self.deadline, self.todo.len() + 1),
                        };
                        self.state = State::Waiting(until);
                        return Step::Send(ask.label());
                    }
                    None => {
                        self.state = State::Over;
                        return Step::Done(self.status());
                    }
                },
                // At the instant itself the wait would end at once again and again (a paused
                // test clock never moves on): the step is over.
                State::Waiting(until) if now >= until => {
                    self.step_failed(Error::Net(LinkError::Timeout));
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
                let cap = self.params.limits.reply_cap();
                while let State::Waiting(_) = self.state {
                    match self.buf.frame(|b| decode(b, cap)) {
                        Ok(Some(p)) => self.packet(p, rtt),
                        Ok(None) => return,
                        Err(e) => return self.step_failed(Error::Net(e)),
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
