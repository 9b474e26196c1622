//! One poll as a sans-IO state machine: the requests to send, then datagrams in, until the
//! info reply is there and the rules and players have gone quiet.
//!
//! Rules and players may span several datagrams and carry no count and no end marker, so
//! the only sign that a list is complete is silence: the poll ends [`Poll::quiet_gap`] after
//! the last datagram that was ours. That gap is the price of a full list: a poll that asks
//! for rules costs the round trip plus one quiet gap, every time. Asking for players alone is
//! cheaper when the server is honest: the poll ends as soon as it holds as many players as
//! the info reply counted. Asking for neither ends with the info reply.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use super::reply::{decode_header, decode_reply, Body, Info, Player};
use super::{encode_request, Kind};
use crate::protocol::DecodeError;

/// Default silence that ends the lists: servers send a list's datagrams back to back, so a
/// gap of this size on loopback or a LAN means the list is over; on a long path with jitter
/// a bigger gap trades poll time for completeness.
pub const DEFAULT_QUIET_GAP: Duration = Duration::from_millis(150);
/// Most players kept: UE2 servers hold at most a few dozen.
pub const MAX_PLAYERS: usize = 256;
/// Most rules kept.
pub const MAX_RULES: usize = 256;
/// Most datagrams one poll reads, ours or not.
pub const MAX_DATAGRAMS: usize = 64;

/// What the caller wants beyond the info reply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    pub rules: bool,
    pub players: bool,
}

/// What the machine asks of its caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Feed any datagram that arrives before this instant, then ask again; ask again at it
    /// if none does.
    Wait(Instant),
    Done(Box<Outcome>),
    Failed(ExchangeError),
}

/// A finished poll.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The header's query version of the info reply.
    pub version: u32,
    pub info: Info,
    /// In arrival order; `None` when not asked for.
    pub rules: Option<Vec<(String, String)>>,
    pub players: Option<Vec<Player>>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// No info reply before the deadline.
    #[error("no Unreal 2 info reply before the deadline")]
    Timeout,
    /// A datagram of ours did not decode, or a cap was hit.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

/// One poll in progress.
#[derive(Debug, Clone)]
pub struct Poll {
    want: Want,
    deadline: Instant,
    quiet_gap: Duration,
    info: Option<(u32, Info)>,
    rules: Vec<(String, String)>,
    players: Vec<Player>,
    /// When the last datagram of ours arrived.
    last: Instant,
    datagrams: usize,
    /// Fingerprints of the datagrams taken, so a duplicated one is not counted twice.
    seen: HashSet<u64>,
    failed: Option<ExchangeError>,
}

impl Poll {
    /// Starts a poll at `now` that must end by `deadline`; returns it and the requests to
    /// send (info first, then rules and players as wanted), one datagram each.
    pub fn start(
        want: Want,
        now: Instant,
        deadline: Instant,
        quiet_gap: Duration,
    ) -> (Poll, Vec<Vec<u8>>) {
        let mut kinds = vec![Kind::Info];
        if want.rules {
            kinds.push(Kind::Rules);
        }
        if want.players {
            kinds.push(Kind::Players);
        }
        let requests = kinds
            .into_iter()
            .map(|k| {
                let mut out = Vec::with_capacity(5);
                encode_request(k, &mut out);
                out
            })
            .collect();
        let poll = Poll {
            want,
            deadline,
            quiet_gap,
            info: None,
            rules: Vec::new(),
            players: Vec::new(),
            last: now,
            datagrams: 0,
            seen: HashSet::new(),
            failed: None,
        };
        (poll, requests)
    }

    /// The silence that ends the lists.
    pub fn quiet_gap(&self) -> Duration {
        self.quiet_gap
    }

    /// Takes one datagram from the server's address. Datagrams with a foreign header and
    /// exact duplicates are ignored; one of ours that does not decode fails the poll.
    pub fn receive(&mut self, datagram: &[u8], now: Instant) {
        if self.failed.is_some() {
            return;
        }
        self.datagrams += 1;
        if self.datagrams > MAX_DATAGRAMS {
            return self.fail(too_large(
                "Unreal 2 reply datagrams",
                self.datagrams,
                MAX_DATAGRAMS,
            ));
        }
        // Too short for a header, or another header: not a reply of ours.
        if datagram.len() < 4 || matches!(decode_header(datagram), Err(DecodeError::Mismatch(_))) {
            return;
        }
        let mut h = DefaultHasher::new();
        datagram.hash(&mut h);
        if !self.seen.insert(h.finish()) {
            return;
        }
        let reply = match decode_reply(datagram) {
            Ok(r) => r,
            Err(e) => return self.fail(e),
        };
        self.last = now;
        match reply.body {
            Body::Info(info) => {
                self.info.get_or_insert((reply.version, info));
            }
            Body::Rules(rules) if self.want.rules => {
                self.rules.extend(rules);
                if self.rules.len() > MAX_RULES {
                    self.fail(too_large("Unreal 2 rules", self.rules.len(), MAX_RULES));
                }
            }
            Body::Players(players) if self.want.players => {
                self.players.extend(players);
                if self.players.len() > MAX_PLAYERS {
                    self.fail(too_large(
                        "Unreal 2 players",
                        self.players.len(),
                        MAX_PLAYERS,
                    ));
                }
            }
            Body::Rules(_) | Body::Players(_) => {}
        }
    }

    /// What to do at `now`.
    pub fn step(&self, now: Instant) -> Step {
        if let Some(e) = &self.failed {
            return Step::Failed(e.clone());
        }
        let Some((version, info)) = &self.info else {
            return if now >= self.deadline {
                Step::Failed(ExchangeError::Timeout)
            } else {
                Step::Wait(self.deadline)
            };
        };
        let counted = usize::try_from(info.players).unwrap_or(0);
        let early = !self.want.rules && (!self.want.players || self.players.len() >= counted);
        let quiet_at = (self.last + self.quiet_gap).min(self.deadline);
        if early || now >= quiet_at {
            return Step::Done(Box::new(Outcome {
                version: *version,
                info: info.clone(),
                rules: self.want.rules.then(|| self.rules.clone()),
                players: self.want.players.then(|| self.players.clone()),
            }));
        }
        Step::Wait(quiet_at)
    }

    fn fail(&mut self, e: DecodeError) {
        self.failed = Some(ExchangeError::Decode(e));
    }
}

fn too_large(what: &'static str, value: usize, limit: usize) -> DecodeError {
    DecodeError::TooLarge {
        what,
        value: value as u64,
        limit: limit as u64,
    }
}
