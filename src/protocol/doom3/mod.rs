//! id Tech 4 query (`getInfo`): Doom 3, Quake 4, Prey, Enemy Territory: Quake Wars and
//! Wolfenstein (2009). See `docs/protocols/doom3.md`.
//!
//! # Format
//! ```text
//! request: FF FF "getInfo" 00 | challenge u32 LE
//! reply:   FF FF "infoResponse" 00 | ... (see [`reply`])
//! ```
//! The reply does not name its layout ([`Dialect`]): [`reply::detect`] reads it from where the
//! challenge is echoed (ETQW puts a task id first) and the protocol version. The challenge is
//! echoed; a reply with another one is someone else's.
//!
//! # Driving a poll
//! One datagram answers: [`exchange::new`] is the poll (a `OneShot`), which maps the reply
//! with [`to_status`].

pub mod exchange;
pub mod reply;
pub mod spec;
#[cfg(test)]
mod tests;

use std::time::Duration;

use serde_json::{json, Map};

pub use exchange::GetInfo;
pub use reply::{
    decode_detected, decode_reply, detect, encode_reply, EtqwTail, Player, Reply, Version,
    MAX_PLAYERS,
};

use super::quake3::strip_colors as strip_caret_colours;
use super::{DecodeError, Reader};
use crate::status::{self, Status};

/// Which game's reply layout to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// Doom 3 (protocol 1.x) and Prey (3.x, demo 4.x): rate and name per player.
    #[default]
    Doom3,
    /// Quake 4 (2.x): a clan tag after the name.
    Quake4,
    /// Enemy Territory: Quake Wars: a task id before the challenge, a size after the
    /// version, clan tags and bot flags, a longer tail.
    Etqw,
    /// Wolfenstein (2009): Doom 3's header, ETQW's player extras, 16 clients.
    Wolfenstein,
}

/// The request: marker, command, challenge.
pub fn encode_request(challenge: u32, out: &mut Vec<u8>) {
    out.extend_from_slice(b"\xff\xffgetInfo\0");
    out.extend_from_slice(&challenge.to_le_bytes());
}

/// A request's challenge (server side). qstat sends `getInfo` and four zero bytes; a request
/// without the challenge reads as 0, as the engine's message reader does past the end.
pub fn decode_request(datagram: &[u8]) -> Result<u32, DecodeError> {
    let mut r = Reader::new(datagram);
    if r.u16_le()? != 0xFFFF || r.cstr()? != b"getInfo" {
        return Err(DecodeError::Invalid("Doom 3 request"));
    }
    Ok(r.u32_le().unwrap_or(0))
}

/// `text` without colour codes: `^` + a letter or digit (all id Tech 4 games), Quake 4's
/// `^c` + three digits (RGB, 0-9 each) and `^i` + three characters (icons).
pub fn strip_colors(text: &str) -> String {
    // No caret, no Quake 4 code: the common case skips the character walk below.
    if !text.as_bytes().contains(&b'^') {
        return strip_caret_colours(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '^' {
            if let Some(&k) = chars.peek() {
                if k == 'c' || k == 'i' || k == 'C' || k == 'I' {
                    let ahead: String = chars.clone().skip(1).take(3).collect();
                    if ahead.chars().count() == 3
                        && ahead.chars().all(|a| a.is_ascii_alphanumeric())
                    {
                        chars.nth(3);
                        continue;
                    }
                }
            }
        }
        out.push(c);
    }
    strip_caret_colours(&out)
}

/// Normalizes a reply. `online` is the player list's length (the protocol has no count; an
/// ETQW TV server counts its viewers), `max` is `si_maxPlayers` (TV: the viewer limit),
/// `name` `si_name`, `map` `si_map` (ETQW's `maps/<name>.entities` shortened to the name),
/// `game` `si_gameType`, `version` `si_version`, `password` `si_usePass`. `bots` where the
/// layout flags them.
pub fn to_status(reply: &Reply, dialect: Dialect, latency: Duration, detail: bool) -> Status {
    let var = |k: &str| reply.var(k).map(strip_colors).filter(|v| !v.is_empty());
    let mut online = reply.players.len() as u32;
    let mut max = reply
        .var("si_maxPlayers")
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    if let Some((viewers, limit)) = reply.etqw.as_ref().and_then(|t| t.tv) {
        (online, max) = (viewers, limit);
    }
    let map = var("si_map").map(|m| {
        let m = m.strip_prefix("maps/").unwrap_or(&m);
        m.strip_suffix(".entities").unwrap_or(m).to_string()
    });
    let bots = matches!(dialect, Dialect::Etqw | Dialect::Wolfenstein)
        .then(|| reply.players.iter().filter(|p| p.bot == Some(true)).count() as u32);
    let mut extras = Map::new();
    if detail {
        extras.insert("protocol".into(), json!(reply.version.to_string()));
        if let Some(m) = reply.os_mask {
            extras.insert("os_mask".into(), json!(m));
        }
        if let Some(g) = var("fs_game") {
            extras.insert("fs_game".into(), json!(g));
        }
        if let Some(t) = &reply.etqw {
            extras.insert("ranked".into(), json!(t.ranked));
            extras.insert("time_left".into(), json!(t.time_left));
            extras.insert("game_state".into(), json!(t.game_state));
            extras.insert("server_type".into(), json!(t.server_type));
        }
    }
    Status {
        online,
        max,
        bots,
        name: var("si_name").unwrap_or_default(),
        map,
        game: var("si_gameType"),
        version: var("si_version"),
        password: reply.var("si_usePass").map(|v| v.trim() == "1"),
        latency,
        players: Some(
            reply
                .players
                .iter()
                .map(|p| status::Player {
                    name: strip_colors(&p.name),
                    id: Some(p.number.to_string()),
                    ping: Some(u32::from(p.ping)),
                    ..status::Player::default()
                })
                .collect(),
        ),
        rules: Some(reply.vars.clone()),
        extras,
        ..Status::default()
    }
}
