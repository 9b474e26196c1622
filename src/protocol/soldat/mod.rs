//! Soldat's file server (TCP, the game port + 10: 23083 by default): the server's
//! `logs/gamestat.txt`, asked for by name, read as its status. See `docs/protocols/soldat.md`.
//!
//! # Format
//! ```text
//! request: "STARTFILES\r\n" "logs/gamestat.txt\r\n" "ENDFILES\r\n"
//! reply:   "STARTFILES\r\n" | 4 bytes | "logs/gamestat.txt\r\n" | 4 bytes | gamestat.txt
//!          | "ENDFILES\r\n"
//! gamestat.txt (CRLF lines):
//!          In-Game Statistics | Players: N | Map: M | Gamemode: G | Timeleft: T
//!          | [Team 1: n ... Team 4: n, team modes] | Players list: (name/kills/deaths/team/ping)
//!          | { name | kills | deaths | team | ping }   (one line each)
//! ```
//! The two 4-byte fields are not read (in the one published capture they are `00 00 00 xx`,
//! consistent with a big-endian file size; gamedig 5.3.3 does not read them either): the
//! reply ends at `ENDFILES\r\n`. The server answers only with `Allow_Download=1` and
//! `Logging=1` in its configuration.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::json;

use super::DecodeError;
use crate::status::{Player, Status};

/// The request, byte for byte.
pub const REQUEST: &[u8] = b"STARTFILES\r\nlogs/gamestat.txt\r\nENDFILES\r\n";
/// What a reply starts with.
pub const START: &[u8] = b"STARTFILES\r\n";
/// What ends a reply.
pub const END: &[u8] = b"ENDFILES\r\n";
/// The file asked for.
pub const FILE: &str = "logs/gamestat.txt";
/// The most a reply may hold: a full server's gamestat.txt is under 4 KB.
pub const MAX_REPLY: usize = 64 * 1024;
/// What the list's heading line starts with.
const LIST: &str = "Players list";

/// One player's record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub name: String,
    pub kills: i64,
    pub deaths: i64,
    pub team: u8,
    pub ping: u32,
}

/// gamestat.txt's fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Gamestat {
    pub players: u32,
    pub map: String,
    pub gamemode: String,
    pub timeleft: String,
    /// Team scores, in team modes (`Team 1:` ... `Team 4:`).
    pub teams: Vec<i64>,
    pub list: Vec<Record>,
}

/// Latin-1 bytes to text (Soldat 1.x writes its files in the system's ANSI code page;
/// names are ASCII in practice).
fn text(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The next complete reply in `buf` and the bytes it used; `None` while `ENDFILES\r\n` has
/// not come. A reply that does not start `STARTFILES\r\n` is malformed as soon as it
/// differs.
pub fn decode_frame(buf: &[u8]) -> Result<Option<(Gamestat, usize)>, DecodeError> {
    let n = buf.len().min(START.len());
    if buf[..n] != START[..n] {
        return Err(DecodeError::Invalid(
            "Soldat file server reply (no STARTFILES)",
        ));
    }
    let Some(end) = find(buf, END, START.len()) else {
        return Ok(None);
    };
    let file = file_of(&buf[START.len()..end])?;
    Ok(Some((decode_gamestat(&file)?, end + END.len())))
}

/// gamestat.txt's text out of the files part: 4 bytes, the name line, 4 bytes, the file.
fn file_of(files: &[u8]) -> Result<String, DecodeError> {
    if files.is_empty() {
        // What a server with downloads or logging off would send (nothing to give).
        return Err(DecodeError::Invalid(
            "Soldat reply without gamestat.txt (Allow_Download and Logging off?)",
        ));
    }
    let rest = files.get(4..).ok_or(DecodeError::Truncated {
        offset: START.len(),
        needed: 4,
        available: files.len(),
    })?;
    let line_end = find(rest, b"\r\n", 0).ok_or(DecodeError::Unterminated {
        offset: START.len() + 4,
    })?;
    if &rest[..line_end] != FILE.as_bytes() {
        return Err(DecodeError::Invalid("Soldat reply's file name"));
    }
    let body = rest.get(line_end + 2 + 4..).ok_or(DecodeError::Truncated {
        offset: START.len() + 4 + line_end + 2,
        needed: 4,
        available: rest.len() - line_end - 2,
    })?;
    Ok(text(body))
}

fn number<T: std::str::FromStr>(s: &str, what: &'static str) -> Result<T, DecodeError> {
    s.trim().parse().map_err(|_| DecodeError::Invalid(what))
}

/// Reads gamestat.txt (CRLF or LF lines). `Players:` must be a number; the list's records
/// are five lines each, every number a number: a record cut short is malformed.
pub fn decode_gamestat(file: &str) -> Result<Gamestat, DecodeError> {
    let mut g = Gamestat::default();
    let mut lines = file.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    let mut players = None;
    for line in lines.by_ref() {
        if line.starts_with(LIST) {
            break;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key {
            "Players" => players = Some(number(value, "Soldat player count")?),
            "Map" => g.map = value.to_string(),
            "Gamemode" => g.gamemode = value.to_string(),
            "Timeleft" => g.timeleft = value.to_string(),
            k if k.starts_with("Team ") => g.teams.push(number(value, "Soldat team score")?),
            _ => {}
        }
    }
    g.players = players.ok_or(DecodeError::Invalid("Soldat gamestat.txt without Players"))?;
    let rest: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
    if !rest.len().is_multiple_of(5) {
        return Err(DecodeError::Invalid("Soldat player record cut short"));
    }
    for r in rest.chunks(5) {
        g.list.push(Record {
            name: r[0].trim().to_string(),
            kills: number(r[1], "Soldat kills")?,
            deaths: number(r[2], "Soldat deaths")?,
            team: number(r[3], "Soldat team")?,
            ping: number(r[4], "Soldat ping")?,
        });
    }
    Ok(g)
}

/// Writes gamestat.txt as the server does (simulator side): team lines in team modes.
pub fn encode_gamestat(g: &Gamestat, out: &mut String) {
    use std::fmt::Write;
    let _ = write!(
        out,
        "In-Game Statistics\r\nPlayers: {}\r\nMap: {}\r\nGamemode: {}\r\nTimeleft: {}\r\n",
        g.players, g.map, g.gamemode, g.timeleft
    );
    for (i, t) in g.teams.iter().enumerate() {
        let _ = write!(out, "Team {}: {t}\r\n", i + 1);
    }
    out.push_str("Players list: (name/kills/deaths/team/ping)\r\n");
    for p in &g.list {
        let _ = write!(
            out,
            "{}\r\n{}\r\n{}\r\n{}\r\n{}\r\n",
            p.name, p.kills, p.deaths, p.team, p.ping
        );
    }
}

/// Writes a whole reply around `file` (simulator side): both 4-byte fields the file's size,
/// big-endian, as the published capture suggests; characters above U+00FF become `?`.
pub fn encode_reply(file: &str, out: &mut Vec<u8>) {
    let bytes: Vec<u8> = file
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    let size = u32::try_from(bytes.len()).unwrap_or(u32::MAX).to_be_bytes();
    out.extend_from_slice(START);
    out.extend_from_slice(&size);
    out.extend_from_slice(FILE.as_bytes());
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&size);
    out.extend_from_slice(&bytes);
    out.extend_from_slice(END);
}

/// Whether `bytes` hold the whole request (server side).
pub fn is_request(bytes: &[u8]) -> bool {
    bytes.starts_with(REQUEST)
}

/// Maps gamestat.txt onto [`Status`]: online is `Players:` (the file has no capacity and no
/// server name: max 0, name empty, as gamedig reads it), the map and game mode; with
/// players the names, kills as the score and pings; timeleft, team scores in detail.
pub fn to_status(g: &Gamestat, players: bool, detail: bool, latency: Duration) -> Status {
    let mut status = Status {
        online: g.players,
        map: Some(g.map.clone()).filter(|m| !m.is_empty()),
        game: Some(g.gamemode.clone()).filter(|m| !m.is_empty()),
        latency,
        ..Status::default()
    };
    if players {
        status.players = Some(
            g.list
                .iter()
                .map(|p| Player {
                    name: p.name.clone(),
                    score: Some(p.kills),
                    ping: Some(p.ping),
                    ..Player::default()
                })
                .collect(),
        );
    }
    if detail {
        status.extras.insert("timeleft".into(), json!(g.timeleft));
        if !g.teams.is_empty() {
            status.extras.insert("team_scores".into(), json!(g.teams));
        }
    }
    status
}

#[cfg(test)]
mod tests;
