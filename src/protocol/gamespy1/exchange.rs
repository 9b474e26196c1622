//! The GameSpy 1 dialogue on the shared [`Exchange`] trait: one `\status\`, then datagrams
//! collected until the reply is whole (every numbered part up to the `\final\` one, or
//! netPanzer's single bare datagram), a cap is hit or the deadline passes.
//!
//! `\status\` is sent whatever the poll asks for: it is the one request every GameSpy 1 server
//! answers (netPanzer answers nothing else), and it carries counts, players and rules in one
//! reply. Latency is the round trip to the reply's first datagram.
//!
//! Failures: nothing at all is `timeout`; only parts of another reply (a late answer to an
//! earlier poll) is `mismatch`; parts that came without the rest is `incomplete`
//! ([`Error::SplitIncomplete`]); a datagram that does not decode is `malformed` at once; a cap
//! (parts, part number, bytes, pairs) is `too_large` at once.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::map::{to_status, Want};
use super::packet::{decode_packet, Packet};
use super::reply::{decode_reply, Reply};
use super::{encode_request, DecodeError, Query, MAX_PAIRS, MAX_PARTS, MAX_REPLY_BYTES};
use crate::protocol::exchange::ask::{Ask, Next};
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};
use crate::status::Status;

/// Caps on one reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Datagrams (numbered or not); a part number above this is refused too.
    pub max_parts: usize,
    /// Bytes, all datagrams together.
    pub max_bytes: usize,
    /// Key/value pairs, all datagrams together.
    pub max_pairs: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_parts: MAX_PARTS,
            max_bytes: MAX_REPLY_BYTES,
            max_pairs: MAX_PAIRS,
        }
    }
}

impl Limits {
    /// The protocol's caps, the byte cap lowered to the target's `max_reply_bytes`.
    pub fn of(params: &Params) -> Limits {
        Limits {
            max_bytes: MAX_REPLY_BYTES.min(params.limits.reply_cap()),
            ..Limits::default()
        }
    }
}

/// One poll of one GameSpy 1 server.
#[derive(Debug)]
pub struct Gamespy1 {
    want: Want,
    ask: Ask,
    parts: Parts,
    /// The round trip to the first datagram of our reply.
    latency: Option<Duration>,
    result: Option<Result<Status, Error>>,
}

impl Gamespy1 {
    /// A `\status\` poll answered until `deadline`.
    pub fn new(params: Params, deadline: Instant) -> Gamespy1 {
        Gamespy1::with_limits(params, Limits::of(&params), deadline)
    }

    /// As [`Gamespy1::new`] with other caps (tests).
    pub fn with_limits(params: Params, limits: Limits, deadline: Instant) -> Gamespy1 {
        Gamespy1 {
            want: Want {
                detail: params.detail,
                players: params.players,
                rules: params.rules,
            },
            ask: Ask::new(deadline),
            parts: Parts::new(limits),
            latency: None,
            result: None,
        }
    }
}

impl Exchange for Gamespy1 {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        match self.result.take() {
            Some(Ok(status)) => return Step::Done(status),
            Some(Err(e)) => return Step::Failed(e),
            None => {}
        }
        match self.ask.next(now) {
            Next::Send => {
                out.clear();
                encode_request(Query::Status, out);
                Step::Send("\\status\\")
            }
            Next::Wait(step) => step,
            // Parts of our reply came, not all: what was lost is the reply's rest.
            Next::Expired(_) if self.parts.received() > 0 => {
                self.parts.clear();
                Step::Failed(Error::SplitIncomplete)
            }
            Next::Expired(e) => Step::Failed(e),
        }
    }

    fn handle(&mut self, _now: Instant, input: Input<'_>) {
        if self.result.is_some() {
            return;
        }
        let (bytes, rtt) = match input {
            Input::Received { bytes, rtt } => (bytes, rtt),
            Input::Closed => {
                self.result = Some(Err(LinkError::Closed { received: 0 }.into()));
                return;
            }
            Input::Failed(e) => {
                self.result = Some(Err(e.into()));
                return;
            }
        };
        match self.parts.take(bytes) {
            Ok(Taken::Stale) => self.ask.foreign(),
            Ok(Taken::More) => {
                self.latency.get_or_insert(rtt);
            }
            Ok(Taken::Whole(reply)) => {
                let latency = *self.latency.get_or_insert(rtt);
                self.result = Some(Ok(to_status(&reply, self.want, latency)));
            }
            Err(e) => {
                self.parts.clear();
                self.result = Some(Err(e.into()));
            }
        }
    }
}

/// What one datagram did to the reply.
#[derive(Debug)]
enum Taken {
    /// A part of another reply, or a repeat: skipped.
    Stale,
    /// Kept; parts are still missing.
    More,
    /// The reply is whole.
    Whole(Reply),
}

/// The parts of one reply collected so far, under the caps.
#[derive(Debug)]
struct Parts {
    limits: Limits,
    /// The reply's id, from its first numbered part: parts of another id are stale.
    reply_id: Option<String>,
    numbered: BTreeMap<u32, Vec<(String, String)>>,
    /// Un-numbered datagrams in arrival order (netPanzer sends exactly one).
    loose: Vec<Vec<(String, String)>>,
    /// `Some(None)`: an un-numbered datagram said final; `Some(Some(n))`: part `n` did.
    final_seen: Option<Option<u32>>,
    bytes: usize,
    pairs: usize,
}

impl Parts {
    fn new(limits: Limits) -> Parts {
        Parts {
            limits,
            reply_id: None,
            numbered: BTreeMap::new(),
            loose: Vec::new(),
            final_seen: None,
            bytes: 0,
            pairs: 0,
        }
    }

    fn received(&self) -> usize {
        self.numbered.len() + self.loose.len()
    }

    fn clear(&mut self) {
        self.numbered.clear();
        self.loose.clear();
    }

    fn take(&mut self, datagram: &[u8]) -> Result<Taken, DecodeError> {
        let Packet {
            pairs,
            query_id,
            is_final,
        } = decode_packet(datagram)?;
        match query_id {
            Some(q) => {
                if *self.reply_id.get_or_insert_with(|| q.id.clone()) != q.id
                    || self.numbered.contains_key(&q.part)
                {
                    return Ok(Taken::Stale);
                }
                if q.part as usize > self.limits.max_parts {
                    return Err(too_large(
                        "reply part number",
                        q.part as usize,
                        self.limits.max_parts,
                    ));
                }
                self.count(datagram.len(), pairs.len())?;
                self.numbered.insert(q.part, pairs);
                if is_final {
                    self.final_seen = Some(Some(q.part));
                }
            }
            None => {
                self.count(datagram.len(), pairs.len())?;
                self.loose.push(pairs);
                if is_final && self.final_seen.is_none() {
                    self.final_seen = Some(None);
                }
            }
        }
        if !self.complete() {
            return Ok(Taken::More);
        }
        // The usual reply is one datagram: its pairs are the reply, not copied first.
        if self.numbered.len() + self.loose.len() == 1 {
            let only = match self.numbered.pop_first() {
                Some((_, p)) => p,
                None => self.loose.pop().unwrap_or_default(),
            };
            return Ok(Taken::Whole(decode_reply(only)));
        }
        let mut merged = Vec::with_capacity(self.pairs);
        for (_, p) in std::mem::take(&mut self.numbered) {
            merged.extend(p);
        }
        for p in std::mem::take(&mut self.loose) {
            merged.extend(p);
        }
        Ok(Taken::Whole(decode_reply(merged)))
    }

    fn count(&mut self, bytes: usize, pairs: usize) -> Result<(), DecodeError> {
        let parts = self.received() + 1;
        if parts > self.limits.max_parts {
            return Err(too_large("reply datagrams", parts, self.limits.max_parts));
        }
        self.bytes += bytes;
        if self.bytes > self.limits.max_bytes {
            return Err(too_large("reply bytes", self.bytes, self.limits.max_bytes));
        }
        self.pairs += pairs;
        if self.pairs > self.limits.max_pairs {
            return Err(too_large("reply pairs", self.pairs, self.limits.max_pairs));
        }
        Ok(())
    }

    /// A final came, and every numbered part up to the last one known is here: the final's
    /// number, or when the final was un-numbered the highest number seen.
    fn complete(&self) -> bool {
        let last = match self.final_seen {
            None => return false,
            Some(Some(n)) => n,
            Some(None) => self.numbered.keys().next_back().copied().unwrap_or(0),
        };
        (1..=last).all(|n| self.numbered.contains_key(&n))
    }
}

fn too_large(what: &'static str, value: usize, limit: usize) -> DecodeError {
    DecodeError::TooLarge {
        what,
        value: value as u64,
        limit: limit as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::super::packet::{encode_reply, Style};
    use super::*;
    use crate::status::Reason;
    use proptest::prelude::*;

    const T: Duration = Duration::from_secs(2);

    fn pairs(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| (format!("key{i}"), format!("value{i}")))
            .collect()
    }

    /// Sends the request, feeds `datagrams` at the start, then lets the deadline pass.
    fn run(datagrams: &[Vec<u8>], limits: Limits) -> Result<Status, Error> {
        let t0 = Instant::now();
        let params = Params {
            rules: true,
            ..Params::default()
        };
        let mut x = Gamespy1::with_limits(params, limits, t0 + T);
        let mut out = Vec::new();
        assert!(matches!(x.poll(t0, &mut out), Step::Send("\\status\\")));
        assert_eq!(out, b"\\status\\");
        for d in datagrams {
            x.handle(
                t0,
                Input::Received {
                    bytes: d,
                    rtt: Duration::from_millis(7),
                },
            );
            match x.poll(t0, &mut out) {
                Step::Wait(until) => assert_eq!(until, t0 + T),
                Step::Done(s) => return Ok(s),
                Step::Failed(e) => return Err(e),
                other => panic!("{other:?}"),
            }
        }
        match x.poll(t0 + T, &mut out) {
            Step::Done(s) => Ok(s),
            Step::Failed(e) => Err(e),
            other => panic!("{other:?}"),
        }
    }

    fn rules(r: Result<Status, Error>) -> Vec<(String, String)> {
        r.unwrap().rules.unwrap()
    }

    fn reason(r: Result<Status, Error>) -> Reason {
        r.unwrap_err().reason()
    }

    /// Parts in reverse order, with repeats, and a stale part of another reply in between,
    /// reassemble in number order; the latency is the first datagram's round trip.
    #[test]
    fn reorder_duplicates_and_stale() {
        let parts = encode_reply(&pairs(9), 5, 30, Style::Unreal);
        assert!(parts.len() >= 3);
        let mut seq: Vec<Vec<u8>> = parts.iter().rev().cloned().collect();
        seq.insert(1, parts[0].clone());
        seq.insert(1, b"\\queryid\\4.2\\stale\\yes".to_vec());
        // The last part first: it fixes the reply id, the stale one is then ignored.
        let s = run(&seq, Limits::default()).unwrap();
        assert_eq!(s.latency, Duration::from_millis(7));
        assert_eq!(s.rules.unwrap(), pairs(9));
    }

    /// netPanzer's single un-numbered datagram with `\final\` is a whole reply at once.
    #[test]
    fn single_bare_datagram() {
        let d = encode_reply(&pairs(3), 0, 10, Style::Bare);
        assert_eq!(rules(run(&d, Limits::default())), pairs(3));
    }

    /// A missing part ends `incomplete` at the deadline; silence is a `timeout`.
    #[test]
    fn missing_silent_and_stale() {
        let mut parts = encode_reply(&pairs(9), 5, 30, Style::QueryIdFirst);
        parts.remove(1);
        assert!(matches!(
            run(&parts, Limits::default()),
            Err(Error::SplitIncomplete)
        ));
        assert_eq!(reason(run(&[], Limits::default())), Reason::Timeout);
        // The first numbered part names the reply: a later part of another one is skipped.
        let ours = encode_reply(&pairs(9), 5, 30, Style::QueryIdFirst);
        let late = encode_reply(&pairs(9), 4, 30, Style::QueryIdFirst);
        assert!(matches!(
            run(&[ours[0].clone(), late[1].clone()], Limits::default()),
            Err(Error::SplitIncomplete)
        ));
    }

    /// Caps on parts, part numbers, bytes and pairs fail fast as `too_large`; a datagram that
    /// is no GameSpy reply fails as `malformed`.
    #[test]
    fn caps_and_garbage() {
        let small = Limits {
            max_parts: 2,
            max_bytes: 1000,
            max_pairs: 100,
        };
        let what = |r: Result<Status, Error>| match r {
            Err(e) => match e.decode() {
                Some(DecodeError::TooLarge { what, .. }) => *what,
                other => panic!("{other:?}"),
            },
            Ok(s) => panic!("{s:?}"),
        };
        let loose = vec![b"\\a\\b".to_vec(); 3];
        assert_eq!(what(run(&loose, small)), "reply datagrams");
        assert_eq!(
            what(run(&[b"\\queryid\\1.3\\a\\b".to_vec()], small)),
            "reply part number"
        );
        let big = encode_reply(&pairs(200), 5, 100_000, Style::Unreal);
        assert_eq!(what(run(&big, small)), "reply bytes");
        let many = encode_reply(&pairs(101), 5, 100_000, Style::Unreal);
        let limits = Limits {
            max_bytes: 100_000,
            ..small
        };
        assert_eq!(what(run(&many, limits)), "reply pairs");
        let garbage = run(&[b"\\queryid\\7.0\\final\\".to_vec()], small);
        assert_eq!(reason(garbage), Reason::Malformed);
    }

    /// The target's `max_reply_bytes` lowers the byte cap, never raises it.
    #[test]
    fn byte_cap_from_the_target() {
        let mut params = Params::default();
        params.limits.max_reply_bytes = 100;
        assert_eq!(Limits::of(&params).max_bytes, 100);
        assert_eq!(Limits::of(&Params::default()).max_bytes, MAX_REPLY_BYTES);
    }

    /// A datagram after the end changes nothing.
    #[test]
    fn after_the_end() {
        let t0 = Instant::now();
        let mut x = Gamespy1::new(Params::default(), t0 + T);
        let mut out = Vec::new();
        assert!(matches!(x.poll(t0, &mut out), Step::Send(_)));
        assert!(matches!(x.poll(t0 + T / 2, &mut out), Step::Wait(_)));
        let reply = Input::Received {
            bytes: b"\\hostname\\a\\final\\",
            rtt: Duration::ZERO,
        };
        x.handle(t0, reply);
        x.handle(t0, Input::Closed);
        match x.poll(t0, &mut out) {
            Step::Done(s) => assert_eq!(s.name, "a"),
            other => panic!("{other:?}"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Any order, with any repeats, of a split reply reassembles to the pairs sent.
        #[test]
        fn any_order(
            n in 1usize..40,
            budget in 1usize..120,
            order in proptest::collection::vec(any::<prop::sample::Index>(), 0..60),
            style in prop_oneof![Just(Style::Unreal), Just(Style::QueryIdFirst)],
        ) {
            let parts = encode_reply(&pairs(n), 3, budget, style);
            let mut seq: Vec<Vec<u8>> = order.iter().map(|i| parts[i.index(parts.len())].clone()).collect();
            seq.extend(parts.iter().cloned());
            prop_assert_eq!(rules(run(&seq, Limits::default())), pairs(n));
        }

        /// Arbitrary datagrams never panic and always end.
        #[test]
        fn noise(seq in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..10)) {
            let _ = run(&seq, Limits { max_parts: 4, max_bytes: 200, max_pairs: 20 });
        }
    }
}
