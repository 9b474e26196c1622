//! The A2S dialogue: A2S_INFO (answering challenges), then optionally A2S_PLAYER and A2S_RULES.
//!
//! - One connected UDP socket per poll, or in steady state a registration on the daemon's
//!   shared socket ([`crate::net::udp::UdpMux`]): either way only datagrams from the server's
//!   exact address and port reach the decoders, so a decoy from a wrong port is ignored.
//! - Steady state is one round trip: the challenge the server last issued is remembered in
//!   [`Session`] and appended to the first A2S_INFO.
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
//! - With `Request::detail`, an A2A_PING is tried too (most Source servers ignore it); its
//!   outcome only lands in extras.

use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{json, Map, Value};
use tokio::time::Instant;

use super::{Limits, Request, Session};
use crate::net::buffer::RecvBuf;
use crate::net::resolve::resolve;
use crate::net::udp::{UdpChannel, UdpMux};
use crate::net::NetError;
use crate::protocol::a2s::{self, split, Info, Reply, NO_CHALLENGE};
use crate::protocol::{DecodeError, Protocol};
use crate::status::{Failure, Player, Reason, Status};

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
) -> Result<Status, Failure> {
    let addr = resolve(&req.address, Protocol::A2s.default_port(), deadline).await?;
    let mut link = Link::connect(addr, req.limits, super::shared_udp(req, session)).await?;
    let (info, latency) =
        fetch_info(&mut link, session, req.limits.max_challenges, deadline).await?;
    let mut status = to_status(info, latency, req.detail);

    let mut optional = usize::from(req.players) + usize::from(req.rules);
    if req.players {
        let until = share(deadline, optional);
        optional -= 1;
        match fetch_list(
            &mut link,
            session,
            Kind::Players,
            req.limits.max_challenges,
            until,
        )
        .await
        {
            Ok(Reply::Players(ps)) => {
                status.players = Some(ps.into_iter().map(to_player).collect())
            }
            Ok(_) => note_mismatch(&mut status, "players_error"),
            Err(f) => note(&mut status, "players_error", &f),
        }
    }
    if req.rules {
        let until = share(deadline, optional);
        match fetch_list(
            &mut link,
            session,
            Kind::Rules,
            req.limits.max_challenges,
            until,
        )
        .await
        {
            Ok(Reply::Rules(rules)) => status.rules = Some(rules),
            Ok(_) => note_mismatch(&mut status, "rules_error"),
            Err(f) => note(&mut status, "rules_error", &f),
        }
    }
    if req.detail {
        // A short slice: a server that ignores pings must not make `query` wait long.
        let until = deadline.min(Instant::now() + (latency * 4).max(Duration::from_millis(200)));
        match ping_on(&mut link, until).await {
            Ok(rtt) => {
                status
                    .extras
                    .insert("ping_seconds".into(), json!(rtt.as_secs_f64()));
            }
            Err(f) => note(&mut status, "ping_error", &f),
        }
    }
    Ok(status)
}

/// A2A_PING on the poll's socket; returns the round trip.
async fn ping_on(link: &mut Link, deadline: Instant) -> Result<Duration, Failure> {
    let mut out = Vec::new();
    a2s::encode_ping_request(&mut out);
    link.send(&out).await?;
    loop {
        match link.recv_reply(deadline).await? {
            Reply::Ping(_) => return Ok(link.channel.since_last_send()),
            _ => link.garbage(DecodeError::Mismatch("expected a ping reply")),
        }
    }
}

/// The deadline for the next of `left` optional requests: an equal share of the time left.
fn share(deadline: Instant, left: usize) -> Instant {
    let now = Instant::now();
    let remaining = deadline.saturating_duration_since(now);
    now + remaining / (left.max(1) as u32)
}

async fn fetch_info(
    link: &mut Link,
    session: &mut Session,
    max_challenges: u8,
    deadline: Instant,
) -> Result<(Info, Duration), Failure> {
    let mut challenges = 0u8;
    let mut out = Vec::with_capacity(32);
    loop {
        out.clear();
        a2s::encode_info_request(session.a2s_challenge, &mut out);
        link.send(&out).await?;
        loop {
            match link.recv_reply(deadline).await? {
                Reply::Info(info) => return Ok((*info, link.channel.since_last_send())),
                Reply::Challenge(c) => {
                    challenges += 1;
                    if challenges > max_challenges {
                        return Err(Failure::new(
                            Reason::Challenge,
                            format!("server issued more than {max_challenges} challenges in a row"),
                        ));
                    }
                    session.a2s_challenge = Some(c);
                    break;
                }
                _ => link.garbage(DecodeError::Mismatch("expected an info reply")),
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Players,
    Rules,
}

/// A2S_PLAYER or A2S_RULES: starts with the info challenge when there is one (servers share
/// it), else asks for one with -1.
async fn fetch_list(
    link: &mut Link,
    session: &mut Session,
    kind: Kind,
    max_challenges: u8,
    deadline: Instant,
) -> Result<Reply, Failure> {
    link.reset_garbage();
    let mut challenge = session.a2s_challenge.unwrap_or(NO_CHALLENGE);
    let mut challenges = 0u8;
    let mut out = Vec::with_capacity(16);
    loop {
        out.clear();
        match kind {
            Kind::Players => a2s::encode_player_request(challenge, &mut out),
            Kind::Rules => a2s::encode_rules_request(challenge, &mut out),
        }
        link.send(&out).await?;
        loop {
            match (kind, link.recv_reply(deadline).await?) {
                (Kind::Players, r @ Reply::Players(_)) | (Kind::Rules, r @ Reply::Rules(_)) => {
                    return Ok(r)
                }
                (_, Reply::Challenge(c)) => {
                    challenges += 1;
                    if challenges > max_challenges {
                        return Err(Failure::new(
                            Reason::Challenge,
                            format!("server issued more than {max_challenges} challenges in a row"),
                        ));
                    }
                    challenge = c;
                    break;
                }
                _ => link.garbage(DecodeError::Mismatch("unsolicited reply type")),
            }
        }
    }
}

/// One poll's socket, reassembler and memory of what went wrong while waiting.
struct Link {
    channel: UdpChannel,
    reassembler: split::Reassembler,
    buf: RecvBuf,
    last_garbage: Option<DecodeError>,
}

impl Link {
    async fn connect(
        addr: SocketAddr,
        limits: Limits,
        mux: Option<&UdpMux>,
    ) -> Result<Link, NetError> {
        Ok(Link {
            channel: UdpChannel::open(addr, mux).await?,
            reassembler: split::Reassembler::new(split::Limits {
                max_packets: limits.max_split_packets,
                max_bytes: limits.max_reply_bytes,
            }),
            buf: RecvBuf::take(),
            last_garbage: None,
        })
    }

    async fn send(&self, datagram: &[u8]) -> Result<(), NetError> {
        self.channel.send(datagram).await
    }

    fn garbage(&mut self, e: DecodeError) {
        tracing::debug!(peer = %self.channel.peer(), error = %e, "a2s: ignoring datagram");
        self.last_garbage = Some(e);
    }

    /// Starts a new exchange: what went wrong in the previous one is not this one's failure.
    fn reset_garbage(&mut self) {
        self.last_garbage = None;
        self.reassembler.discard_pending();
    }

    /// The next complete, decodable reply, skipping garbage, until `deadline`.
    async fn recv_reply(&mut self, deadline: Instant) -> Result<Reply, Failure> {
        loop {
            let n = match self.channel.recv(&mut self.buf, deadline).await {
                Ok(n) => n,
                Err(NetError::Timeout) => return Err(self.deadline_failure()),
                Err(e) => return Err(e.into()),
            };
            let msg = match self.reassembler.handle_datagram(&self.buf[..n]) {
                Ok(Some(msg)) => msg,
                Ok(None) => continue,
                Err(e @ DecodeError::TooLarge { .. }) => return Err(e.into()),
                Err(e) => {
                    self.garbage(e);
                    continue;
                }
            };
            match a2s::decode_reply(&msg) {
                Ok(reply) => return Ok(reply),
                Err(e) => self.garbage(e),
            }
        }
    }

    fn deadline_failure(&self) -> Failure {
        if self.reassembler.is_pending() {
            Failure::new(
                Reason::Incomplete,
                "split reply still incomplete at the deadline",
            )
        } else if let Some(e) = &self.last_garbage {
            Failure::new(
                Reason::Malformed,
                format!("only undecodable replies before the deadline; last: {e}"),
            )
        } else {
            NetError::Timeout.into()
        }
    }
}

fn note(status: &mut Status, key: &str, f: &Failure) {
    status
        .extras
        .insert(key.into(), Value::String(f.reason.as_str().into()));
}

fn note_mismatch(status: &mut Status, key: &str) {
    status
        .extras
        .insert(key.into(), Value::String(Reason::Mismatch.as_str().into()));
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

/// Rust reports true counts in keywords (`cp<n>` current players, `mp<n>` max players),
/// where the one-byte fields saturate.
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
        version: (!info.version.is_empty()).then_some(info.version),
        name: info.name,
        map: Some(info.map),
        game: Some(info.game),
        password: Some(info.visibility),
        latency,
        players: None,
        rules: None,
        extras,
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
            keywords: Some("biweekly,cp312,mp400,ptrak".into()),
            ..Info::default()
        };
        let s = to_status(info.clone(), Duration::ZERO, true);
        assert_eq!((s.online, s.max), (312, 400));
        let info = Info {
            players: 7,
            max_players: 20,
            keywords: Some("cpx,alltalk".into()),
            ..Info::default()
        };
        let s = to_status(info.clone(), Duration::ZERO, true);
        assert_eq!((s.online, s.max), (7, 20));
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
