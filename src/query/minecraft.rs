//! Minecraft Java server list ping, 1.7+ with automatic fallback to the legacy pings.
//!
//! # Dialogue
//! 1. Resolve (`_minecraft._tcp` SRV unless the address has a port or is an IP literal).
//! 2. Connect; send handshake + status request in one write; read one VarInt frame, capped.
//! 3. Ping/pong for latency, in a bounded slice of the remaining time. Many non-vanilla
//!    servers never answer the ping, so it can only improve the latency, never fail the poll.
//! 4. If the server does not speak 1.7+ (closes or resets before sending anything, answers
//!    with an `FF` kick, or sends bytes that are not a frame), try the legacy pings on new
//!    connections: 1.6 `FE 01 FA`, then 1.4 `FE 01`, then beta `FE` (vanilla 1.20 ignores
//!    the first; 1.3 and older error on the second), until one answers or time runs out.
//!
//! # Latency
//! The pong round trip (ping written -> pong read) when the server answers the ping;
//! otherwise the status round trip (handshake + request written -> whole response read),
//! which includes the server's JSON rendering and the transfer of a large favicon. For legacy
//! servers: the legacy ping written -> kick reply read. Never DNS or TCP set-up.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::{Error, Request, Session};
use crate::net::NetError;
use crate::net::{srv, tcp};
use crate::protocol::minecraft::legacy::{self, LegacyStatus, Variant};
use crate::protocol::minecraft::motd::{plain_text, strip_codes};
use crate::protocol::minecraft::slp::{self, ServerStatus};
use crate::protocol::minecraft::varint::{decode_frame, Frame, MAX_VARINT_LEN};
use crate::protocol::DecodeError;
use crate::protocol::Protocol;
use crate::status::{Player, Status};

/// The longest we wait for a pong, as a cap on a quarter of the remaining time.
const PONG_WAIT_MAX: Duration = Duration::from_millis(500);

/// How one 1.7+ attempt ended, when it did not produce a status.
enum Modern {
    /// The server does not seem to speak 1.7+: try the legacy pings.
    NotModern(Error),
    /// A 1.7+ server failed (or time ran out): report this.
    Failed(Error),
}

pub(super) async fn poll(
    req: &Request,
    _session: &mut Session,
    deadline: Instant,
) -> Result<Status, Error> {
    let addr =
        srv::resolve_minecraft(&req.address, Protocol::Minecraft.default_port(), deadline).await?;
    // Proxies route by the name the user typed, so it goes into the handshake, not the SRV
    // target; the port is the one we actually connect to.
    let host = req.address.host.as_str();
    match modern(req, addr, host, deadline).await {
        Ok(status) => Ok(status),
        Err(Modern::Failed(f)) => Err(f),
        Err(Modern::NotModern(first)) => {
            tracing::debug!(target = %req.address, error = %first, "no 1.7+ status, trying legacy pings");
            legacy_chain(req, addr, host, deadline, first).await
        }
    }
}

async fn modern(
    req: &Request,
    addr: SocketAddr,
    host: &str,
    deadline: Instant,
) -> Result<Status, Modern> {
    let max_frame = req.limits.max_reply_bytes;
    let read_cap = max_frame + MAX_VARINT_LEN;
    let mut stream = tcp::connect(addr, deadline)
        .await
        .map_err(|e| Modern::Failed(e.into()))?;
    let mut out = Vec::new();
    slp::encode_status_query(host, addr.port(), &mut out);
    let sent = Instant::now();
    tcp::write_all(&mut stream, &out, deadline)
        .await
        .map_err(|e| Modern::Failed(e.into()))?;

    let mut buf = Vec::new();
    let read = tcp::read_frame(&mut stream, &mut buf, deadline, read_cap, |b: &[u8]| {
        slp::decode_reply_frame(b, max_frame)
    })
    .await;
    let frame = match read {
        Ok(frame) => frame,
        Err(f) => return Err(classify_modern_failure(f, &buf)),
    };
    let status_rtt = sent.elapsed();
    let parsed = slp::decode_status_response(&frame).map_err(|e| Modern::Failed(e.into()))?;
    let latency = ping(&mut stream, &mut buf, deadline)
        .await
        .unwrap_or(status_rtt);
    Ok(modern_status(req, parsed, latency))
}

/// Which failures of the first read mean "not a 1.7+ server": nothing came before a close or
/// reset, an `FF` kick came, or the bytes were not a frame. A timeout, a too-large frame or a
/// reset after part of a reply are failures of a 1.7+ server.
fn classify_modern_failure(f: NetError, buf: &[u8]) -> Modern {
    let not_modern = match &f {
        NetError::Closed { .. } | NetError::Io(_) => buf.is_empty(),
        NetError::Decode(d) => speaks_other_protocol(d),
        _ => false,
    };
    let f = Error::from(f);
    if not_modern {
        Modern::NotModern(f)
    } else {
        Modern::Failed(f)
    }
}

/// Whether bytes that failed to decode as a 1.7+ frame say "another protocol" (an `FF` kick,
/// garbage) rather than "a 1.7+ reply that broke a cap or did not match".
fn speaks_other_protocol(d: &DecodeError) -> bool {
    !matches!(d, DecodeError::TooLarge { .. } | DecodeError::Mismatch(_))
}

/// Sends a ping and waits a bounded slice for the matching pong. `None` when the server does
/// not answer in time, answers with something else, or closes: the caller then uses the status
/// round trip.
async fn ping(stream: &mut TcpStream, buf: &mut Vec<u8>, deadline: Instant) -> Option<Duration> {
    let now = Instant::now();
    let slice = (deadline.saturating_duration_since(now) / 4).min(PONG_WAIT_MAX);
    let ping_deadline = now + slice;
    // Any value works; a varying one makes a stale or canned pong show up as a mismatch.
    let payload = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0x4d43_5049_4e47);
    let mut out = Vec::new();
    slp::encode_ping(payload, &mut out);
    let sent = Instant::now();
    tcp::write_all(stream, &out, ping_deadline).await.ok()?;
    let result = tcp::read_frame(stream, buf, ping_deadline, 64, |b: &[u8]| {
        decode_frame(b, 64)
    })
    .await
    .map_err(Error::from)
    .and_then(|frame: Frame| slp::decode_pong(&frame, payload).map_err(Error::from));
    match result {
        Ok(()) => Some(sent.elapsed()),
        Err(f) => {
            tracing::debug!(error = %f, "no usable pong; latency is the status round trip");
            None
        }
    }
}

fn modern_status(req: &Request, s: ServerStatus, latency: Duration) -> Status {
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

/// Tries the legacy pings in order, each on a new connection with a fair share of the time
/// left, so a server that ignores one ping cannot starve the next.
async fn legacy_chain(
    req: &Request,
    addr: SocketAddr,
    host: &str,
    deadline: Instant,
    modern_failure: Error,
) -> Result<Status, Error> {
    let cap = req.limits.max_reply_bytes;
    let mut informative: Option<Error> = None;
    let variants = Variant::FALLBACK_ORDER;
    for (i, variant) in variants.into_iter().enumerate() {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let left = (variants.len() - i) as u32;
        let attempt_deadline = now + deadline.saturating_duration_since(now) / left;
        match legacy_attempt(addr, host, variant, attempt_deadline, cap).await {
            Ok((s, latency)) => return Ok(legacy_status(req, s, variant, latency)),
            Err(f) => {
                tracing::debug!(variant = variant.as_str(), error = %f, "legacy ping failed");
                // A reply that came but did not decode says more than a silent server.
                if informative.is_none() && says_something(&f) {
                    informative = Some(f);
                }
            }
        }
    }
    Err(informative.unwrap_or(modern_failure))
}

/// A legacy attempt that got bytes back which did not decode, or broke a cap, says more
/// than one that met silence or a closed door.
fn says_something(f: &Error) -> bool {
    match f {
        Error::Net(NetError::TooLarge { .. }) => true,
        Error::Net(NetError::Decode(d)) => !matches!(d, DecodeError::Mismatch(_)),
        _ => false,
    }
}

async fn legacy_attempt(
    addr: SocketAddr,
    host: &str,
    variant: Variant,
    deadline: Instant,
    cap: usize,
) -> Result<(LegacyStatus, Duration), Error> {
    let mut stream = tcp::connect(addr, deadline).await?;
    let mut out = Vec::new();
    legacy::encode_ping(variant, host, addr.port(), &mut out);
    let sent = Instant::now();
    tcp::write_all(&mut stream, &out, deadline).await?;
    // The reply ends where its length says; the server closing right after is fine, and one
    // that keeps the connection open does not make us wait for the close.
    let mut buf = Vec::new();
    let status = tcp::read_frame(&mut stream, &mut buf, deadline, cap, legacy::decode_kick).await?;
    Ok((status, sent.elapsed()))
}

fn legacy_status(req: &Request, s: LegacyStatus, variant: Variant, latency: Duration) -> Status {
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
