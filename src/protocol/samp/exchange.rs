//! SA:MP / open.mp dialogue: `i` (required), then best-effort `o`, `r`, `d` or `c`, and `p`,
//! as a sans-IO [`Exchange`] run by the generic driver.
//!
//! Latency is the `i` round trip: the one exchange every poll makes, answered from a buffer
//! the server keeps ready, so it measures the network and not the size of the extras.
//! Each best-effort step gets an even share of what time is left, so a server that ignores
//! one opcode cannot starve the others; answered steps leave more for the rest. A step that
//! gets no answer of its own (the server ignores that opcode) is skipped quietly; one that
//! fails otherwise is noted in extras (`open_mp_error`, `rules_error`, `players_error`,
//! `ping_error`).

use std::time::{Duration, Instant};

use serde_json::{json, Map, Value};

use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::{note, random_u32, share};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::samp::{self, Dialect, Header, Opcode};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// Servers send no player list (`c` or `d`) at all above 100 players (docs/protocols/samp.md).
const MAX_LISTED_PLAYERS: u32 = 100;

/// The steps of a poll, in order; those not wanted are skipped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Info,
    OpenMp,
    Rules,
    /// `d`: ids and pings; open.mp has no `d`.
    Detailed,
    /// `c`: names and scores, when `d` went unanswered (or on open.mp).
    Clients,
    Ping,
    Finished,
}

/// The SA:MP dialogue as a state machine.
#[derive(Debug)]
pub struct Samp {
    params: Params,
    dialect: Dialect,
    header: Header,
    deadline: Instant,
    phase: Phase,
    ask: Option<Ask>,
    /// Best-effort steps still to come that share the time left.
    steps: usize,
    open_mp: bool,
    ping_payload: [u8; 4],
    status: Status,
    extras: Map<String, Value>,
    failed: Option<Error>,
}

impl Samp {
    /// A poll until `deadline` of the server the header names (its IPv4 address and port:
    /// SA:MP carries them in every request).
    pub fn new(params: Params, header: Header, deadline: Instant) -> Samp {
        Samp::in_dialect(Dialect::SAMP, params, header, deadline)
    }

    /// [`Samp::new`] for a server of another [`Dialect`] (VC:MP): only the opcodes it has
    /// are asked.
    pub fn in_dialect(dialect: Dialect, params: Params, header: Header, deadline: Instant) -> Samp {
        Samp {
            params,
            dialect,
            header,
            deadline,
            phase: Phase::Info,
            ask: None,
            steps: 0,
            open_mp: false,
            ping_payload: random_u32().to_le_bytes(),
            status: Status::default(),
            extras: Map::new(),
            failed: None,
        }
    }

    /// `o` and the ping are probes: asked with `detail` (the `query` command) or rules, of
    /// a dialect that has them.
    fn probe(&self) -> bool {
        self.dialect.extended && (self.params.detail || self.params.rules)
    }

    /// `r` is asked for rules, of a dialect that has it.
    fn rules(&self) -> bool {
        self.dialect.extended && self.params.rules
    }

    fn list(&self) -> bool {
        self.params.players && self.status.online <= MAX_LISTED_PLAYERS
    }

    /// Whether the current phase is wanted; an unwanted one is passed over.
    fn wanted(&mut self) -> bool {
        match self.phase {
            Phase::Info | Phase::Finished => true,
            Phase::OpenMp | Phase::Ping => self.probe(),
            Phase::Rules => self.rules(),
            Phase::Detailed => {
                if self.params.players && !self.list() {
                    self.extras.insert(
                        "players_note".into(),
                        json!("the server sends no player list above 100 players"),
                    );
                }
                self.list() && !self.open_mp && self.dialect.extended
            }
            Phase::Clients => self.list(),
        }
    }

    fn start(&mut self, now: Instant) {
        if !self.wanted() {
            self.phase = self.after();
            return;
        }
        let until = if self.phase == Phase::Info {
            self.deadline
        } else {
            let until = share(now, self.deadline, self.steps);
            self.steps = self.steps.saturating_sub(1);
            until
        };
        self.ask = Some(Ask::new(until));
    }

    fn after(&self) -> Phase {
        match self.phase {
            Phase::Info => Phase::OpenMp,
            Phase::OpenMp => Phase::Rules,
            Phase::Rules => Phase::Detailed,
            // `d` answered: no `c`.
            Phase::Detailed => Phase::Clients,
            Phase::Clients => Phase::Ping,
            Phase::Ping | Phase::Finished => Phase::Finished,
        }
    }

    fn encode(&self, out: &mut Vec<u8>) -> &'static str {
        out.clear();
        let opcode = match self.phase {
            Phase::Info => Opcode::Info,
            Phase::OpenMp => Opcode::OpenMp,
            Phase::Rules => Opcode::Rules,
            Phase::Detailed => Opcode::Detailed,
            Phase::Clients => Opcode::Clients,
            Phase::Ping | Phase::Finished => {
                samp::encode_ping(&self.header, self.ping_payload, out);
                return self.dialect.label(Opcode::Ping);
            }
        };
        samp::encode_request_in(&self.dialect, &self.header, opcode, out);
        self.dialect.label(opcode)
    }

    /// The reply to the current step arrived, decoded.
    fn answered(&mut self, rtt: Duration, bytes: &[u8]) -> Result<(), DecodeError> {
        let (h, enc) = (&self.header, self.params.encoding);
        match self.phase {
            Phase::Info => {
                let (info, version) = samp::decode_info_in(&self.dialect, bytes, h, enc)?;
                // Daemon polls publish no extras; building them cost allocations on every poll.
                if self.params.detail && !self.dialect.third_is_map {
                    self.extras.insert("language".into(), json!(info.language));
                }
                let third = Some(info.language).filter(|m| !m.is_empty());
                self.status = Status {
                    online: info.players.into(),
                    max: info.max.into(),
                    name: info.hostname,
                    game: Some(info.gamemode).filter(|g| !g.is_empty()),
                    map: third.filter(|_| self.dialect.third_is_map),
                    version: version.filter(|v| !v.is_empty()),
                    password: Some(info.password),
                    latency: rtt,
                    ..Status::default()
                };
                let list = usize::from(self.list());
                // `d` then `c` where the dialect has `d`; `c` alone otherwise.
                let lists = if self.dialect.extended { 2 } else { 1 };
                self.steps =
                    usize::from(self.probe()) * 2 + usize::from(self.rules()) + list * lists;
            }
            Phase::OpenMp => {
                let o = samp::decode_open_mp(bytes, h, enc)?;
                self.open_mp = true;
                for (key, value) in [
                    ("discord", o.discord),
                    ("light_banner_url", o.light_banner),
                    ("dark_banner_url", o.dark_banner),
                    ("logo_url", o.logo),
                ] {
                    if !value.is_empty() {
                        self.extras.insert(key.into(), json!(value));
                    }
                }
            }
            Phase::Rules => {
                let rules = samp::decode_rules(bytes, h, enc)?;
                apply_rules(&mut self.status, &mut self.extras, rules);
            }
            Phase::Detailed => {
                let list = samp::decode_detailed(bytes, h, enc)?;
                self.status.players = Some(
                    list.into_iter()
                        .map(|p| Player {
                            name: p.name,
                            id: Some(p.id.to_string()),
                            score: Some(p.score.into()),
                            ping: Some(p.ping),
                            ..Player::default()
                        })
                        .collect(),
                );
            }
            Phase::Clients => {
                let list = samp::decode_clients_in(&self.dialect, bytes, h, enc)?;
                let scores = self.dialect.client_scores;
                self.status.players = Some(
                    list.into_iter()
                        .map(|p| Player {
                            name: p.name,
                            score: scores.then_some(p.score.into()),
                            ..Player::default()
                        })
                        .collect(),
                );
            }
            Phase::Ping | Phase::Finished => {
                samp::decode_ping(bytes, h, self.ping_payload)?;
                self.extras.insert("ping_echo".into(), json!(true));
                self.extras
                    .insert("ping_seconds".into(), json!(rtt.as_secs_f64()));
            }
        }
        Ok(())
    }

    /// Ends the current step; what comes next depends on how it went.
    fn end(&mut self, result: Result<(), Error>) {
        self.ask = None;
        let phase = self.phase;
        self.phase = match phase {
            // `d` answered: the list is complete.
            Phase::Detailed if result.is_ok() => Phase::Ping,
            _ => self.after(),
        };
        if phase == Phase::OpenMp {
            self.extras.insert("open_mp".into(), json!(self.open_mp));
        }
        if phase == Phase::Ping && result.is_err() {
            self.extras.insert("ping_echo".into(), json!(false));
        }
        let Err(e) = result else { return };
        match phase {
            Phase::Info => self.failed = Some(e),
            // The server ignores that opcode: nothing to note, `d` falls back to `c`.
            Phase::OpenMp | Phase::Ping | Phase::Detailed if e.unanswered() => {}
            Phase::Clients if e.unanswered() => {
                self.extras.insert(
                    "players_note".into(),
                    json!("the player list was not answered"),
                );
            }
            Phase::Detailed => {
                note(&mut self.extras, "players_error", &e);
                // A broken `d` reply: no `c` either.
                self.phase = Phase::Ping;
            }
            Phase::OpenMp => note(&mut self.extras, "open_mp_error", &e),
            Phase::Rules => note(&mut self.extras, "rules_error", &e),
            Phase::Clients => note(&mut self.extras, "players_error", &e),
            Phase::Ping | Phase::Finished => note(&mut self.extras, "ping_error", &e),
        }
    }
}

impl Exchange for Samp {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            if let Some(e) = self.failed.take() {
                return Step::Failed(e);
            }
            if self.phase == Phase::Finished {
                let mut status = std::mem::take(&mut self.status);
                status.extras = std::mem::take(&mut self.extras);
                return Step::Done(status);
            }
            let Some(ask) = &mut self.ask else {
                self.start(now);
                continue;
            };
            match ask.next(now) {
                Next::Send => return Step::Send(self.encode(out)),
                Next::Wait(step) => return step,
                Next::Expired(e) => self.end(Err(e)),
            }
        }
    }

    /// Datagrams answering something else (another header, session or payload: late
    /// replies, junk) are skipped; any other decode error ends the step at once: it was our
    /// answer, broken.
    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.ask.is_none() {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => match self.answered(rtt, bytes) {
                Ok(()) => self.end(Ok(())),
                Err(DecodeError::Mismatch(_)) => {
                    if let Some(ask) = &mut self.ask {
                        ask.foreign();
                    }
                }
                Err(e) => self.end(Err(e.into())),
            },
            Input::Closed => self.end(Err(LinkError::Closed { received: 0 }.into())),
            Input::Failed(e) => self.end(Err(e.into())),
        }
    }
}

fn apply_rules(status: &mut Status, extras: &mut Map<String, Value>, rules: Vec<(String, String)>) {
    for (name, value) in &rules {
        match name.as_str() {
            "version" => status.version = Some(value.clone()),
            "mapname" => status.map = Some(value.clone()),
            // open.mp names it `map`; `mapname` wins where a server sends both.
            "map" if status.map.is_none() => status.map = Some(value.clone()),
            "weburl" | "worldtime" | "weather" | "lagcomp" => {
                extras.insert(name.clone(), json!(value));
            }
            _ => {}
        }
    }
    status.rules = Some(rules);
}
