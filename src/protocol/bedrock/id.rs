//! The server ID string a Bedrock pong carries.
//!
//! # Format
//! ```text
//! edition;MOTD line 1;protocol;version;online;max;server GUID;MOTD line 2;game mode;
//! game mode number;IPv4 port;IPv6 port;[more...]
//! ```
//! e.g. `MCPE;Dedicated Server;390;1.14.60;0;10;13253860892328930865;Bedrock level;Survival;1;19132;19133;`
//!
//! Implementations differ after the player counts: some stop after the game mode, some right
//! after the GUID, some send a 0 GUID, add fields or end with a `;`. So the first six fields
//! are required (without counts there is no status), and everything after is decoded as far
//! as it goes: a field that is missing, or a number that does not parse, stays unknown and is
//! never an error. `§` formatting codes are stripped from both MOTD lines.

use crate::protocol::minecraft::motd::strip_codes;
use crate::protocol::DecodeError;

/// The fields of a server ID string; optional ones are `None` when the server sent none (or
/// nothing that parses).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerId {
    /// `MCPE` (Bedrock) or `MCEE` (Education Edition); kept as sent.
    pub edition: String,
    /// MOTD line 1, without formatting codes.
    pub motd: String,
    pub protocol: Option<u32>,
    /// Version name, e.g. `1.21.50`.
    pub version: String,
    pub online: u32,
    pub max: u32,
    /// The GUID as the server wrote it (some write it signed, some write 0).
    pub guid: Option<String>,
    /// MOTD line 2 (the level name or a sub-MOTD), without formatting codes.
    pub level: Option<String>,
    /// e.g. `Survival`.
    pub game_mode: Option<String>,
    pub game_mode_number: Option<u32>,
    pub port_v4: Option<u16>,
    pub port_v6: Option<u16>,
}

/// Fields without which a pong says nothing useful.
const REQUIRED: usize = 6;
/// Fields we read; more are ignored. Also bounds the split.
const KNOWN: usize = 12;

/// Decodes an ID string (already bounded by the caller).
pub fn decode(raw: &[u8]) -> Result<ServerId, DecodeError> {
    let text = String::from_utf8_lossy(raw);
    let fields: Vec<&str> = text.splitn(KNOWN + 1, ';').collect();
    if fields.len() < REQUIRED {
        return Err(DecodeError::Invalid(
            "Bedrock ID string: fewer than 6 fields",
        ));
    }
    let field = |i: usize| fields.get(i).copied();
    let count = |i: usize, what| number(&fields, i).ok_or(DecodeError::Invalid(what));
    Ok(ServerId {
        edition: strip_codes(fields[0]),
        motd: strip_codes(fields[1]),
        protocol: number(&fields, 2),
        version: strip_codes(fields[3]),
        online: count(4, "Bedrock players online")?,
        max: count(5, "Bedrock players max")?,
        guid: field(6)
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map(strip_codes),
        // An empty field (often just the trailing `;`) says nothing: unknown.
        level: field(7).filter(|l| !l.is_empty()).map(strip_codes),
        game_mode: field(8).filter(|g| !g.is_empty()).map(strip_codes),
        game_mode_number: number(&fields, 9),
        port_v4: number(&fields, 10),
        port_v6: number(&fields, 11),
    })
}

/// Field `i` as a number, if it is there and parses.
fn number<T: std::str::FromStr>(fields: &[&str], i: usize) -> Option<T> {
    fields.get(i).and_then(|f| f.trim().parse().ok())
}

/// Writes an ID string in the full layout, with a trailing `;` as the vanilla server does.
/// Used by the simulator; `;` inside a field cannot be escaped and is not checked for.
pub fn encode(id: &ServerId, guid: u64) -> String {
    let opt = |v: Option<u32>| v.map(|v| v.to_string()).unwrap_or_default();
    let port = |v: Option<u16>| v.map(|v| v.to_string()).unwrap_or_default();
    format!(
        "{};{};{};{};{};{};{};{};{};{};{};{};",
        id.edition,
        id.motd,
        opt(id.protocol),
        id.version,
        id.online,
        id.max,
        id.guid.clone().unwrap_or_else(|| guid.to_string()),
        id.level.as_deref().unwrap_or(""),
        id.game_mode.as_deref().unwrap_or(""),
        opt(id.game_mode_number),
        port(id.port_v4),
        port(id.port_v6),
    )
}
