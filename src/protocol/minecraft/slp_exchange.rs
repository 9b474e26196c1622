//! Minecraft Java server list ping, 1.7+ with automatic fallback to the legacy pings, as a
//! sans-IO [`Exchange`] run by the generic driver over TCP.
//!
//! # Dialogue
//! 1. Resolve (`_minecraft._tcp` SRV unless the address has a port or is an IP literal).
//! 2. Connect; send handshake + status request in one write; read one VarInt frame, capped.
//! 3. Ping/pong for latency, in a bounded slice of the remaining time. Many non-vanilla
//!    servers never answer the ping, so it can only improve the latency, never fail the poll.
//! 4. If the server closes or resets before sending anything, it may be a 1.7+ server that
//!    refuses the `-1` protocol number (some implementations accept only numbers they know):
//!    retry the 1.7+ request once on a new connection announcing
//!    [`slp::PROTOCOL_VERSION_RETRY`] (47, 1.8; why that number: see its doc), in a share of
//!    the time left. `-1` stays first because vanilla and proxies answer it best.
//! 5. If the server does not speak 1.7+ (the retry met a close, a reset or silence too, or
//!    the first answer was an `FF` kick or bytes that are not a frame), try the legacy pings
//!    on new connections: 1.6 `FE 01 FA`, then 1.4 `FE 01`, then beta `FE` (vanilla 1.20
//!    ignores the first; 1.3 and older error on the second), until one answers or time runs
//!    out.
//!
//! # Latency
//! The pong round trip (ping written -> pong read) when the server answers the ping;
//! otherwise the status round trip (handshake + request written -> whole response read),
//! which includes the server's JSON rendering and the transfer of a large favicon. For legacy
//! servers: the legacy ping written -> kick reply read. Never DNS or TCP set-up.

use std::sync::Arc;
use std::time::Duration;

use std::time::Instant;

use serde_json::{json, Value};

use crate::protocol::exchange::stream::StreamBuf;
use crate::protocol::exchange::tools::{random_u64, share};
use crate::protocol::exchange::{debug, Error, Exchange, Input, LinkError, Params, Step};
use crate::protocol::minecraft::legacy::{self, LegacyStatus, Variant};
use crate::protocol::minecraft::motd::{plain_text, strip_codes};
use crate::protocol::minecraft::slp::{self, ServerStatus};
use crate::protocol::minecraft::varint::{decode_frame, MAX_VARINT_LEN};
use crate::protocol::DecodeError;
use crate::status::{Player, Status};

/// The longest we wait for a pong, as a cap on a quarter of the remaining time.
const PONG_WAIT_MAX: Duration = Duration::from_millis(500);

/// The largest pong frame read.
const PONG_MAX: usize = 64;

/// Which request an attempt makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// 1.7+: handshake + status request, one VarInt frame back.
    Modern,
    /// The same on a new connection, announcing [`slp::PROTOCOL_VERSION_RETRY`].
    ModernRetry,
    /// 1.7+ ping/pong on the same connection, for latency only.
    Ping,
    /// A legacy ping on a new connection: index into [`Variant::FALLBACK_ORDER`].
    Legacy(usize),
}

/// Where an attempt is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Connect,
    /// The driver is connecting: a failure now is the connection's.
    Connecting,
    Send,
    /// The driver is sending: a failure now is the write's.
    Sending,
    Wait,
}

/// The server list ping and its fallback chain as a state machine.
#[derive(Debug)]
pub struct Slp {
    params: Params,
    /// The name the user typed (proxies route by it), not the SRV target: the request's
    /// shared string, not a copy (no allocation per poll).
    host: Arc<str>,
    port: u16,
    deadline: Instant,
    phase: Phase,
    stage: Stage,
    /// The current attempt (or ping) gives up at this instant.
    until: Instant,
    buf: StreamBuf,
    /// The 1.7+ status, waiting for the ping to set its latency.
    modern: Option<(ServerStatus, Duration)>,
    ping_payload: i64,
    /// Why the 1.7+ attempt failed, reported if no legacy ping says more.
    modern_failure: Option<Error>,
    /// The first legacy failure that got bytes back: says more than a silent server.
    informative: Option<Error>,
    result: Option<Result<Status, Error>>,
}

impl Slp {
    /// A poll until `deadline`; `host` and `port` go into the handshake: the name the user
    /// typed (proxies route by it, not by the SRV target) and the port actually connected to.
    pub fn new(params: Params, host: impl Into<Arc<str>>, port: u16, deadline: Instant) -> Slp {
        Slp {
            params,
            host: host.into(),
            port,
            deadline,
            phase: Phase::Modern,
            stage: Stage::Connect,
            until: deadline,
            buf: StreamBuf::new(params.limits.reply_cap() + MAX_VARINT_LEN),
            modern: None,
            ping_payload: 0,
            modern_failure: None,
            informative: None,
            result: None,
        }
    }

    fn encode(&mut self, out: &mut Vec<u8>) -> &'static str {
        out.clear();
        match self.phase {
            Phase::Modern => {
                slp::encode_status_query(&self.host, self.port, out);
                "handshake + status request"
            }
            Phase::ModernRetry => {
                let version = slp::PROTOCOL_VERSION_RETRY;
                slp::encode_status_query_as(version, &self.host, self.port, out);
                "handshake (protocol 47) + status request"
            }
            Phase::Ping => {
                slp::encode_ping(self.ping_payload, out);
                "ping"
            }
            Phase::Legacy(i) => {
                let variant = Variant::FALLBACK_ORDER[i];
                legacy::encode_ping(variant, &self.host, self.port, out);
                variant.as_str()
            }
        }
    }

    /// Moves on to the ping on the same connection, in a bounded slice of the time left.
    fn start_ping(&mut self, now: Instant) {
        self.until = share(now, self.deadline, 4).min(now + PONG_WAIT_MAX);
        // Any value works; a varying one makes a stale or canned pong show up as a mismatch.
        self.ping_payload = random_u64() as i64;
        self.buf.set_cap(PONG_MAX);
        self.phase = Phase::Ping;
        self.stage = Stage::Send;
    }

    /// Starts legacy attempt `i` at `now`, each on a new connection with a fair share of the
    /// time left, so a server that ignores one ping cannot starve the next; past the last
    /// (or the deadline), the chain fails.
    fn start_legacy(&mut self, i: usize, now: Instant) {
        let order = Variant::FALLBACK_ORDER;
        if i >= order.len() || now >= self.deadline {
            let e = self.informative.take().or(self.modern_failure.take());
            self.result = Some(Err(e.unwrap_or(LinkError::Timeout.into())));
            return;
        }
        self.until = share(now, self.deadline, order.len() - i);
        self.buf.clear();
        self.buf.set_cap(self.params.limits.reply_cap());
        self.phase = Phase::Legacy(i);
        self.stage = Stage::Connect;
    }

    /// The ping got no usable pong: the latency is the status round trip.
    fn finish_modern(&mut self, pong_rtt: Option<Duration>) {
        if let Some((status, status_rtt)) = self.modern.take() {
            let latency = pong_rtt.unwrap_or(status_rtt);
            self.result = Some(Ok(modern_status(&self.params, status, latency)));
        }
    }

    /// Looks for a complete frame in what has arrived.
    fn frame(&mut self, now: Instant, rtt: Duration) {
        let max_frame = self.params.limits.reply_cap();
        match self.phase {
            Phase::Modern | Phase::ModernRetry => {
                match self.buf.frame(|b| slp::decode_reply_frame(b, max_frame)) {
                    Ok(None) => {}
                    Ok(Some(frame)) => {
                        match slp::decode_status_response_as(&frame, self.params.detail) {
                            Ok(parsed) => {
                                self.modern = Some((parsed, rtt));
                                self.start_ping(now);
                            }
                            Err(e) => self.result = Some(Err(e.into())),
                        }
                    }
                    Err(e) => self.modern_failed(e, now),
                }
            }
            Phase::Ping => match self.buf.frame(|b| decode_frame(b, PONG_MAX)) {
                Ok(None) => {}
                Ok(Some(frame)) => match slp::decode_pong(&frame, self.ping_payload) {
                    Ok(()) => self.finish_modern(Some(rtt)),
                    Err(e) => self.ping_failed(e.into()),
                },
                Err(e) => self.ping_failed(e.into()),
            },
            Phase::Legacy(i) => match self.buf.frame(legacy::decode_kick) {
                Ok(None) => {}
                Ok(Some(s)) => {
                    let variant = Variant::FALLBACK_ORDER[i];
                    self.result = Some(Ok(legacy_status(&self.params, s, variant, rtt)));
                }
                Err(e) => self.legacy_failed(e.into(), now),
            },
        }
    }

    /// The first read failed. Nothing came before a close or reset: retry once with a
    /// concrete protocol number, then the legacy pings. An `FF` kick came, or the bytes were
    /// not a frame: not a 1.7+ server, so straight to the legacy pings. A timeout, a
    /// too-large frame or a reset after part of a reply are failures of a 1.7+ server; except
    /// that the retry only had a share of the time, so its timeout moves on to the legacy
    /// pings as well.
    fn modern_failed(&mut self, e: LinkError, now: Instant) {
        let silent_close =
            matches!(e, LinkError::Closed { .. } | LinkError::Io(_)) && self.buf.is_empty();
        let not_modern = match &e {
            LinkError::Closed { .. } | LinkError::Io(_) => self.buf.is_empty(),
            LinkError::Decode(d) => speaks_other_protocol(d),
            LinkError::Timeout => self.phase == Phase::ModernRetry,
            _ => false,
        };
        if silent_close && self.phase == Phase::Modern && now < self.deadline {
            debug!(host = %self.host, error = %e, "closed on protocol -1, retrying with 47");
            self.modern_failure = Some(e.into());
            // The retry and each legacy ping get equal shares of the time left.
            self.until = share(now, self.deadline, Variant::FALLBACK_ORDER.len() + 1);
            self.buf.clear();
            self.phase = Phase::ModernRetry;
            self.stage = Stage::Connect;
        } else if not_modern {
            debug!(host = %self.host, error = %e, "no 1.7+ status, trying legacy pings");
            self.modern_failure = Some(e.into());
            self.start_legacy(0, now);
        } else {
            self.result = Some(Err(e.into()));
        }
    }

    fn ping_failed(&mut self, e: Error) {
        debug!(error = %e, "no usable pong; latency is the status round trip");
        let _ = e; // only logged
        self.finish_modern(None);
    }

    fn legacy_failed(&mut self, e: Error, now: Instant) {
        let Phase::Legacy(i) = self.phase else { return };
        debug!(variant = Variant::FALLBACK_ORDER[i].as_str(), error = %e, "legacy ping failed");
        if self.informative.is_none() && says_something(&e) {
            self.informative = Some(e);
        }
        self.start_legacy(i + 1, now);
    }

    /// The attempt's transport failed, or its time ran out.
    fn attempt_failed(&mut self, e: LinkError, now: Instant) {
        match self.phase {
            // Connecting or writing the 1.7+ request failed: nothing was heard from the
            // server, so nothing says it speaks another protocol.
            Phase::Modern | Phase::ModernRetry
                if matches!(self.stage, Stage::Connecting | Stage::Sending) =>
            {
                self.result = Some(Err(e.into()))
            }
            Phase::Modern | Phase::ModernRetry => self.modern_failed(e, now),
            Phase::Ping => self.ping_failed(e.into()),
            Phase::Legacy(_) => self.legacy_failed(e.into(), now),
        }
    }
}

impl Exchange for Slp {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        loop {
            match self.result.take() {
                Some(Ok(status)) => return Step::Done(status),
                Some(Err(e)) => return Step::Failed(e),
                None => {}
            }
            match self.stage {
                Stage::Connect => {
                    self.stage = Stage::Connecting;
                    return Step::Connect(self.until);
                }
                // Polled again without a failure reported: connected.
                Stage::Connecting => self.stage = Stage::Send,
                Stage::Send => {
                    self.stage = Stage::Sending;
                    return Step::Send(self.encode(out));
                }
                // Polled again without a failure reported: sent.
                Stage::Sending => self.stage = Stage::Wait,
                // Bytes already buffered (after a frame) may hold the next one.
                Stage::Wait if self.phase == Phase::Ping && !self.buf.is_empty() => {
                    let before = self.buf.len();
                    self.frame(now, Duration::ZERO);
                    if self.result.is_none() && self.buf.len() == before {
                        if now >= self.until {
                            self.attempt_failed(LinkError::Timeout, now);
                            continue;
                        }
                        return Step::Wait(self.until);
                    }
                }
                Stage::Wait if now >= self.until => self.attempt_failed(LinkError::Timeout, now),
                Stage::Wait => return Step::Wait(self.until),
            }
        }
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        match input {
            Input::Received { bytes, rtt } => {
                self.buf.push(bytes);
                self.frame(now, rtt);
            }
            Input::Closed => {
                let e = self.buf.closed();
                self.attempt_failed(e, now);
            }
            Input::Failed(e) => self.attempt_failed(e, now),
        }
    }
}

/// Whether bytes that failed to decode as a 1.7+ frame say "another protocol" (an `FF` kick,
/// garbage) rather than "a 1.7+ reply that broke a cap or did not match".
fn speaks_other_protocol(d: &DecodeError) -> bool {
    !matches!(d, DecodeError::TooLarge { .. } | DecodeError::Mismatch(_))
}

/// A legacy attempt that got bytes back which did not decode, or broke a cap, says more
/// than one that met silence or a closed door.
fn says_something(f: &Error) -> bool {
    match f {
        Error::Net(LinkError::TooLarge { .. }) => true,
        Error::Net(LinkError::Decode(d)) => !matches!(d, DecodeError::Mismatch(_)),
        _ => false,
    }
}

fn modern_status(req: &Params, s: ServerStatus, latency: Duration) -> Status {
    let mut extras = serde_json::Map::new();
    if let Some(p) = s.version_protocol {
        extras.insert("protocol_version".into(), json!(p));
    }
    extras.insert("favicon".into(), Value::Bool(s.favicon_bytes.is_some()));
    if let Some(n) = s.forge_mods {
        extras.insert("forge_mods".into(), json!(n));
    }
    if let Some(n) = s.forge_channels {
        extras.insert("forge_channels".into(), json!(n));
    }
    if req.detail {
        if let Some(d) = &s.description {
            extras.insert("description".into(), d.clone());
        }
        // `raw` comes without the favicon: the daemon must never hold images.
        extras.insert("raw".into(), s.raw.clone());
    }
    let players = req.players.then(|| {
        s.sample
            .iter()
            .map(|(name, id)| Player {
                name: strip_codes(name),
                id: id.clone(),
                ..Player::default()
            })
            .collect()
    });
    Status {
        online: s.online.unwrap_or(0),
        max: s.max.unwrap_or(0),
        name: s.description.as_ref().map(plain_text).unwrap_or_default(),
        version: s.version_name.as_deref().map(strip_codes),
        latency,
        players,
        extras,
        ..Status::default()
    }
}

fn legacy_status(req: &Params, s: LegacyStatus, variant: Variant, latency: Duration) -> Status {
    let mut extras = serde_json::Map::new();
    if let Some(p) = s.protocol {
        extras.insert("protocol_version".into(), json!(p));
    }
    extras.insert("legacy".into(), json!(variant.as_str()));
    extras.insert("favicon".into(), Value::Bool(false));
    if req.detail {
        extras.insert("description".into(), json!(s.motd));
    }
    Status {
        online: s.online,
        max: s.max,
        name: strip_codes(&s.motd),
        version: s.version.as_deref().map(strip_codes),
        latency,
        extras,
        ..Status::default()
    }
}
