//! Minecraft Query (GameSpy4) dialogue: handshake for a token (or reuse the remembered one),
//! then full stat, as a sans-IO [`Exchange`] run by the generic driver. Full stat is the same
//! single round trip as basic stat (a padded request, a longer reply) and also carries the
//! version and plugins, so basic stat is never used.
//!
//! Latency is the stat round trip: the handshake is skipped in steady state, so timing it
//! would make latency jump whenever the token is refreshed.

use std::time::Duration;

use serde_json::{json, Map};
use tokio::time::Instant;

use super::ask::{Ask, Next};
use super::driver::{drive, Observer};
use super::exchange::{random_u32, share, Exchange, Input, Step};
use super::{registry, Error, Request, Session};
use crate::net::{self, NetError};
use crate::protocol::minecraft::query::{self as mcq, FullStat};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};
use crate::target::Protocol;

/// Servers drop tokens 30 to 60 s after issuing them; an older one is not worth a try.
const TOKEN_TRUST: Duration = Duration::from_secs(30);

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let addr = net::resolve::resolve(
        &req.address,
        Protocol::MinecraftQuery.default_port(),
        deadline,
    )
    .await?;
    // Tokens are tied to our address and port: ask for the port the token was issued to.
    let mut chan = registry::udp(Protocol::MinecraftQuery, addr, req, session).await?;
    let local_port = chan.local_port();
    let pacing = registry::entry(Protocol::MinecraftQuery).pacing();
    let mut exchange = McQuery::new(req, session, local_port, deadline);
    drive(&mut exchange, &mut chan, deadline, pacing, observer).await
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing asked yet: decide whether the remembered token is worth a try.
    Start,
    /// Full stat with the remembered token.
    Remembered,
    Handshake,
    Stat,
}

/// The Minecraft Query dialogue as a state machine.
#[derive(Debug)]
pub(super) struct McQuery<'a> {
    req: &'a Request,
    session: &'a mut Session,
    /// Our local port on this poll's socket.
    local_port: Option<u16>,
    deadline: Instant,
    phase: Phase,
    ask: Option<Ask>,
    session_id: i32,
    token: i32,
    result: Option<Result<Status, Error>>,
}

impl<'a> McQuery<'a> {
    pub(super) fn new(
        req: &'a Request,
        session: &'a mut Session,
        local_port: Option<u16>,
        deadline: Instant,
    ) -> McQuery<'a> {
        McQuery {
            req,
            session,
            local_port,
            deadline,
            phase: Phase::Start,
            ask: None,
            session_id: 0,
            token: 0,
            result: None,
        }
    }

    fn start(&mut self, now: Instant) {
        let until = match self.phase {
            Phase::Start => {
                let s = &*self.session;
                let remembered = s.query_token.filter(|_| {
                    s.query_local_port == self.local_port
                        && s.query_token_at
                            .is_some_and(|at| now.saturating_duration_since(at) < TOKEN_TRUST)
                });
                let Some((id, token)) = remembered else {
                    self.session.query_token = None;
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
            self.session.query_token = Some((self.session_id, self.token));
            self.session.query_token_at = Some(now);
            self.session.query_local_port = self.local_port;
            self.ask = None;
            self.phase = Phase::Stat;
            return Ok(());
        }
        let f = mcq::decode_full_stat(bytes, self.session_id)?;
        self.result = Some(to_status(self.req, &f, rtt));
        Ok(())
    }

    /// The step failed: a remembered token that got no answer is refreshed once; anything
    /// else fails the poll.
    fn failed(&mut self, e: Error) {
        self.ask = None;
        if self.phase == Phase::Remembered && e.unanswered() {
            self.session.query_token = None;
            self.phase = Phase::Handshake;
        } else {
            self.result = Some(Err(e));
        }
    }
}

impl Exchange for McQuery<'_> {
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
                Next::Expired(e) => self.failed(e),
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
                Err(e) => self.failed(e),
            },
            Input::Closed => self.failed(NetError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.failed(e.into()),
        }
    }
}

/// Normalizes a full stat reply.
fn to_status(req: &Request, f: &FullStat, latency: Duration) -> Result<Status, Error> {
    let mut extras = Map::new();
    let count = |key: &'static str| -> Result<u32, Error> {
        f.get(key)
            .map(|v| v.trim().parse::<u32>())
            .transpose()
            .map(Option::unwrap_or_default)
            .map_err(|_| DecodeError::Invalid(key).into())
    };
    let online = count("numplayers")?;
    let max = count("maxplayers")?;
    let text = |key: &str| f.get(key).map(str::to_string);
    for (key, name) in [
        ("game_id", "game_id"),
        ("plugins", "plugins"),
        ("hostip", "host_ip"),
    ] {
        if let Some(v) = f.get(key) {
            extras.insert(name.into(), json!(v));
        }
    }
    // A number, as basic stat carries it; a value that is not a port is left out.
    if let Some(port) = f.get("hostport").and_then(|v| v.trim().parse::<u16>().ok()) {
        extras.insert("host_port".into(), json!(port));
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
            f.players
                .iter()
                .map(|name| Player {
                    name: name.clone(),
                    ..Player::default()
                })
                .collect()
        }),
        rules: (req.rules || req.detail).then(|| f.values.clone()),
        extras,
        ..Status::default()
    })
}
