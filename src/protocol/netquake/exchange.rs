//! The NetQuake dialogue: CCREQ_SERVER_INFO (required), then with `players` one
//! CCREQ_PLAYER_INFO per active client up to the count the server gave (at most
//! [`MAX_PLAYERS`]), then with `rules` CCREQ_RULE_INFO chained by the previous rule's name
//! (at most [`MAX_RULES`]).
//!
//! Latency is the server info round trip. The best-effort steps share what time is left, so
//! a server that stops answering cannot starve the rest. Nothing in a control reply echoes a
//! nonce: a player reply must name the index asked, and a rule already seen (a late reply to
//! a resent request) is skipped rather than taken as the next one, so the chain always
//! moves forward. A player index the server no longer has gets no reply at all (the count
//! changed between the steps): the list ends there quietly, with `players_note`.

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::{note, share};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::netquake::{self, Reply, Request};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// Player info requests per poll at most (QuakeSpasm allows 16 clients, DarkPlaces 255).
pub const MAX_PLAYERS: u8 = 64;
/// Rule info requests per poll at most (QuakeSpasm sends 7 rules).
pub const MAX_RULES: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Info,
    Player(u8),
    Rule,
    Finished,
}

/// The NetQuake dialogue as a state machine.
#[derive(Debug)]
pub struct NetQuake {
    params: Params,
    deadline: Instant,
    phase: Phase,
    ask: Option<Ask>,
    /// Player requests to make (from the server's count, capped).
    to_ask: u8,
    status: Status,
    players: Vec<Player>,
    rules: Vec<(String, String)>,
    /// The last rule's name as sent, for the next request.
    previous: Vec<u8>,
    extras: Map<String, Value>,
    failed: Option<Error>,
}

impl NetQuake {
    pub fn new(params: Params, deadline: Instant) -> NetQuake {
        NetQuake {
            params,
            deadline,
            phase: Phase::Info,
            ask: None,
            to_ask: 0,
            status: Status::default(),
            players: Vec::new(),
            rules: Vec::new(),
            previous: Vec::new(),
            extras: Map::new(),
            failed: None,
        }
    }

    /// Steps still to come after the current one, for sharing the time left.
    fn left(&self) -> usize {
        let players = match self.phase {
            Phase::Player(i) => usize::from(self.to_ask.saturating_sub(i)),
            _ => 0,
        };
        players + usize::from(self.params.rules && self.phase != Phase::Finished) * 4
    }

    fn start(&mut self, now: Instant) {
        let until = match self.phase {
            Phase::Info => self.deadline,
            _ => share(now, self.deadline, self.left()),
        };
        self.ask = Some(Ask::new(until));
    }

    fn request(&self) -> Request {
        match self.phase {
            Phase::Info | Phase::Finished => Request::ServerInfo,
            Phase::Player(i) => Request::PlayerInfo(i),
            Phase::Rule => Request::RuleInfo(self.previous.clone()),
        }
    }

    fn label(&self) -> &'static str {
        match self.phase {
            Phase::Info | Phase::Finished => "CCREQ_SERVER_INFO",
            Phase::Player(_) => "CCREQ_PLAYER_INFO",
            Phase::Rule => "CCREQ_RULE_INFO",
        }
    }

    fn after_players(&self) -> Phase {
        if self.params.rules {
            Phase::Rule
        } else {
            Phase::Finished
        }
    }

    /// A reply to the current step. `Mismatch`: an answer to something else, skipped.
    fn answered(&mut self, rtt: Duration, bytes: &[u8]) -> Result<(), DecodeError> {
        let reply = netquake::decode(bytes)?;
        match (self.phase, reply) {
            (Phase::Info, Reply::Server(info)) => {
                self.status = netquake::to_status(&info, rtt, self.params.detail);
                self.to_ask = info.players.min(MAX_PLAYERS);
                if self.params.players && info.players > MAX_PLAYERS {
                    self.extras.insert(
                        "players_note".into(),
                        json!(format!("only the first {MAX_PLAYERS} players are asked")),
                    );
                }
                self.phase = if self.params.players && self.to_ask > 0 {
                    Phase::Player(0)
                } else if self.params.players {
                    self.status.players = Some(Vec::new());
                    self.after_players()
                } else {
                    self.after_players()
                };
            }
            (Phase::Player(i), Reply::Player(p)) if p.index == i => {
                self.players.push(netquake::to_player(&p));
                self.phase = match i.checked_add(1) {
                    Some(next) if next < self.to_ask => Phase::Player(next),
                    _ => self.after_players(),
                };
            }
            (Phase::Rule, Reply::Rule(None)) => self.phase = Phase::Finished,
            (Phase::Rule, Reply::Rule(Some(rule))) => {
                if self.rules.iter().any(|(name, _)| *name == rule.name) {
                    return Err(DecodeError::Mismatch("a rule already read"));
                }
                self.rules.push((rule.name, rule.value));
                self.previous = rule.raw_name;
                if self.rules.len() >= MAX_RULES {
                    self.extras.insert(
                        "rules_note".into(),
                        json!(format!("only the first {MAX_RULES} rules are asked")),
                    );
                    self.phase = Phase::Finished;
                }
            }
            _ => return Err(DecodeError::Mismatch("another control reply")),
        }
        Ok(())
    }

    /// A step failed: the poll for server info; otherwise its list ends, noted.
    fn failed_step(&mut self, e: Error) {
        match self.phase {
            Phase::Info | Phase::Finished => self.failed = Some(e),
            Phase::Player(_) => {
                if e.unanswered() {
                    self.extras.insert(
                        "players_note".into(),
                        json!("a player index was not answered (players left)"),
                    );
                } else {
                    note(&mut self.extras, "players_error", &e);
                }
                self.phase = self.after_players();
            }
            Phase::Rule => {
                note(&mut self.extras, "rules_error", &e);
                self.phase = Phase::Finished;
            }
        }
    }

    fn finish(&mut self) -> Status {
        let mut status = std::mem::take(&mut self.status);
        if self.params.players && status.players.is_none() {
            status.players = Some(std::mem::take(&mut self.players));
        }
        if self.params.rules {
            status.rules = Some(std::mem::take(&mut self.rules));
        }
        let mut extras = std::mem::take(&mut status.extras);
        extras.append(&mut self.extras);
        status.extras = extras;
        status
    }
}

impl Exchange for NetQuake {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            if let Some(e) = self.failed.take() {
                return Step::Failed(e);
            }
            if self.phase == Phase::Finished {
                return Step::Done(self.finish());
            }
            let Some(ask) = &mut self.ask else {
                self.start(now);
                continue;
            };
            match ask.next(now) {
                Next::Send => {
                    netquake::encode_request(&self.request(), out);
                    return Step::Send(self.label());
                }
                Next::Wait(step) => return step,
                Next::Expired(e) => {
                    self.ask = None;
                    self.failed_step(e);
                }
            }
        }
    }

    /// Answers to something else are skipped (remembered for the failure reason); any other
    /// decode error ends the step at once: it was our answer, broken.
    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.ask.is_none() || self.phase == Phase::Finished {
            return;
        }
        let result = match input {
            Input::Received { bytes, rtt } => match self.answered(rtt, bytes) {
                Ok(()) => Ok(()),
                Err(DecodeError::Mismatch(_)) => {
                    if let Some(ask) = &mut self.ask {
                        ask.foreign();
                    }
                    return;
                }
                Err(e) => Err(e.into()),
            },
            Input::Closed => Err(LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => Err(e.into()),
        };
        self.ask = None;
        if let Err(e) = result {
            self.failed_step(e);
        }
    }
}

/// A poll's exchange until `deadline`.
pub fn new(params: &Params, deadline: Instant) -> NetQuake {
    NetQuake::new(*params, deadline)
}
