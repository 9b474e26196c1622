//! The GameSpy 1 dialogue as a sans-IO state machine: one request, then datagrams collected
//! until the reply is whole, a cap is hit or the deadline passes.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use super::packet::{decode_packet, Packet};
use super::reply::{decode_reply, Reply};
use super::{encode_request, DecodeError, Query, MAX_PAIRS, MAX_PARTS, MAX_REPLY_BYTES};

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

/// What the caller does next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send these bytes to the server, then keep feeding datagrams.
    Send(Vec<u8>),
    /// Wait for a datagram until this instant, then call [`Exchange::on_tick`].
    WaitUntil(Instant),
    /// The whole reply.
    Done(Reply),
    /// The exchange is over without a reply.
    Failed(ExchangeError),
}

/// Why an exchange failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExchangeError {
    /// A datagram did not decode, or a cap was hit ([`DecodeError::TooLarge`]).
    #[error(transparent)]
    Decode(#[from] DecodeError),
    /// Nothing came before the deadline.
    #[error("no reply before the deadline")]
    Timeout,
    /// Parts came, but not all of them before the deadline.
    #[error("reply incomplete: {received} part(s) received, final part {final_part:?}")]
    Incomplete {
        received: usize,
        /// The number of the `\final\` part, when it came.
        final_part: Option<u32>,
    },
}

/// One query to one server. Feed it every datagram from the server's address; it never reads
/// the clock, the caller passes `now`.
#[derive(Debug, Clone)]
pub struct Exchange {
    query: Query,
    timeout: Duration,
    limits: Limits,
    deadline: Option<Instant>,
    /// The reply's id, from its first numbered part: parts of another id are stale.
    reply_id: Option<String>,
    numbered: BTreeMap<u32, Vec<(String, String)>>,
    /// Un-numbered datagrams in arrival order (netPanzer sends exactly one).
    loose: Vec<Vec<(String, String)>>,
    /// `Some(None)`: an un-numbered datagram said final; `Some(Some(n))`: part `n` did.
    final_seen: Option<Option<u32>>,
    bytes: usize,
    pairs: usize,
    over: bool,
}

impl Exchange {
    /// `timeout` is how long after [`start`](Exchange::start) the reply must be whole.
    pub fn new(query: Query, timeout: Duration, limits: Limits) -> Exchange {
        Exchange {
            query,
            timeout,
            limits,
            deadline: None,
            reply_id: None,
            numbered: BTreeMap::new(),
            loose: Vec::new(),
            final_seen: None,
            bytes: 0,
            pairs: 0,
            over: false,
        }
    }

    /// The request to send; starts the deadline.
    pub fn start(&mut self, now: Instant) -> Step {
        self.deadline = Some(now + self.timeout);
        let mut out = Vec::new();
        encode_request(self.query, &mut out);
        Step::Send(out)
    }

    /// One datagram from the server. Stale parts (another reply id) and repeats are ignored.
    pub fn on_datagram(&mut self, datagram: &[u8], now: Instant) -> Step {
        if self.over {
            return self.on_tick(now);
        }
        match self.take(datagram) {
            Ok(Some(reply)) => self.finish(Step::Done(reply)),
            Ok(None) => self.on_tick(now),
            Err(e) => self.finish(Step::Failed(e.into())),
        }
    }

    /// Time passed without a datagram.
    pub fn on_tick(&mut self, now: Instant) -> Step {
        let deadline = match self.deadline {
            Some(d) => d,
            None => return self.start(now),
        };
        if self.over {
            return Step::Failed(ExchangeError::Timeout);
        }
        if now < deadline {
            return Step::WaitUntil(deadline);
        }
        let received = self.numbered.len() + self.loose.len();
        let error = if received == 0 {
            ExchangeError::Timeout
        } else {
            ExchangeError::Incomplete {
                received,
                final_part: self.final_seen.flatten(),
            }
        };
        self.finish(Step::Failed(error))
    }

    fn finish(&mut self, step: Step) -> Step {
        self.over = true;
        self.numbered.clear();
        self.loose.clear();
        step
    }

    fn take(&mut self, datagram: &[u8]) -> Result<Option<Reply>, DecodeError> {
        let packet = decode_packet(datagram)?;
        let Packet {
            pairs,
            query_id,
            is_final,
        } = packet;
        match query_id {
            Some(q) => {
                if *self.reply_id.get_or_insert_with(|| q.id.clone()) != q.id
                    || self.numbered.contains_key(&q.part)
                {
                    return Ok(None);
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
            return Ok(None);
        }
        let mut merged = Vec::with_capacity(self.pairs);
        for (_, p) in std::mem::take(&mut self.numbered) {
            merged.extend(p);
        }
        for p in std::mem::take(&mut self.loose) {
            merged.extend(p);
        }
        Ok(Some(decode_reply(merged)))
    }

    fn count(&mut self, bytes: usize, pairs: usize) -> Result<(), DecodeError> {
        let parts = self.numbered.len() + self.loose.len() + 1;
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
    use proptest::prelude::*;

    const T: Duration = Duration::from_secs(2);

    fn pairs(n: usize) -> Vec<(String, String)> {
        (0..n)
            .map(|i| (format!("key{i}"), format!("value{i}")))
            .collect()
    }

    fn run(datagrams: &[Vec<u8>], limits: Limits) -> Step {
        let t0 = Instant::now();
        let mut x = Exchange::new(Query::Status, T, limits);
        assert_eq!(x.start(t0), Step::Send(b"\\status\\".to_vec()));
        let mut last = Step::WaitUntil(t0 + T);
        for d in datagrams {
            last = x.on_datagram(d, t0);
            if !matches!(last, Step::WaitUntil(_)) {
                return last;
            }
        }
        assert_eq!(last, Step::WaitUntil(t0 + T));
        x.on_tick(t0 + T)
    }

    fn done_vars(step: Step) -> Vec<(String, String)> {
        match step {
            Step::Done(r) => r.vars,
            other => panic!("not done: {other:?}"),
        }
    }

    /// Parts in reverse order, with repeats, and a stale part of another reply in between,
    /// reassemble in number order.
    #[test]
    fn reorder_duplicates_and_stale() {
        let parts = encode_reply(&pairs(9), 5, 30, Style::Unreal);
        assert!(parts.len() >= 3);
        let mut seq: Vec<Vec<u8>> = parts.iter().rev().cloned().collect();
        seq.insert(1, parts[0].clone());
        seq.insert(1, b"\\queryid\\4.2\\stale\\yes".to_vec());
        // The last part first: it fixes the reply id, the stale one is then ignored.
        assert_eq!(done_vars(run(&seq, Limits::default())), pairs(9));
    }

    /// netPanzer's single un-numbered datagram with `\final\` is a whole reply at once.
    #[test]
    fn single_bare_datagram() {
        let d = encode_reply(&pairs(3), 0, 10, Style::Bare);
        assert_eq!(done_vars(run(&d, Limits::default())), pairs(3));
    }

    /// A missing part ends incomplete at the deadline; silence is a timeout.
    #[test]
    fn missing_and_silent() {
        let mut parts = encode_reply(&pairs(9), 5, 30, Style::QueryIdFirst);
        parts.remove(1);
        assert_eq!(
            run(&parts, Limits::default()),
            Step::Failed(ExchangeError::Incomplete {
                received: parts.len(),
                final_part: Some(parts.len() as u32 + 1)
            })
        );
        assert_eq!(
            run(&[], Limits::default()),
            Step::Failed(ExchangeError::Timeout)
        );
    }

    /// Caps on parts, part numbers, bytes and pairs fail fast.
    #[test]
    fn caps() {
        let small = Limits {
            max_parts: 2,
            max_bytes: 1000,
            max_pairs: 100,
        };
        let loose = vec![b"\\a\\b".to_vec(); 3];
        assert!(matches!(
            run(&loose, small),
            Step::Failed(ExchangeError::Decode(DecodeError::TooLarge {
                what: "reply datagrams",
                ..
            }))
        ));
        assert!(matches!(
            run(&[b"\\queryid\\1.3\\a\\b".to_vec()], small),
            Step::Failed(ExchangeError::Decode(DecodeError::TooLarge {
                what: "reply part number",
                ..
            }))
        ));
        let big = encode_reply(&pairs(200), 5, 100_000, Style::Unreal);
        assert!(matches!(
            run(&big, small),
            Step::Failed(ExchangeError::Decode(DecodeError::TooLarge {
                what: "reply bytes",
                ..
            }))
        ));
        let many = encode_reply(&pairs(101), 5, 100_000, Style::Unreal);
        let limits = Limits {
            max_bytes: 100_000,
            ..small
        };
        assert!(matches!(
            run(&many, limits),
            Step::Failed(ExchangeError::Decode(DecodeError::TooLarge {
                what: "reply pairs",
                ..
            }))
        ));
    }

    /// A datagram after the end changes nothing; ticks before the deadline wait.
    #[test]
    fn after_the_end() {
        let t0 = Instant::now();
        let mut x = Exchange::new(Query::Info, T, Limits::default());
        assert_eq!(x.on_tick(t0), Step::Send(b"\\info\\".to_vec()));
        assert_eq!(x.on_tick(t0 + T / 2), Step::WaitUntil(t0 + T));
        assert!(matches!(
            x.on_datagram(b"\\a\\b\\final\\", t0),
            Step::Done(_)
        ));
        assert_eq!(
            x.on_datagram(b"\\a\\b\\final\\", t0),
            Step::Failed(ExchangeError::Timeout)
        );
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
            prop_assert_eq!(done_vars(run(&seq, Limits::default())), pairs(n));
        }

        /// Arbitrary datagrams never panic and always end.
        #[test]
        fn noise(seq in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..64), 0..10)) {
            let step = run(&seq, Limits { max_parts: 4, max_bytes: 200, max_pairs: 20 });
            prop_assert!(!matches!(step, Step::Send(_) | Step::WaitUntil(_)));
        }
    }
}
