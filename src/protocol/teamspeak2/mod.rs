//! TeamSpeak 2 query (TCP 51234): a line protocol. See `docs/protocols/teamspeak2.md`.
//!
//! # Format
//! ```text
//! banner:   "[TS]" CR LF
//! command:  word [ " " argument ] LF             (we end lines with LF)
//! reply:    { data-line CR LF } ( "OK" | "ERROR, " text ) CR LF
//! si:       data-line = key "=" value            (server_name=..., server_maxusers=...)
//! pl:       a header line of tab-separated column names, then one line per player, the
//!           same columns, strings in double quotes ("nick", "ip", "loginname")
//! ```
//! `sel <voice port>` picks the virtual server; `si` and `pl` then describe it. Nothing is
//! escaped: a value runs to the end of its line, a quoted string to its closing quote.
//! Lines are read by [`teamspeak3::next_line`](super::teamspeak3::next_line) (CR LF, LF CR
//! or LF).

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use crate::status::{Player, Status};

/// The query port's default (`tcpqueryport` in server.ini).
pub const DEFAULT_QUERY_PORT: u16 = 51234;
/// The voice port selected with `sel` unless the target names another (`voice_port`).
pub const DEFAULT_VOICE_PORT: u16 = 8767;
/// The line a server sends on connect.
pub const BANNER: &str = "[TS]";
/// The line that ends a successful reply.
pub const OK: &str = "OK";
/// Lines kept from one reply (players listed, `si` keys); more fail the poll `too_large`.
pub const MAX_LINES: usize = 1024;

/// How one reply ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum End {
    Ok,
    /// `ERROR, <text>` (`ERROR, invalid id`: no virtual server on that voice port).
    Error(String),
}

/// Whether `line` ends a reply, and how; `None` for a data line.
pub fn decode_end(line: &[u8]) -> Option<End> {
    if line == OK.as_bytes() {
        return Some(End::Ok);
    }
    let rest = line.strip_prefix(b"ERROR")?;
    let text = String::from_utf8_lossy(rest);
    Some(End::Error(
        text.trim_start_matches([',', ' ']).trim().to_string(),
    ))
}

/// `si`'s lines as (key, value) pairs in the server's order; a line without `=` is a key
/// with an empty value.
pub fn decode_info(lines: &[Vec<u8>]) -> Vec<(String, String)> {
    lines
        .iter()
        .map(|l| {
            let text = String::from_utf8_lossy(l);
            match text.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (text.into_owned(), String::new()),
            }
        })
        .collect()
}

/// The value of `key` in `si`'s pairs.
pub fn field<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A value of `pl` without its double quotes (when it has both).
fn unquote(v: &str) -> &str {
    v.strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or(v)
}

/// `pl`'s lines: the header names the columns, every other line is one player, its cells
/// matched to the header by position. Columns past the header are ignored.
pub fn decode_players(lines: &[Vec<u8>]) -> Vec<Player> {
    let Some((header, rows)) = lines.split_first() else {
        return Vec::new();
    };
    let header = String::from_utf8_lossy(header);
    let columns: Vec<&str> = header.split('\t').collect();
    let at = |name: &str| columns.iter().position(|c| *c == name);
    let (nick, ping, login, pid) = (at("nick"), at("ping"), at("logintime"), at("p_id"));
    rows.iter()
        .map(|row| {
            let row = String::from_utf8_lossy(row);
            let cells: Vec<&str> = row.split('\t').map(unquote).collect();
            let cell = |i: Option<usize>| i.and_then(|i| cells.get(i).copied());
            Player {
                name: cell(nick).unwrap_or_default().to_string(),
                id: cell(pid).map(str::to_string),
                ping: cell(ping).and_then(|v| v.trim().parse().ok()),
                duration: cell(login).and_then(|v| v.trim().parse::<u32>().ok().map(|s| s as f32)),
                ..Player::default()
            }
        })
        .collect()
}

fn number(pairs: &[(String, String)], key: &str) -> Option<u64> {
    field(pairs, key).and_then(|v| v.trim().parse::<u64>().ok())
}

fn count(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Maps `si` (and the `pl` list, when asked for) onto [`Status`]: online
/// `server_currentusers`, max `server_maxusers`, name `server_name`, password
/// `server_password`. With `detail`, the platform, uptime, channels, voice port and clan
/// flag are extras.
pub fn to_status(
    info: &[(String, String)],
    players: Option<Vec<Player>>,
    latency: Duration,
    detail: bool,
) -> Status {
    let text = |k: &str| field(info, k).map(str::to_string).filter(|s| !s.is_empty());
    let mut out = Status {
        online: count(number(info, "server_currentusers").unwrap_or(0)),
        max: count(number(info, "server_maxusers").unwrap_or(0)),
        name: text("server_name").unwrap_or_default(),
        password: number(info, "server_password").map(|n| n != 0),
        latency,
        players,
        ..Status::default()
    };
    if detail {
        let mut extras = Map::new();
        for (key, name) in [
            ("server_platform", "platform"),
            ("server_uptime", "uptime_seconds"),
            ("server_currentchannels", "channels"),
            ("server_udpport", "voice_port"),
            ("server_clan_server", "clan_server"),
        ] {
            if let Some(v) = field(info, key) {
                let value = v.parse::<u64>().map_or_else(|_| json!(v), |n| json!(n));
                extras.insert(name.into(), value);
            }
        }
        out.extras = extras;
    }
    out
}

/// Writes a command line (client side).
pub fn encode_command(word: &str, argument: Option<&str>, out: &mut Vec<u8>) {
    out.extend_from_slice(word.as_bytes());
    if let Some(a) = argument {
        out.push(b' ');
        out.extend_from_slice(a.as_bytes());
    }
    out.push(b'\n');
}

/// Writes `si`'s lines and its `OK` (server side).
pub fn encode_info(pairs: &[(String, String)], out: &mut Vec<u8>) {
    for (k, v) in pairs {
        out.extend_from_slice(format!("{k}={v}\r\n").as_bytes());
    }
    out.extend_from_slice(b"OK\r\n");
}

/// The columns of `pl`, as TeamSpeak 2 servers send them.
pub const PLAYER_COLUMNS: [&str; 16] = [
    "p_id",
    "c_id",
    "ps",
    "bs",
    "pr",
    "br",
    "pl",
    "ping",
    "logintime",
    "idletime",
    "cprivs",
    "pprivs",
    "pflags",
    "ip",
    "nick",
    "loginname",
];

/// One `pl` row (server side): the player's id, ping, seconds connected and nick; the
/// address shown as `0.0.0.0`, as servers show it to a query without admin rights.
pub fn encode_player(id: u32, ping: u32, seconds: u32, nick: &str, out: &mut Vec<u8>) {
    let row = format!(
        "{id}\t1\t0\t0\t0\t0\t0\t{ping}\t{seconds}\t0\t0\t0\t0\t\"0.0.0.0\"\t\"{nick}\"\t\"\"\r\n"
    );
    out.extend_from_slice(row.as_bytes());
}

/// `pl`'s header line (server side).
pub fn encode_player_header(out: &mut Vec<u8>) {
    out.extend_from_slice(PLAYER_COLUMNS.join("\t").as_bytes());
    out.extend_from_slice(b"\r\n");
}

#[cfg(test)]
mod tests;
