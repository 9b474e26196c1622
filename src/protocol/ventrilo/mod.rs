//! Ventrilo 3's status query (UDP, the server's port, 3784 by default). See
//! `docs/protocols/ventrilo.md`.
//!
//! One request (`packet.rs`: a 20-byte header and 16 bytes of status password, both
//! scrambled: `obfuscation.rs`), a reply in up to 32 parts reassembled by number, whose text
//! is `KEY: value` lines (`text.rs`). This is the layout qstat (`-vent`) and npm gamedig
//! 5.3.3 (`ventrilo`) read, both after Luigi Auriemma's reverse engineering.

pub mod exchange;
pub mod obfuscation;
pub mod packet;
pub mod spec;
pub mod text;

use std::time::Duration;

use serde_json::{json, Map, Value};

pub use packet::{decode_part, encode_request, Keys, Part, Parts};
pub use text::{parse, unescape, Info};

use crate::status::{Player, Status};

/// The server's port, for the voice clients (TCP) and the status (UDP).
pub const DEFAULT_PORT: u16 = 3784;

/// Maps a reply onto [`Status`]: name `NAME`, version `VERSION`, max `MAXCLIENTS`, online
/// `CLIENTCOUNT` (or the `CLIENT` lines' number where there is none), password `AUTH` (not
/// 0: a server or per-user password). Players (`players`): each `CLIENT`'s name, ping and
/// seconds connected. Rules (`rules`): every field but the records. Detail: phonetic name,
/// comment, platform, uptime, channel count, voice codec and format, auth mode.
pub fn to_status(
    info: &Info,
    latency: Duration,
    players: bool,
    rules: bool,
    detail: bool,
) -> Result<Status, crate::protocol::DecodeError> {
    let count = |n: Option<u64>| n.map(|n| u32::try_from(n).unwrap_or(u32::MAX));
    let text = |k: &str| info.field(k).map(unescape).filter(|s| !s.is_empty());
    let online = count(info.number("CLIENTCOUNT", "Ventrilo CLIENTCOUNT")?)
        .unwrap_or(u32::try_from(info.clients.len()).unwrap_or(u32::MAX));
    let max = count(info.number("MAXCLIENTS", "Ventrilo MAXCLIENTS")?).unwrap_or(0);
    let auth = info.number("AUTH", "Ventrilo AUTH")?;
    let mut out = Status {
        online,
        max,
        name: text("NAME").unwrap_or_default(),
        version: text("VERSION"),
        password: auth.map(|a| a != 0),
        latency,
        ..Status::default()
    };
    if players {
        out.players = Some(info.clients.iter().map(player).collect());
    }
    if rules {
        out.rules = Some(
            info.fields
                .iter()
                .map(|(k, v)| (k.clone(), unescape(v)))
                .collect(),
        );
    }
    if detail {
        let mut e = Map::new();
        for (key, name) in [
            ("PHONETIC", "phonetic"),
            ("COMMENT", "comment"),
            ("PLATFORM", "platform"),
            ("VOICECODEC", "voice_codec"),
            ("VOICEFORMAT", "voice_format"),
        ] {
            if let Some(v) = text(key) {
                e.insert(name.into(), json!(v));
            }
        }
        for (key, name) in [("UPTIME", "uptime_seconds"), ("AUTH", "auth")] {
            if let Some(v) = info.field(key) {
                let v = v.trim();
                let value = v.parse::<u64>().map_or_else(|_| json!(v), Value::from);
                e.insert(name.into(), value);
            }
        }
        let channels = info
            .number("CHANNELCOUNT", "Ventrilo CHANNELCOUNT")?
            .unwrap_or(info.channels.len() as u64);
        e.insert("channels".into(), json!(channels));
        out.extras = e;
    }
    Ok(out)
}

fn player(c: &text::Record) -> Player {
    let number = |k: &str| text::record_field(c, k).and_then(|v| v.trim().parse::<u32>().ok());
    Player {
        name: text::record_field(c, "NAME")
            .map(unescape)
            .unwrap_or_default(),
        ping: number("PING"),
        duration: number("SEC").map(|s| s as f32),
        ..Player::default()
    }
}

#[cfg(test)]
mod tests;
