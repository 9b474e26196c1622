//! The Teeworlds info exchange as a sans-IO machine: dialect detection, resends, the 0.7
//! token handshake and DDNet's multi-packet reassembly, all driven by a `now` the caller
//! passes in.
//!
//! # Which dialect first, and why
//! The DDNet extended request goes first, alone. It is one 21-byte datagram and one round
//! trip; DDNet (most of today's servers) answers it with the full counts and every client,
//! and a plain 0.6 server reads the same datagram as its own request (the `xe` header has the
//! connectionless bit) and answers `inf3`. The 0.7 handshake costs two round trips and a
//! 520-byte token request, so it starts only after [`ExchangeConfig::fallback_after`] without
//! an answer, and from then on both are in flight: whichever answers first wins. A dialect
//! learned from an earlier poll ([`ExchangeConfig::hint`]) goes first instead, so a 0.7 server
//! pays the fallback wait once, not on every poll. DDNet also answers the 0.7 handshake, but
//! its 0.7 reply has no room for more than a few dozen clients (with 48 connected the real
//! server sent none), another reason to ask it the 0.6 way.
//!
//! # Driving it
//! [`super::exchange::Teeworlds`] runs it inside the generic driver: call [`Machine::poll`] until it
//! returns [`Poll::Wait`] (send every [`Poll::Transmit`]); feed each received datagram to
//! [`Machine::handle_datagram`], then poll again; on the wake-up time poll again.
//! [`Poll::Done`] ends the exchange. The overall deadline is the caller's; when it passes,
//! [`Machine::settle_at_deadline`] takes a DDNet reply that has its first packet, and otherwise
//! [`Machine::is_pending`] says whether a multi-packet reply was under way (`incomplete`) or
//! nothing usable came, and [`Machine::ignored`] how many datagrams were not answers.
//!
//! The machine resends by itself, per request kind (the driver's one-request resend cannot
//! keep two dialects in flight), so it is driven with the driver's resends off.
//!
//! # Requests and flood protection
//! Three request kinds exist: the 0.6 info request, the 0.7 token request, the 0.7 info
//! request. Two requests of one kind are never sent closer than
//! [`ExchangeConfig::min_gap`] (resends wait [`ExchangeConfig::resend_after`], at least
//! that), so a server that drops fast repeats never sees one from us.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::protocol::teeworlds::{seven, six, Client, Flavour, Info, MAX_CLIENTS, MAX_PACKETS};
use crate::protocol::DecodeError;

/// The random values a poll uses; the caller draws them (this module has no randomness).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tokens {
    /// 0.6 / DDNet token: 24 bits are used.
    pub six: u32,
    /// Our 0.7 connection token.
    pub seven: u32,
    /// The 0.7 browse token echoed in the info reply.
    pub browse: i32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExchangeConfig {
    /// Wait this long for the first dialect before trying the other one as well.
    pub fallback_after: Duration,
    /// Least time between two requests of one kind.
    pub min_gap: Duration,
    /// Resend an unanswered request after this long (raised to `min_gap` if below).
    pub resend_after: Duration,
    /// After a packet of a DDNet multi-packet reply, how long to wait for the next one
    /// before settling for the clients that came.
    pub more_wait: Duration,
    /// Whether the client list is wanted. Without it the first `iext` packet, which carries
    /// every count, ends the exchange.
    pub want_clients: bool,
    /// The dialect that answered last time, tried first.
    pub hint: Option<Flavour>,
}

impl Default for ExchangeConfig {
    fn default() -> Self {
        ExchangeConfig {
            fallback_after: Duration::from_millis(500),
            min_gap: Duration::from_millis(500),
            resend_after: Duration::from_millis(1000),
            more_wait: Duration::from_millis(300),
            want_clients: false,
            hint: None,
        }
    }
}

/// The result of a finished exchange.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub info: Info,
    /// False when fewer clients came than the server counted (a DDNet packet never arrived,
    /// or the count lied); the counts are the server's either way.
    pub complete: bool,
    /// From the last send of the answered info request to its first reply packet.
    pub rtt: Duration,
}

/// What the caller should do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Poll {
    /// Send this datagram now (the label names it for transcripts), then poll again.
    Transmit(Vec<u8>, &'static str),
    /// Nothing to send before this time (or before a datagram arrives).
    Wait(Instant),
    Done(Result<Outcome, DecodeError>),
}

/// One request kind's send history.
#[derive(Debug, Clone, Copy, Default)]
struct Sender {
    last: Option<Instant>,
}

impl Sender {
    /// When this request may (re)go out, given it is wanted.
    fn due(&self, interval: Duration) -> Option<Instant> {
        self.last.map(|t| t + interval)
    }
    fn is_due(&self, now: Instant, interval: Duration) -> bool {
        self.due(interval).is_none_or(|t| now >= t)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seven {
    /// Not started.
    Idle,
    AwaitToken,
    AwaitInfo {
        server: u32,
    },
}

/// DDNet's multi-packet reply, collected under caps.
#[derive(Debug, Default)]
struct Collector {
    head: Option<Info>,
    /// `iex+` packets by number (1..MAX_PACKETS), possibly before the `iext`.
    more: BTreeMap<u32, Vec<Client>>,
    listed: usize,
    last_packet: Option<Instant>,
}

impl Collector {
    fn add_clients(&mut self, n: usize) -> Result<(), DecodeError> {
        self.listed += n;
        if self.listed > MAX_CLIENTS as usize {
            return Err(DecodeError::TooLarge {
                what: "listed clients",
                value: self.listed as u64,
                limit: MAX_CLIENTS.into(),
            });
        }
        Ok(())
    }

    /// Whether every counted client has been listed; more than counted is a lie we refuse.
    fn complete(&self) -> Result<bool, DecodeError> {
        let Some(head) = &self.head else {
            return Ok(false);
        };
        let counted = head.num_clients as usize;
        if self.listed > counted {
            return Err(DecodeError::Invalid("more clients listed than counted"));
        }
        Ok(self.listed == counted)
    }

    fn finish(&mut self) -> Option<Info> {
        let mut info = self.head.take()?;
        for (_, clients) in std::mem::take(&mut self.more) {
            info.clients.extend(clients);
        }
        Some(info)
    }
}

/// One poll's exchange; see the module documentation.
#[derive(Debug)]
pub struct Machine {
    config: ExchangeConfig,
    tokens: Tokens,
    started: Instant,
    six_on: bool,
    six: Sender,
    seven: Seven,
    seven_token: Sender,
    seven_info: Sender,
    collector: Collector,
    /// When the answered request went out last, and when its first reply came.
    answered: Option<(Instant, Instant)>,
    done: Option<Result<Outcome, DecodeError>>,
    last_ignored: Option<DecodeError>,
    ignored: u32,
}

impl Machine {
    pub fn new(now: Instant, tokens: Tokens, mut config: ExchangeConfig) -> Machine {
        config.resend_after = config.resend_after.max(config.min_gap);
        let seven_first = config.hint == Some(Flavour::Seven);
        Machine {
            config,
            tokens: Tokens {
                six: tokens.six & six::TOKEN_MASK,
                ..tokens
            },
            started: now,
            six_on: !seven_first,
            six: Sender::default(),
            seven: if seven_first {
                Seven::AwaitToken
            } else {
                Seven::Idle
            },
            seven_token: Sender::default(),
            seven_info: Sender::default(),
            collector: Collector::default(),
            answered: None,
            done: None,
            last_ignored: None,
            ignored: 0,
        }
    }

    /// Datagrams set aside as not answering this exchange (other tokens, other tags).
    pub fn ignored(&self) -> u32 {
        self.ignored
    }

    /// At the deadline: a DDNet reply whose first packet came ends with the clients that came
    /// (its counts are whole); anything else is `None`.
    pub fn settle_at_deadline(&mut self) -> Option<Result<Outcome, DecodeError>> {
        if let Some(done) = &self.done {
            return Some(done.clone());
        }
        self.collector.head.as_ref()?;
        match self.finish_collected(false) {
            Poll::Done(done) => Some(done),
            _ => None,
        }
    }

    /// Whether a multi-packet reply has started but not finished.
    pub fn is_pending(&self) -> bool {
        self.done.is_none() && (self.collector.head.is_some() || !self.collector.more.is_empty())
    }

    /// The reason the latest datagram that was not an answer was set aside.
    pub fn last_ignored(&self) -> Option<&DecodeError> {
        self.last_ignored.as_ref()
    }

    pub fn poll(&mut self, now: Instant) -> Poll {
        if let Some(done) = &self.done {
            return Poll::Done(done.clone());
        }
        if let Some(last) = self.collector.last_packet {
            if now >= last + self.config.more_wait {
                if self.collector.head.is_some() {
                    return self.finish_collected(false);
                }
                // Only `iex+` packets came: the `iext` was lost. Resume resending; the
                // server answers with the same token and the kept packets still count.
                self.collector.last_packet = None;
            }
        }
        let fallback = now >= self.started + self.config.fallback_after;
        if !self.six_on && fallback {
            self.six_on = true;
        }
        if self.seven == Seven::Idle && fallback {
            self.seven = Seven::AwaitToken;
        }
        let resend = self.config.resend_after;
        // While a DDNet reply is arriving, nothing is resent: the server has answered.
        let collecting = self.collector.last_packet.is_some();
        if self.six_on && !collecting && self.six.is_due(now, resend) {
            self.six.last = Some(now);
            let mut out = Vec::with_capacity(24);
            six::encode_request(self.tokens.six, &mut out);
            return Poll::Transmit(out, "DDNet extended info request");
        }
        if !collecting {
            match self.seven {
                Seven::AwaitToken if self.seven_token.is_due(now, resend) => {
                    self.seven_token.last = Some(now);
                    let mut out = Vec::with_capacity(seven::TOKEN_REQUEST_LEN);
                    seven::encode_token_request(self.tokens.seven, &mut out);
                    return Poll::Transmit(out, "0.7 token request");
                }
                Seven::AwaitInfo { server } if self.seven_info.is_due(now, resend) => {
                    self.seven_info.last = Some(now);
                    let mut out = Vec::with_capacity(24);
                    seven::encode_info_request(
                        server,
                        self.tokens.seven,
                        self.tokens.browse,
                        &mut out,
                    );
                    return Poll::Transmit(out, "0.7 info request");
                }
                _ => {}
            }
        }
        Poll::Wait(self.next_wake())
    }

    fn next_wake(&self) -> Instant {
        let resend = self.config.resend_after;
        let mut wake: Vec<Instant> = Vec::with_capacity(4);
        if let Some(last) = self.collector.last_packet {
            wake.push(last + self.config.more_wait);
        } else {
            if self.six_on {
                wake.extend(self.six.due(resend));
            }
            match self.seven {
                Seven::Idle => wake.push(self.started + self.config.fallback_after),
                Seven::AwaitToken => wake.extend(self.seven_token.due(resend)),
                Seven::AwaitInfo { .. } => wake.extend(self.seven_info.due(resend)),
            }
            if !self.six_on {
                wake.push(self.started + self.config.fallback_after);
            }
        }
        // Something is always pending while not done; the fallback bound is a safe default.
        wake.into_iter()
            .min()
            .unwrap_or(self.started + self.config.fallback_after)
    }

    /// Feeds one received datagram. Datagrams that are not answers to this exchange (other
    /// tokens, other tags) are set aside; a datagram that is ours but broken ends it.
    pub fn handle_datagram(&mut self, now: Instant, datagram: &[u8]) {
        if self.done.is_some() {
            return;
        }
        if let Err(e) = self.try_datagram(now, datagram) {
            match e {
                DecodeError::Mismatch(_) => {
                    self.ignored = self.ignored.saturating_add(1);
                    self.last_ignored = Some(e);
                }
                e => self.done = Some(Err(e)),
            }
        }
    }

    fn try_datagram(&mut self, now: Instant, d: &[u8]) -> Result<(), DecodeError> {
        if let Seven::AwaitToken = self.seven {
            if let Ok(server) = seven::decode_token_reply(d, self.tokens.seven) {
                self.seven = Seven::AwaitInfo { server };
                return Ok(());
            }
        }
        if let Seven::AwaitInfo { .. } = self.seven {
            match seven::decode_info_reply(d, self.tokens.seven, self.tokens.browse) {
                Ok(info) => {
                    self.mark_answered(self.seven_info.last, now);
                    let complete = info.clients.len() == info.num_clients as usize;
                    return self.finish(info, complete);
                }
                Err(DecodeError::Mismatch(_)) => {}
                Err(e) => return Err(e),
            }
        }
        match six::decode_reply(d, self.tokens.six)? {
            six::Reply::Vanilla(info) => {
                self.mark_answered(self.six.last, now);
                // 0.6 lists at most 16 clients, whatever it counts: complete as sent.
                self.finish(info, true)
            }
            six::Reply::Extended(info) => {
                if self.collector.head.is_some() {
                    return Ok(()); // a duplicate
                }
                self.mark_answered(self.six.last, now);
                self.collector.add_clients(info.clients.len())?;
                self.collector.head = Some(info);
                self.collector.last_packet = Some(now);
                self.settle()
            }
            six::Reply::More { packet, clients } => {
                if packet == 0 || packet >= MAX_PACKETS {
                    return Err(DecodeError::TooLarge {
                        what: "DDNet packet number",
                        value: packet.into(),
                        limit: (MAX_PACKETS - 1).into(),
                    });
                }
                if self.collector.more.contains_key(&packet) {
                    return Ok(()); // a duplicate
                }
                self.mark_answered(self.six.last, now);
                self.collector.add_clients(clients.len())?;
                self.collector.more.insert(packet, clients);
                self.collector.last_packet = Some(now);
                self.settle()
            }
        }
    }

    fn mark_answered(&mut self, sent: Option<Instant>, now: Instant) {
        if self.answered.is_none() {
            self.answered = Some((sent.unwrap_or(self.started), now));
        }
    }

    /// Ends a DDNet reply once every client came, or at once when no list is wanted.
    fn settle(&mut self) -> Result<(), DecodeError> {
        let complete = self.collector.complete()?;
        if complete || (self.collector.head.is_some() && !self.config.want_clients) {
            self.finish_collected(complete);
        }
        Ok(())
    }

    /// Ends the exchange with the collected DDNet reply; called only once its `iext` came.
    fn finish_collected(&mut self, complete: bool) -> Poll {
        let done = match self.collector.finish() {
            Some(info) => self.outcome(info, complete),
            None => Err(DecodeError::Invalid("DDNet reply without its first packet")),
        };
        self.done = Some(done.clone());
        Poll::Done(done)
    }

    fn finish(&mut self, info: Info, complete: bool) -> Result<(), DecodeError> {
        self.done = Some(self.outcome(info, complete));
        Ok(())
    }

    fn outcome(&self, info: Info, complete: bool) -> Result<Outcome, DecodeError> {
        let rtt = self
            .answered
            .map(|(sent, got)| got.saturating_duration_since(sent))
            .unwrap_or_default();
        Ok(Outcome {
            info,
            complete,
            rtt,
        })
    }
}

#[cfg(test)]
mod tests;
