//! The A2S dialogue: A2S_INFO (answering challenges), then optionally A2S_PLAYER and A2S_RULES.
//!
//! A sans-IO [`Exchange`] run by the generic driver:
//!
//! - One connected UDP socket per poll, or in steady state a registration on the daemon's
//!   shared socket ([`crate::net::udp::UdpMux`]): either way only datagrams from the server's
//!   exact address and port reach the decoders, so a decoy from a wrong port is ignored.
//! - Steady state is one round trip: the challenge the server last issued is remembered
//!   between polls ([`A2s::challenge`], kept by the caller) and appended to the first
//!   A2S_INFO. With players asked for, the list's challenge is known too (the info one, or
//!   [`A2s::list_challenge`] remembered from the last list for servers that challenge only
//!   the lists), so A2S_PLAYER is pipelined: sent ahead of A2S_INFO in the same batch
//!   ([`Step::SendAhead`]), its reply accepted whenever it comes while info is awaited.
//!   Both replies then usually arrive in one receive batch: one wake-up per poll instead of
//!   two round trips. If the list has not come when info has, the players step runs as
//!   before (asks again, with its share of the time). A challenge while both are out: when
//!   A2S_INFO carried none it answers the list request (players are then asked the
//!   sequential way with it); else it is info's new challenge, and one repeat of it is the
//!   other request's answer to the same stale challenge, not a challenge round. Caveats of
//!   not knowing which request a datagram answers: a reply above a cap while both are out
//!   is taken for the list (`players_error` `too_large`; info is still awaited), and an
//!   info timeout while a split list is under way reads `incomplete`.
//! - `latency` is the round trip of the final A2S_INFO (the one the info reply answered,
//!   reassembly included), counted from its last copy when the channel had to resend it;
//!   DNS and challenge rounds are not counted.
//! - Garbage (short datagrams, zeros, undecodable or unsolicited replies) is skipped while
//!   waiting, because a real reply may still follow. When the deadline passes the reason says
//!   what was seen: `incomplete` if a split reply was under way, `malformed` if only garbage
//!   came, `timeout` if nothing came. A reply above a cap (`too_large`) ends the poll at once:
//!   waiting longer cannot make it smaller.
//! - Players and rules are best effort (Rust, CS:GO and Conan Exiles never answer them): each
//!   gets an equal share of the time left, and a failure is noted in extras
//!   (`players_error`, `rules_error`) instead of failing the poll.
//! - With `Params::detail`, an A2A_PING is tried too (most Source servers ignore it); its
//!   outcome only lands in extras.

use std::time::Duration;

use std::time::Instant;

use serde_json::{json, Map, Value};

use crate::protocol::a2s::{self, split, Info, Reply, NO_CHALLENGE};
use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::tools::{note, share, Challenges};
use crate::protocol::exchange::{debug, Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The steps of an A2S poll, in order; the optional ones are skipped when not asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Info,
    Players,
    Rules,
    Ping,
    Finished,
}

/// The A2S_PLAYER pipelined ahead of A2S_INFO, and what became of it.
#[derive(Debug, Default)]
enum Ahead {
    /// Not sent this poll (no players asked for, no list challenge known).
    #[default]
    NotSent,
    /// Sent; no list yet.
    Out,
    /// Answered before info was: the list, or why it could not be read.
    Got(Result<Vec<a2s::Player>, Error>),
    /// Answered with a new challenge: players are asked the sequential way, with it.
    Rechallenged,
}

/// The A2S dialogue as a state machine.
#[derive(Debug)]
pub struct A2s {
    params: Params,
    /// The challenge the server last issued for A2S_INFO: given by the caller, kept up to
    /// date here, read back after the poll.
    challenge: Option<[u8; 4]>,
    deadline: Instant,
    phase: Phase,
    /// The current step's request and wait; `None` until the phase starts.
    ask: Option<Ask>,
    challenges: Challenges,
    /// The challenge A2S_PLAYER and A2S_RULES send (the info one when there is one).
    list_challenge: [u8; 4],
    /// The challenge the last list needed, for servers that challenge only the lists: given
    /// by the caller, kept up to date here, read back after the poll.
    known_list: Option<[u8; 4]>,
    ahead: Ahead,
    /// A challenge taken as info's arrived while both requests were out: one repeat of it
    /// answers the other request (the same stale challenge), and is not a challenge round.
    echo: bool,
    reassembler: split::Reassembler,
    status: Status,
    latency: Duration,
    failed: Option<Error>,
}

impl A2s {
    /// A poll until `deadline`, starting with the challenge remembered from the last one.
    pub fn new(params: Params, challenge: Option<[u8; 4]>, deadline: Instant) -> A2s {
        let limits = params.limits;
        A2s {
            params,
            challenge,
            deadline,
            phase: Phase::Info,
            ask: None,
            challenges: Challenges::new(limits.max_challenges),
            list_challenge: NO_CHALLENGE,
            known_list: None,
            ahead: Ahead::NotSent,
            echo: false,
            reassembler: split::Reassembler::new(split::Limits {
                max_packets: limits.max_split_packets,
                max_bytes: limits.reply_cap(),
            }),
            status: Status::default(),
            latency: Duration::ZERO,
            failed: None,
        }
    }

    /// The challenge to remember for the next poll (kept in [`Memory`]).
    pub fn challenge(&self) -> Option<[u8; 4]> {
        self.challenge
    }

    /// Starts with the list challenge remembered from the last poll ([`Memory::list_challenge`]).
    pub fn with_list_challenge(mut self, list: Option<[u8; 4]>) -> A2s {
        self.known_list = list;
        self
    }

    /// The list challenge to remember for the next poll (kept in [`Memory`]).
    pub fn list_challenge(&self) -> Option<[u8; 4]> {
        self.known_list
    }

    /// The challenge a list request sends: the info one, else the last list's.
    fn list_guess(&self) -> Option<[u8; 4]> {
        self.challenge.or(self.known_list)
    }

    /// Whether the next send of A2S_INFO takes A2S_PLAYER along: only the first one of a
    /// poll, before any challenge, with players asked for and their challenge known.
    fn pipelines(&self) -> bool {
        self.phase == Phase::Info
            && self.params.players
            && matches!(self.ahead, Ahead::NotSent)
            && self.challenges.seen() == 0
            && self.list_guess().is_some()
    }

    /// Starts the current phase at `now`, or moves past it when it is not wanted.
    fn start(&mut self, now: Instant) {
        if self.phase == Phase::Players && self.params.players {
            match std::mem::take(&mut self.ahead) {
                // The pipelined list came with (or before) info: no players step.
                Ahead::Got(result) => {
                    let result = result.map(|ps| self.got_players(ps));
                    return self.end(result);
                }
                Ahead::Out => self.ahead = Ahead::Out,
                Ahead::NotSent | Ahead::Rechallenged => {}
            }
        }
        let until = match self.phase {
            Phase::Info => self.deadline,
            Phase::Players if !self.params.players => return self.phase = Phase::Rules,
            Phase::Rules if !self.params.rules => return self.phase = Phase::Ping,
            Phase::Ping if !self.params.detail => return self.phase = Phase::Finished,
            // Players and rules are best effort: each gets an equal share of the time left.
            Phase::Players => share(now, self.deadline, 1 + usize::from(self.params.rules)),
            Phase::Rules => share(now, self.deadline, 1),
            // A short slice: a server that ignores pings must not make `query` wait long.
            Phase::Ping => self
                .deadline
                .min(now + (self.latency * 4).max(Duration::from_millis(200))),
            Phase::Finished => return,
        };
        if self.phase != Phase::Info {
            // A new exchange: what went wrong in the previous one is not this one's failure,
            // except fragments of a pipelined list still under way: the same list.
            if !matches!(self.ahead, Ahead::Out) {
                self.reassembler.discard_pending();
            }
            self.ahead = Ahead::NotSent;
            self.challenges = Challenges::new(self.params.limits.max_challenges);
            self.list_challenge = self.list_guess().unwrap_or(NO_CHALLENGE);
        }
        self.ask = Some(Ask::new(until));
    }

    /// Ends the current phase: a failed info fails the poll, a failed extra is noted.
    fn end(&mut self, result: Result<(), Error>) {
        self.ask = None;
        let (next, key) = match self.phase {
            Phase::Info => (Phase::Players, None),
            Phase::Players => (Phase::Rules, Some("players_error")),
            Phase::Rules => (Phase::Ping, Some("rules_error")),
            Phase::Ping | Phase::Finished => (Phase::Finished, Some("ping_error")),
        };
        match (result, key) {
            (Err(e), None) => self.failed = Some(e),
            (Err(e), Some(key)) => note(&mut self.status.extras, key, &e),
            (Ok(()), _) => {}
        }
        self.phase = next;
    }

    /// Writes the current phase's request; the label tells the observer which, and whether
    /// it answers a challenge.
    fn encode(&self, out: &mut Vec<u8>) -> &'static str {
        out.clear();
        let rechallenged = self.challenges.seen() > 0;
        match self.phase {
            Phase::Info => {
                a2s::encode_info_request(self.challenge, out);
                if rechallenged {
                    "A2S_INFO with the new challenge"
                } else {
                    "A2S_INFO"
                }
            }
            Phase::Players => {
                a2s::encode_player_request(self.list_challenge, out);
                if rechallenged {
                    "A2S_PLAYER with the new challenge"
                } else {
                    "A2S_PLAYER"
                }
            }
            Phase::Rules => {
                a2s::encode_rules_request(self.list_challenge, out);
                if rechallenged {
                    "A2S_RULES with the new challenge"
                } else {
                    "A2S_RULES"
                }
            }
            Phase::Ping | Phase::Finished => {
                a2s::encode_ping_request(out);
                "A2A_PING"
            }
        }
    }

    /// A challenge instead of the reply: ask again with it, within the bound.
    fn challenged(&mut self, c: [u8; 4]) {
        if let Err(e) = self.challenges.another() {
            return self.end(Err(e));
        }
        if self.phase == Phase::Info {
            self.challenge = Some(c);
        } else {
            self.list_challenge = c;
            if self.challenge.is_none() {
                self.known_list = Some(c);
            }
        }
        if let Some(ask) = &mut self.ask {
            ask.send_again();
        }
    }

    /// A challenge while the pipelined A2S_PLAYER and A2S_INFO are both out: whose is it?
    fn challenged_ahead(&mut self, c: [u8; 4]) {
        if std::mem::take(&mut self.echo) && self.challenge == Some(c) {
            return;
        }
        if self.challenge.is_none() && self.known_list.is_some_and(|k| k != c) {
            // A2S_INFO went without one: this answers the list request. Players are asked
            // the sequential way, with it, once info is in.
            self.known_list = Some(c);
            self.ahead = Ahead::Rechallenged;
            return;
        }
        self.echo = true;
        self.challenged(c);
    }

    /// A player list arrived: into the status.
    fn got_players(&mut self, ps: Vec<a2s::Player>) {
        self.status.online = true_count(self.status.online, ps.len());
        self.status.players = Some(ps.into_iter().map(to_player).collect());
    }

    fn reply(&mut self, reply: Reply, rtt: Duration) {
        let ahead = matches!(self.ahead, Ahead::Out);
        match (self.phase, reply) {
            (Phase::Info, Reply::Players(ps)) if ahead => self.ahead = Ahead::Got(Ok(ps)),
            (Phase::Info, Reply::Challenge(c)) if ahead => self.challenged_ahead(c),
            (Phase::Info, Reply::Info(info)) => {
                self.latency = rtt;
                self.status = to_status(info, rtt, self.params.detail);
                self.end(Ok(()));
            }
            (Phase::Players, Reply::Players(ps)) => {
                if self.challenge.is_none() {
                    // What this server's lists take (even no challenge): pipelined next time.
                    self.known_list = Some(self.list_challenge);
                }
                self.got_players(ps);
                self.end(Ok(()));
            }
            (Phase::Rules, Reply::Rules(rules)) => {
                self.status.rules = Some(rules);
                self.end(Ok(()));
            }
            (Phase::Ping, Reply::Ping(_)) => {
                self.status
                    .extras
                    .insert("ping_seconds".into(), json!(rtt.as_secs_f64()));
                self.end(Ok(()));
            }
            (Phase::Info | Phase::Players | Phase::Rules, Reply::Challenge(c)) => {
                self.challenged(c)
            }
            (phase, _) => self.garbage(DecodeError::Mismatch(match phase {
                Phase::Info => "expected an info reply",
                Phase::Ping => "expected a ping reply",
                _ => "unsolicited reply type",
            })),
        }
    }

    /// Garbage is skipped while waiting, because a real reply may still follow.
    fn garbage(&mut self, e: DecodeError) {
        debug!(error = %e, "a2s: ignoring datagram");
        if let Some(ask) = &mut self.ask {
            ask.garbage(e);
        }
    }
}

impl Exchange for A2s {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            if let Some(e) = self.failed.take() {
                return Step::Failed(e);
            }
            if self.phase == Phase::Finished {
                return Step::Done(std::mem::take(&mut self.status));
            }
            let pipelines = self.pipelines();
            let Some(ask) = &mut self.ask else {
                self.start(now);
                continue;
            };
            match ask.next(now) {
                Next::Send if pipelines => {
                    // A2S_PLAYER first: servers answer in order, so the list is usually in
                    // before info, and the poll ends with info's reply.
                    ask.send_again();
                    self.ahead = Ahead::Out;
                    out.clear();
                    a2s::encode_player_request(self.list_guess().unwrap_or(NO_CHALLENGE), out);
                    return Step::SendAhead("A2S_PLAYER (pipelined)");
                }
                Next::Send => return Step::Send(self.encode(out)),
                Next::Wait(step) => return step,
                Next::Expired(e) => {
                    // What was seen decides the reason: a split under way is `incomplete`.
                    let e = if self.reassembler.is_pending() {
                        Error::SplitIncomplete
                    } else {
                        e
                    };
                    self.end(Err(e));
                }
            }
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.ask.is_none() {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => match self.reassembler.handle_datagram(bytes) {
                Ok(Some(msg)) => match a2s::decode_reply(&msg) {
                    Ok(reply) => self.reply(reply, rtt),
                    Err(e) => self.garbage(e),
                },
                Ok(None) => {}
                // While the pipelined list is out, it is taken for the list (the bigger reply);
                // info is still awaited.
                Err(e @ DecodeError::TooLarge { .. }) if matches!(self.ahead, Ahead::Out) => {
                    self.ahead = Ahead::Got(Err(e.into()))
                }
                // A reply above a cap ends the step at once: waiting cannot make it smaller.
                Err(e @ DecodeError::TooLarge { .. }) => self.end(Err(e.into())),
                Err(e) => self.garbage(e),
            },
            Input::Closed => self.end(Err(LinkError::Closed { received: 0 }.into())),
            Input::Failed(e) => self.end(Err(e.into())),
        }
    }
}

fn to_player(p: a2s::Player) -> Player {
    Player {
        name: p.name,
        id: None,
        score: Some(p.score.into()),
        duration: Some(p.duration),
        ping: None,
    }
}

/// The one-byte count saturates at 255: a longer player list is the truer number. Below
/// that the count stands (lists may hold players still connecting, or lag a poll behind).
fn true_count(online: u32, listed: usize) -> u32 {
    let listed = u32::try_from(listed).unwrap_or(u32::MAX);
    if online >= u32::from(u8::MAX) && listed > online {
        listed
    } else {
        online
    }
}

/// Rust reports true counts in keywords (`cp<n>` current players, `mp<n>` max players,
/// `qp<n>` players queued to join), where the one-byte fields saturate.
fn keyword_count(keywords: &str, prefix: &str) -> Option<u32> {
    keywords
        .split(',')
        .filter_map(|k| k.trim().strip_prefix(prefix))
        .find_map(|n| n.parse().ok())
}

/// Normalizes an info reply. The extras map is built only with `detail` (the `query`
/// command): the daemon never reads it, and building a dozen JSON entries on every poll was a
/// measurable part of the steady-state CPU at fleet scale.
fn to_status(info: Info, latency: Duration, detail: bool) -> Status {
    let keywords = info.keywords.as_deref().unwrap_or("");
    let online = keyword_count(keywords, "cp").unwrap_or(info.players.into());
    let max = keyword_count(keywords, "mp").unwrap_or(info.max_players.into());
    let extras = if detail {
        info_extras(&info)
    } else {
        Map::new()
    };
    Status {
        online,
        max,
        // Unknown when a GoldSrc reply ended before its bots byte: no bots gauge then.
        bots: info.bots.map(Into::into),
        queued: keyword_count(keywords, "qp"),
        version: (!info.version.is_empty()).then_some(info.version),
        name: info.name,
        map: Some(info.map),
        game: Some(info.game),
        password: Some(info.visibility),
        latency,
        players: None,
        rules: None,
        extras,
        health: None,
    }
}

fn info_extras(info: &Info) -> Map<String, Value> {
    let mut extras = Map::new();
    let mut put = |k: &str, v: Value| {
        extras.insert(k.to_string(), v);
    };
    put("engine", json!(info.engine.as_str()));
    put("protocol", json!(info.protocol));
    put("folder", json!(info.folder));
    put("server_type", json!(info.server_type.as_str()));
    put("environment", json!(info.environment.as_str()));
    if let Some(vac) = info.vac {
        put("vac", json!(vac));
    }
    if info.engine == a2s::Engine::Source {
        put("app_id", json!(info.app_id));
    }
    if let Some(a) = &info.address {
        put("address", json!(a));
    }
    if let Some(p) = info.game_port {
        put("game_port", json!(p));
    }
    // 64-bit ids as strings: JSON consumers often hold numbers as doubles.
    if let Some(id) = info.steam_id {
        put("steam_id", json!(id.to_string()));
    }
    if let Some(tv) = &info.sourcetv {
        put("sourcetv_port", json!(tv.port));
        put("sourcetv_name", json!(tv.name));
    }
    if let Some(k) = &info.keywords {
        put("keywords", json!(k));
    }
    if let Some(g) = info.game_id {
        put("game_id", json!(g.to_string()));
    }
    if let Some(s) = info.the_ship {
        put("the_ship_mode", json!(s.mode));
        put("the_ship_witnesses", json!(s.witnesses));
        put("the_ship_duration", json!(s.duration));
    }
    if let Some(m) = &info.goldsrc_mod {
        // Fields the reply ended before are left out rather than invented.
        if let Some(v) = &m.link {
            put("mod_link", json!(v));
        }
        if let Some(v) = &m.download {
            put("mod_download", json!(v));
        }
        if let Some(v) = m.version {
            put("mod_version", json!(v));
        }
        if let Some(v) = m.size {
            put("mod_size", json!(v));
        }
    }
    extras
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rust's keywords override the saturating one-byte counts; other keywords leave them.
    #[test]
    fn rust_keywords() {
        let info = Info {
            players: 255,
            max_players: 255,
            keywords: Some("biweekly,cp312,mp400,qp17,ptrak".into()),
            ..Info::default()
        };
        let s = to_status(info.clone(), Duration::ZERO, true);
        assert_eq!((s.online, s.max, s.queued), (312, 400, Some(17)));
        let info = Info {
            players: 7,
            max_players: 20,
            keywords: Some("cpx,alltalk".into()),
            ..Info::default()
        };
        let s = to_status(info.clone(), Duration::ZERO, true);
        assert_eq!((s.online, s.max, s.queued), (7, 20, None));
    }

    /// A saturated one-byte count yields to a longer list; an unsaturated one does not.
    #[test]
    fn true_counts_from_list() {
        assert_eq!(true_count(255, 300), 300);
        assert_eq!(true_count(255, 200), 255);
        assert_eq!(true_count(312, 300), 312);
        assert_eq!(true_count(20, 25), 20);
    }

    /// The Ship's fields, SourceTV and the 64-bit ids land in extras (ids as strings).
    #[test]
    fn extras() {
        let info = Info {
            app_id: 2400,
            the_ship: Some(a2s::TheShip {
                mode: 1,
                witnesses: 2,
                duration: 3,
            }),
            sourcetv: Some(a2s::SourceTv {
                port: 27020,
                name: "tv".into(),
            }),
            steam_id: Some(u64::MAX),
            game_id: Some(2400),
            version: String::new(),
            ..Info::default()
        };
        let s = to_status(info.clone(), Duration::from_millis(5), true);
        assert_eq!(s.version, None);
        assert_eq!(s.latency, Duration::from_millis(5));
        for (k, v) in [
            ("the_ship_mode", json!(1)),
            ("the_ship_witnesses", json!(2)),
            ("the_ship_duration", json!(3)),
            ("sourcetv_port", json!(27020)),
            ("sourcetv_name", json!("tv")),
            ("steam_id", json!("18446744073709551615")),
            ("game_id", json!("2400")),
            ("app_id", json!(2400)),
        ] {
            assert_eq!(s.extras[k], v, "{k}");
        }
    }
}

/// What an A2S target remembers between polls: the server's last challenge, so that steady
/// polls take one round trip.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    pub challenge: Option<[u8; 4]>,
    /// The challenge the last player list needed, for servers that challenge only the
    /// lists: with it A2S_PLAYER can be pipelined with A2S_INFO.
    pub list_challenge: Option<[u8; 4]>,
}
