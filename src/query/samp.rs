//! SA:MP / open.mp dialogue: `i` (required), then best-effort `o`, `r`, `d` or `c`, and `p`.
//!
//! Latency is the `i` round trip: the one exchange every poll makes, answered from a buffer
//! the server keeps ready, so it measures the network and not the size of the extras.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::{Request, Session};
use crate::net::buffer::RecvBuf;
use crate::net::udp::UdpChannel;
use crate::net::{self, NetError};
use crate::protocol::samp::{self, Header, Opcode};
use crate::protocol::{DecodeError, Protocol};
use crate::status::{Failure, Player, Reason, Status};

/// "The server sends no player list (`c`/`d`) above 100 players" (NOTES.md).
const MAX_LISTED_PLAYERS: u32 = 100;

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
) -> Result<Status, Failure> {
    // The header carries the server's IPv4 address: resolve the name first.
    let addr = net::resolve::resolve(&req.address, Protocol::Samp.default_port(), deadline).await?;
    let ip = ipv4_of(addr.ip()).ok_or_else(|| {
        Failure::new(
            Reason::Dns,
            format!(
                "{} resolved to {}: SA:MP query carries the server's IPv4 address in every \
                 request, so it needs one",
                req.address,
                addr.ip()
            ),
        )
    })?;
    let addr = SocketAddr::new(IpAddr::V4(ip), addr.port());
    let header = Header {
        ip,
        port: addr.port(),
    };
    let chan = UdpChannel::open(addr, super::shared_udp(req, session)).await?;
    let mut buf = RecvBuf::take();
    let enc = req.encoding;

    let mut out = Vec::with_capacity(16);
    samp::encode_request(&header, Opcode::Info, &mut out);
    let (info, latency) = exchange(&chan, &out, deadline, &mut buf, |d| {
        samp::decode_info(d, &header, enc)
    })
    .await?;

    // Daemon polls publish no extras; building them cost allocations on every poll.
    let mut extras = Map::new();
    if req.detail {
        extras.insert("language".into(), json!(info.language));
    }
    let mut status = Status {
        online: info.players.into(),
        max: info.max.into(),
        name: info.hostname,
        game: Some(info.gamemode).filter(|g| !g.is_empty()),
        password: Some(info.password),
        latency,
        ..Status::default()
    };

    let probe = req.detail || req.rules;
    let list = req.players && status.online <= MAX_LISTED_PLAYERS;
    // Each extra gets an even share of what time is left, so a server that ignores one
    // opcode cannot starve the others; answered steps leave more for the rest.
    let mut steps = usize::from(probe) * 2 + usize::from(req.rules) + usize::from(list) * 2;
    let slice = |steps: &mut usize| {
        let now = Instant::now();
        let share = deadline.saturating_duration_since(now) / (*steps).max(1) as u32;
        *steps = steps.saturating_sub(1);
        (now + share).min(deadline)
    };

    let mut open_mp = false;
    if probe {
        out.clear();
        samp::encode_request(&header, Opcode::OpenMp, &mut out);
        let until = slice(&mut steps);
        match exchange(&chan, &out, until, &mut buf, |d| {
            samp::decode_open_mp(d, &header, enc)
        })
        .await
        {
            Ok((o, _)) => {
                open_mp = true;
                for (key, value) in [
                    ("discord", o.discord),
                    ("light_banner_url", o.light_banner),
                    ("dark_banner_url", o.dark_banner),
                    ("logo_url", o.logo),
                ] {
                    if !value.is_empty() {
                        extras.insert(key.into(), json!(value));
                    }
                }
            }
            Err(f) if is_unanswered(&f) => {}
            Err(f) => note(&mut extras, "open_mp_error", &f),
        }
        extras.insert("open_mp".into(), json!(open_mp));
    }

    if req.rules {
        out.clear();
        samp::encode_request(&header, Opcode::Rules, &mut out);
        let until = slice(&mut steps);
        match exchange(&chan, &out, until, &mut buf, |d| {
            samp::decode_rules(d, &header, enc)
        })
        .await
        {
            Ok((rules, _)) => apply_rules(&mut status, &mut extras, rules),
            Err(f) => note(&mut extras, "rules_error", &f),
        }
    }

    if req.players {
        if list {
            status.players = players(
                &chan,
                &header,
                open_mp,
                enc,
                &mut buf,
                &mut || slice(&mut steps),
                &mut extras,
            )
            .await;
        } else {
            extras.insert(
                "players_note".into(),
                json!("the server sends no player list above 100 players"),
            );
        }
    }

    if probe {
        let payload = random_u32().to_le_bytes();
        out.clear();
        samp::encode_ping(&header, payload, &mut out);
        let until = slice(&mut steps);
        match exchange(&chan, &out, until, &mut buf, |d| {
            samp::decode_ping(d, &header, payload)
        })
        .await
        {
            Ok(((), rtt)) => {
                extras.insert("ping_echo".into(), json!(true));
                extras.insert("ping_seconds".into(), json!(rtt.as_secs_f64()));
            }
            Err(f) => {
                extras.insert("ping_echo".into(), json!(false));
                if !is_unanswered(&f) {
                    note(&mut extras, "ping_error", &f);
                }
            }
        }
    }

    status.extras = extras;
    Ok(status)
}

/// `d` first (ids and pings), then `c` when `d` goes unanswered; open.mp has no `d`, so it
/// is asked for `c` straight away.
async fn players(
    chan: &UdpChannel,
    header: &Header,
    open_mp: bool,
    enc: &'static encoding_rs::Encoding,
    buf: &mut [u8],
    slice: &mut impl FnMut() -> Instant,
    extras: &mut Map<String, Value>,
) -> Option<Vec<Player>> {
    let mut out = Vec::new();
    if !open_mp {
        samp::encode_request(header, Opcode::Detailed, &mut out);
        match exchange(chan, &out, slice(), buf, |d| {
            samp::decode_detailed(d, header, enc)
        })
        .await
        {
            Ok((list, _)) => {
                return Some(
                    list.into_iter()
                        .map(|p| Player {
                            name: p.name,
                            id: Some(p.id.to_string()),
                            score: Some(p.score.into()),
                            ping: Some(p.ping),
                            ..Player::default()
                        })
                        .collect(),
                )
            }
            Err(f) if is_unanswered(&f) => {}
            Err(f) => {
                note(extras, "players_error", &f);
                return None;
            }
        }
    }
    out.clear();
    samp::encode_request(header, Opcode::Clients, &mut out);
    match exchange(chan, &out, slice(), buf, |d| {
        samp::decode_clients(d, header, enc)
    })
    .await
    {
        Ok((list, _)) => Some(
            list.into_iter()
                .map(|p| Player {
                    name: p.name,
                    score: Some(p.score.into()),
                    ..Player::default()
                })
                .collect(),
        ),
        Err(f) if is_unanswered(&f) => {
            extras.insert(
                "players_note".into(),
                json!("the player list was not answered"),
            );
            None
        }
        Err(f) => {
            note(extras, "players_error", &f);
            None
        }
    }
}

fn apply_rules(status: &mut Status, extras: &mut Map<String, Value>, rules: Vec<(String, String)>) {
    for (name, value) in &rules {
        match name.as_str() {
            "version" => status.version = Some(value.clone()),
            "mapname" => status.map = Some(value.clone()),
            // open.mp names it `map`; `mapname` wins where a server sends both.
            "map" if status.map.is_none() => status.map = Some(value.clone()),
            "weburl" | "worldtime" | "weather" | "lagcomp" => {
                extras.insert(name.clone(), json!(value));
            }
            _ => {}
        }
    }
    status.rules = Some(rules);
}

fn ipv4_of(ip: IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    }
}

/// A best-effort step that got no answer of its own: the server ignores that opcode.
fn is_unanswered(f: &Failure) -> bool {
    matches!(f.reason, Reason::Timeout | Reason::Mismatch)
}

fn note(extras: &mut Map<String, Value>, key: &str, f: &Failure) {
    extras.insert(key.into(), json!(f.to_string()));
}

/// Sends `request` once and waits until `deadline` for the datagram that answers it.
///
/// Datagrams that `decode` calls a [`DecodeError::Mismatch`] (another header, session or
/// payload: late replies, junk) are skipped; if only those came, the result is `mismatch`
/// rather than `timeout`. Any other decode error fails at once: it was our answer, broken.
///
/// # Returns
/// The decoded reply and the round trip from send to its arrival.
pub(super) async fn exchange<T>(
    chan: &UdpChannel,
    request: &[u8],
    deadline: Instant,
    buf: &mut [u8],
    mut decode: impl FnMut(&[u8]) -> Result<T, DecodeError>,
) -> Result<(T, Duration), Failure> {
    chan.send(request).await?;
    let mut foreign = 0u32;
    loop {
        let n = match chan.recv(buf, deadline).await {
            Ok(n) => n,
            Err(NetError::Timeout) if foreign > 0 => {
                return Err(Failure::new(
                    Reason::Mismatch,
                    format!("{foreign} datagram(s) arrived, none answering our request"),
                ))
            }
            Err(e) => return Err(e.into()),
        };
        match decode(&buf[..n.min(buf.len())]) {
            // After a resend the reply most likely answers the latest copy.
            Ok(v) => return Ok((v, chan.since_last_send())),
            Err(DecodeError::Mismatch(_)) => foreign = foreign.saturating_add(1),
            Err(e) => return Err(e.into()),
        }
    }
}

/// Unpredictable enough for a ping payload or a session id; not for secrets.
pub(super) fn random_u32() -> u32 {
    use std::hash::BuildHasher;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    std::collections::hash_map::RandomState::new().hash_one(nanos) as u32
}
