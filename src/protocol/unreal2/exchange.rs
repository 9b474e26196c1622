//! One poll on the shared [`Exchange`] trait: the requests go out back to back, then
//! datagrams come in until the info reply is there and the rules and players have gone
//! quiet.
//!
//! Rules and players may span several datagrams and carry no count and no end marker, so
//! the only sign that a list is complete is silence: the poll ends [`QUIET_GAP`] after the
//! last datagram that was ours (never past the poll's deadline). That gap is the price of a
//! full list: a poll that asks for rules costs the round trip plus one quiet gap, every
//! time. Asking for players alone is cheaper when the server is honest: the poll ends as
//! soon as it holds as many players as the info reply counted. Asking for neither ends with
//! the info reply.
//!
//! The info request goes out last, so it is the one the driver sends again while nothing
//! answers: without the info reply there is no status, while a lost list request costs only
//! that list.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::{Duration, Instant};

use super::reply::{decode_header, decode_reply, Body, Info, Player};
use super::{encode_request, to_status, Kind};
use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::DecodeError;

/// The silence that ends the lists: servers send a list's datagrams back to back, so a gap
/// of this size on loopback, a LAN or a steady WAN path means the list is over.
pub const QUIET_GAP: Duration = Duration::from_millis(150);
/// Most players kept: UE2 servers hold at most a few dozen.
pub const MAX_PLAYERS: usize = 256;
/// Most rules kept.
pub const MAX_RULES: usize = 256;
/// Most datagrams one poll reads, ours or not.
pub const MAX_DATAGRAMS: usize = 64;

/// A finished poll: what [`to_status`] normalizes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The header's query version of the info reply.
    pub version: u32,
    pub info: Info,
    /// In arrival order; `None` when not asked for.
    pub rules: Option<Vec<(String, String)>>,
    pub players: Option<Vec<Player>>,
}

/// One poll in progress.
#[derive(Debug)]
pub struct Unreal2 {
    params: Params,
    deadline: Instant,
    /// List requests not sent yet (the info request follows them, through `ask`).
    lists: Vec<Kind>,
    /// The info request and its wait.
    ask: Ask,
    /// The info reply, its header version and its round trip.
    info: Option<(u32, Info, Duration)>,
    rules: Vec<(String, String)>,
    players: Vec<Player>,
    /// When the last datagram of ours arrived.
    last: Option<Instant>,
    datagrams: usize,
    /// Fingerprints of the datagrams taken, so a duplicated one is not counted twice.
    seen: HashSet<u64>,
    failed: Option<Error>,
}

impl Unreal2 {
    /// A poll that must end by `deadline`; asks for rules and players as `params` says.
    pub fn new(params: Params, deadline: Instant) -> Unreal2 {
        let mut lists = Vec::with_capacity(2);
        // Popped from the back: rules go out first, then players, then info.
        if params.players {
            lists.push(Kind::Players);
        }
        if params.rules {
            lists.push(Kind::Rules);
        }
        Unreal2 {
            params,
            deadline,
            lists,
            ask: Ask::new(deadline),
            info: None,
            rules: Vec::new(),
            players: Vec::new(),
            last: None,
            datagrams: 0,
            seen: HashSet::new(),
            failed: None,
        }
    }

    fn take(&mut self, datagram: &[u8], rtt: Duration, now: Instant) -> Result<(), DecodeError> {
        self.datagrams += 1;
        if self.datagrams > MAX_DATAGRAMS {
            return Err(too_large(
                "Unreal 2 reply datagrams",
                self.datagrams,
                MAX_DATAGRAMS,
            ));
        }
        // Too short for a header, or another header: not a reply of ours.
        if datagram.len() < 4 || matches!(decode_header(datagram), Err(DecodeError::Mismatch(_))) {
            self.ask.foreign();
            return Ok(());
        }
        let mut h = DefaultHasher::new();
        datagram.hash(&mut h);
        if !self.seen.insert(h.finish()) {
            return Ok(());
        }
        let reply = decode_reply(datagram)?;
        self.last = Some(now);
        match reply.body {
            Body::Info(info) => {
                self.info.get_or_insert((reply.version, info, rtt));
            }
            Body::Rules(rules) if self.params.rules => {
                self.rules.extend(rules);
                if self.rules.len() > MAX_RULES {
                    return Err(too_large("Unreal 2 rules", self.rules.len(), MAX_RULES));
                }
            }
            Body::Players(players) if self.params.players => {
                self.players.extend(players);
                if self.players.len() > MAX_PLAYERS {
                    return Err(too_large(
                        "Unreal 2 players",
                        self.players.len(),
                        MAX_PLAYERS,
                    ));
                }
            }
            Body::Rules(_) | Body::Players(_) => {}
        }
        Ok(())
    }
}

impl Exchange for Unreal2 {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        if let Some(e) = self.failed.take() {
            return Step::Failed(e);
        }
        if let Some(kind) = self.lists.pop() {
            out.clear();
            encode_request(kind, out);
            return Step::Send(match kind {
                Kind::Rules => "Unreal 2 rules request",
                _ => "Unreal 2 players request",
            });
        }
        let Some((version, info, rtt)) = &self.info else {
            return match self.ask.next(now) {
                Next::Send => {
                    out.clear();
                    encode_request(Kind::Info, out);
                    Step::Send("Unreal 2 info request")
                }
                Next::Wait(step) => step,
                Next::Expired(e) => Step::Failed(e),
            };
        };
        let counted = usize::try_from(info.players).unwrap_or(0);
        let early = !self.params.rules && (!self.params.players || self.players.len() >= counted);
        let last = self.last.unwrap_or(now);
        let quiet_at = (last + QUIET_GAP).min(self.deadline);
        if early || now >= quiet_at {
            let outcome = Outcome {
                version: *version,
                info: info.clone(),
                rules: self.params.rules.then(|| std::mem::take(&mut self.rules)),
                players: self
                    .params
                    .players
                    .then(|| std::mem::take(&mut self.players)),
            };
            return Step::Done(to_status(&outcome, *rtt, self.params.detail));
        }
        Step::Wait(quiet_at)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        if self.failed.is_some() {
            return;
        }
        match input {
            Input::Received { bytes, rtt } => {
                if let Err(e) = self.take(bytes, rtt, now) {
                    self.failed = Some(e.into());
                }
            }
            Input::Closed => self.failed = Some(LinkError::Closed { received: 0 }.into()),
            Input::Failed(e) => self.failed = Some(e.into()),
        }
    }
}

fn too_large(what: &'static str, value: usize, limit: usize) -> DecodeError {
    DecodeError::TooLarge {
        what,
        value: value as u64,
        limit: limit as u64,
    }
}
