//! Minecraft Query (GameSpy4) dialogue: handshake for a token (or reuse the remembered one),
//! then full stat, as a sans-IO [`Exchange`] run by the generic driver. Full stat is the same
//! single round trip as basic stat (a padded request, a longer reply) and also carries the
//! version and plugins, so basic stat is never used.
//!
//! Latency is the stat round trip: the handshake is skipped in steady state, so timing it
//! would make latency jump whenever the token is refreshed. How long a remembered token is
//! trusted: [`Memory`] (docs/protocols/minecraft-query.md, "What the exporter does").

use std::time::{Duration, Instant};

use serde_json::{json, Map};

use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::{random_u32, share};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::gamespy3::View;
use crate::protocol::minecraft::query as mcq;
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// How long a learned token lifetime ([`Memory::stale_after`]) holds before an older token
/// is tried again: a stat lost on the way is indistinguishable from an ignored token, and
/// this bounds what one loss costs (handshakes first for ten minutes) as well as what a
/// server that really drops tokens costs (one stale try, a third of the budget, per ten
/// minutes).
pub const RELEARN: Duration = Duration::from_secs(600);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing asked yet: decide whether the remembered token is worth a try.
    Start,
    /// Full stat with the remembered token.
    Remembered,
    Handshake,
    Stat,
}

/// What one poll leaves for the next, so that steady-state polls skip the handshake.
///
/// How long a token lives is the server's choice. Vanilla 1.13 and later never drops one
/// (its pruning compares a token's wall-clock birth with a monotonic clock, so nothing is
/// ever "before" it), vanilla 1.12 and older drop every token every 30 s (a token lives 0 to
/// 30 s), other servers do as they like, and a server that has dropped a token ignores a
/// stat carrying it. So a remembered token is tried whatever its age until the server has
/// ignored one; from then on, tokens at least as old as the youngest one ignored are
/// refreshed before asking (a handshake first, no wait for silence), for [`RELEARN`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// (session id, token) from the last handshake.
    pub token: Option<(i32, i32)>,
    /// When that token was issued.
    pub token_at: Option<Instant>,
    /// Our local UDP port when the token was issued: servers tie tokens to the client's
    /// address and port, so a token is only tried from the same port (the shared socket's,
    /// which stays).
    pub local_port: Option<u16>,
    /// The youngest age at which a remembered token went unanswered, and when that was.
    pub stale_after: Option<(Duration, Instant)>,
}

impl Memory {
    /// The learned token lifetime, while it holds at `now`.
    fn lifetime(&self, now: Instant) -> Option<Duration> {
        self.stale_after
            .filter(|(_, seen)| now.saturating_duration_since(*seen) < RELEARN)
            .map(|(age, _)| age)
    }

    /// A token of `age` went unanswered at `now`: the lifetime is at most that.
    fn ignored(&mut self, age: Duration, now: Instant) {
        let age = self.lifetime(now).map_or(age, |known| known.min(age));
        self.stale_after = Some((age, now));
    }
}

/// The Minecraft Query dialogue as a state machine.
#[derive(Debug)]
pub struct McQuery {
    params: Params,
    memory: Memory,
    /// Our local port on this poll's socket.
    local_port: Option<u16>,
    deadline: Instant,
    /// When the first step began (a remembered token's age is taken then).
    started: Instant,
    phase: Phase,
    ask: Option<Ask>,
    session_id: i32,
    token: i32,
    result: Option<Result<Status, Error>>,
}

impl McQuery {
    /// A poll until `deadline` from local port `local_port`, with what the last poll left.
    pub fn new(
        params: Params,
        memory: Memory,
        local_port: Option<u16>,
        deadline: Instant,
    ) -> McQuery {
        McQuery {
            params,
            memory,
            local_port,
            deadline,
            started: deadline,
            phase: Phase::Start,
            ask: None,
            session_id: 0,
            token: 0,
            result: None,
        }
    }

    /// What to remember for the next poll.
    pub fn memory(&self) -> Memory {
        self.memory
    }

    fn start(&mut self, now: Instant) {
        let until = match self.phase {
            Phase::Start => {
                self.started = now;
                let s = &self.memory;
                let lifetime = s.lifetime(now);
                let remembered = s.token.filter(|_| {
                    s.local_port == self.local_port
                        && s.token_at.is_some_and(|at| {
                            lifetime.is_none_or(|l| now.saturating_duration_since(at) < l)
                        })
                });
                let Some((id, token)) = remembered else {
                    self.memory.token = None;
                    self.phase = Phase::Handshake;
                    return;
                };
                (self.session_id, self.token) = (id, token);
                self.phase = Phase::Remembered;
                // A server that has rotated the token drops the stat silently: give it a
                // third of the time, then refresh the token once.
                share(now, self.deadline, 3)
            }
            Phase::Handshake => {
                self.session_id = mcq::mask_session(random_u32() as i32);
                self.deadline
            }
            Phase::Remembered | Phase::Stat => self.deadline,
        };
        self.ask = Some(Ask::new(until));
    }

    fn encode(&self, out: &mut Vec<u8>) -> &'static str {
        out.clear();
        match self.phase {
            Phase::Handshake => {
                mcq::encode_handshake(self.session_id, out);
                "Query handshake"
            }
            _ => {
                mcq::encode_full_stat(self.session_id, self.token, out);
                "Query full stat"
            }
        }
    }

    fn answered(&mut self, now: Instant, rtt: Duration, bytes: &[u8]) -> Result<(), Error> {
        if self.phase == Phase::Handshake {
            self.token = mcq::decode_handshake(bytes, self.session_id)?;
            self.memory.token = Some((self.session_id, self.token));
            self.memory.token_at = Some(now);
            self.memory.local_port = self.local_port;
            self.ask = None;
            self.phase = Phase::Stat;
            return Ok(());
        }
        let names = self.params.players || self.params.detail;
        let f = mcq::view_full_stat_keeping(bytes, self.session_id, names)?;
        self.result = Some(to_status(&self.params, &f, rtt));
        Ok(())
    }

    /// The step failed at `now`: a remembered token that got no answer is refreshed once
    /// (and its age learned as the server's token lifetime); anything else fails the poll.
    fn failed(&mut self, now: Instant, e: Error) {
        self.ask = None;
        if self.phase == Phase::Remembered && e.unanswered() {
            if let Some(at) = self.memory.token_at {
                // The age it had when it was sent: this poll's start.
                let age = self.started.saturating_duration_since(at);
                self.memory.ignored(age, now);
            }
            self.memory.token = None;
            self.phase = Phase::Handshake;
        } else {
            self.result = Some(Err(e));
        }
    }
}

impl Exchange for McQuery {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.result.take() {
                Some(Ok(status)) => return Step::Done(status),
                Some(Err(e)) => return Step::Failed(e),
                None => {}
            }
            let Some(ask) = &mut self.ask else {
                self.start(now);
                continue;
            };
            match ask.next(now) {
                Next::Send => return Step::Send(self.encode(out)),
                Next::Wait(step) => return step,
                Next::Expired(e) => self.failed(now, e),
            }
        }
    }

    /// Datagrams for another session are skipped; any other error fails the step.
    fn handle(&mut self, now: Instant, input: Input<'_>) {
        if self.ask.is_none() {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => match self.answered(now, rtt, bytes) {
                Ok(()) => {}
                Err(e) if matches!(e.decode(), Some(DecodeError::Mismatch(_))) => {
                    if let Some(ask) = &mut self.ask {
                        ask.foreign();
                    }
                }
                Err(e) => self.failed(now, e),
            },
            Input::Closed => self.failed(now, LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.failed(now, e.into()),
        }
    }
}

/// Normalizes a full stat reply, read in place: the status decodes its four texts and the
/// two counts; the rules, player names and extras only when asked for (extras are for the
/// `query` command, `detail`: the daemon publishes none).
fn to_status(req: &Params, f: &View<'_>, latency: Duration) -> Result<Status, Error> {
    let count = |key: &'static str| -> Result<u32, Error> {
        f.get(key)
            .map(|v| mcq::shown_bytes(v).trim().parse::<u32>())
            .transpose()
            .map(Option::unwrap_or_default)
            .map_err(|_| DecodeError::Invalid(key).into())
    };
    let online = count("numplayers")?;
    let max = count("maxplayers")?;
    let text = |key: &str| f.get(key).map(|v| mcq::shown_bytes(v).into_owned());
    let mut extras = Map::new();
    if req.detail {
        for (key, name) in [
            ("game_id", "game_id"),
            ("plugins", "plugins"),
            ("hostip", "host_ip"),
        ] {
            if let Some(v) = text(key) {
                extras.insert(name.into(), json!(v));
            }
        }
        // A number, as basic stat carries it; a value that is not a port is left out.
        if let Some(port) = text("hostport").and_then(|v| v.trim().parse::<u16>().ok()) {
            extras.insert("host_port".into(), json!(port));
        }
    }
    Ok(Status {
        online,
        max,
        // The first `hostname` is the MOTD; vanilla adds a second one holding the host ip.
        name: text("hostname").unwrap_or_default(),
        map: text("map"),
        game: text("gametype"),
        version: text("version"),
        latency,
        players: (req.players || req.detail).then(|| {
            (0..f.players.rows())
                .map(|i| Player {
                    name: mcq::shown_bytes(f.players.get(i, "player_").unwrap_or_default())
                        .into_owned(),
                    ..Player::default()
                })
                .collect()
        }),
        rules: (req.rules || req.detail).then(|| {
            f.info
                .iter()
                .map(|(k, v)| (mcq::decode_text(k), mcq::shown_bytes(v).into_owned()))
                .collect()
        }),
        extras,
        ..Status::default()
    })
}
