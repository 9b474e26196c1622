//! Minecraft Query (GameSpy4) dialogue: handshake for a token (or reuse the remembered one),
//! then full stat. Full stat is the same single round trip as basic stat (a padded request,
//! a longer reply) and also carries the version and plugins, so basic stat is never used.
//!
//! Latency is the stat round trip: the handshake is skipped in steady state, so timing it
//! would make latency jump whenever the token is refreshed.

use std::time::Duration;

use serde_json::{json, Map};
use tokio::time::Instant;

use super::samp::{exchange, random_u32};
use super::{Error, Request, Session};
use crate::net;
use crate::net::buffer::RecvBuf;
use crate::net::udp::UdpChannel;
use crate::protocol::minecraft::query as mcq;
use crate::protocol::{DecodeError, Protocol};
use crate::status::{Player, Status};

/// Servers drop tokens 30 to 60 s after issuing them; an older one is not worth a try.
const TOKEN_TRUST: Duration = Duration::from_secs(30);

pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
) -> Result<Status, Error> {
    let addr = net::resolve::resolve(
        &req.address,
        Protocol::MinecraftQuery.default_port(),
        deadline,
    )
    .await?;
    // Tokens are tied to our address and port: ask for the port the token was issued to.
    let chan = UdpChannel::connect_from(addr, session.query_local_port).await?;
    let local_port = chan.local_port();
    let mut buf = RecvBuf::take();

    let remembered = session.query_token.filter(|_| {
        session.query_local_port == local_port
            && session
                .query_token_at
                .is_some_and(|at| at.elapsed() < TOKEN_TRUST)
    });
    if let Some((id, token)) = remembered {
        // A server that has rotated the token drops the stat silently: give it a third of
        // the time, then refresh the token once.
        let now = Instant::now();
        let until = now + deadline.saturating_duration_since(now) / 3;
        match stat(req, &chan, id, token, until, &mut buf).await {
            Ok(status) => return Ok(status),
            Err(f) if f.unanswered() => {}
            Err(f) => return Err(f),
        }
    }
    session.query_token = None;

    let id = mcq::mask_session(random_u32() as i32);
    let mut out = Vec::new();
    mcq::encode_handshake(id, &mut out);
    let (token, _) = exchange(&chan, &out, deadline, &mut buf, |d| {
        mcq::decode_handshake(d, id)
    })
    .await?;
    session.query_token = Some((id, token));
    session.query_token_at = Some(Instant::now());
    session.query_local_port = local_port;
    stat(req, &chan, id, token, deadline, &mut buf).await
}

async fn stat(
    req: &Request,
    chan: &UdpChannel,
    id: i32,
    token: i32,
    deadline: Instant,
    buf: &mut [u8],
) -> Result<Status, Error> {
    let mut out = Vec::new();
    let mut extras = Map::new();
    mcq::encode_full_stat(id, token, &mut out);
    let (f, latency) =
        exchange(chan, &out, deadline, buf, |d| mcq::decode_full_stat(d, id)).await?;
    let count = |key: &'static str| -> Result<u32, Error> {
        f.get(key)
            .map(|v| v.trim().parse::<u32>())
            .transpose()
            .map(Option::unwrap_or_default)
            .map_err(|_| DecodeError::Invalid(key).into())
    };
    let online = count("numplayers")?;
    let max = count("maxplayers")?;
    let text = |key: &str| f.get(key).map(str::to_string);
    for (key, name) in [
        ("game_id", "game_id"),
        ("plugins", "plugins"),
        ("hostip", "host_ip"),
    ] {
        if let Some(v) = f.get(key) {
            extras.insert(name.into(), json!(v));
        }
    }
    // A number, as basic stat carries it; a value that is not a port is left out.
    if let Some(port) = f.get("hostport").and_then(|v| v.trim().parse::<u16>().ok()) {
        extras.insert("host_port".into(), json!(port));
    }
    Ok(Status {
        online,
        max,
        // The first `hostname` is the MOTD; vanilla adds a second one holding the host ip.
        name: text("hostname").unwrap_or_default(),
        map: text("map"),
        game: text("gametype"),
        version: text("version"),
        latency,
        players: (req.players || req.detail).then(|| {
            f.players
                .iter()
                .map(|name| Player {
                    name: name.clone(),
                    ..Player::default()
                })
                .collect()
        }),
        rules: (req.rules || req.detail).then(|| f.values.clone()),
        extras,
        ..Status::default()
    })
}
