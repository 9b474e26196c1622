//! The Cube 2 engine's server-info ping (UDP, the game port + 1): Red Eclipse 1.6 and later
//! and Sauerbraten answer it. One datagram out, one back. See `docs/protocols/cube2.md`.
//!
//! # Format
//! Every number is one of the engine's packed integers ([`get_int`]): a signed byte, or
//! `80` and an i16 LE, or `81` and an i32 LE. Every string is a run of such integers, one per
//! character of the engine's code page ([`charset`]), ended by 0.
//! ```text
//! request:  any non-zero packed integer (we send 81 and a random i32), at most 32 bytes
//! reply:    the request's bytes echoed, players, n, n attributes, map\0, description\0
//!           Red Eclipse (n = 15) goes on: branch\0, players x name\0, players x handle\0
//! ```
//! Red Eclipse's attributes: game version, mode, mutators, time remaining, slots, master mode,
//! game variables, game mods, version major, minor, patch, platform, arch, game state, time
//! left. Sauerbraten's player list comes from its separate extinfo exchange ([`extinfo`]).
//! Sauerbraten's (n = 5, or 7 while paused or sped up): protocol, mode, time left,
//! slots, master mode[, paused, speed]. This is what the real servers in Debian bookworm
//! (`redeclipse-server` 1.6.0, `cube2-server` 2020-12-27) sent, and what their source reads.

pub mod charset;
pub mod exchange;
pub mod extinfo;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::reader::Reader;
use super::DecodeError;
use crate::status::{Player, Status};

/// Red Eclipse's default query port (game port 28801 + 1).
pub const DEFAULT_PORT: u16 = 28802;
/// The engine's largest packet (`MAXTRANS`); a reply larger than this is not one it sends.
pub const MAX_REPLY: usize = 5000;
/// More attributes than any dialect sends (Red Eclipse 15, Sauerbraten 7).
pub const MAX_ATTRS: usize = 64;
/// From this many attributes on, the reply is Red Eclipse's, with its branch and player names.
pub const RED_ECLIPSE_ATTRS: usize = 15;
/// The master mode that means a join password (`MM_PASSWORD`, 4 in both games).
pub const MASTER_MODE_PASSWORD: i32 = 4;

/// What follows the description in Red Eclipse's reply.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RedEclipse {
    /// The build's branch (`versionbranch`), often empty.
    pub branch: String,
    /// Player names, colour codes as sent.
    pub names: Vec<String>,
    /// Their account handles (empty where not signed in), in the same order.
    pub handles: Vec<String>,
}

/// A reply, after the echoed request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Info {
    pub players: i32,
    pub attrs: Vec<i32>,
    pub map: String,
    pub description: String,
    /// Red Eclipse's fields past the description; `None` for Sauerbraten's shorter reply.
    pub red_eclipse: Option<RedEclipse>,
}

/// Reads one packed integer.
pub fn get_int(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
    Ok(match r.u8()? {
        0x80 => i32::from(i16::from_le_bytes(r.array()?)),
        0x81 => i32::from_le_bytes(r.array()?),
        b => i32::from(b as i8),
    })
}

/// Writes one packed integer (the engine's `putint`).
pub fn put_int(n: i32, out: &mut Vec<u8>) {
    if -127 < n && n < 128 {
        out.push(n as u8);
    } else if let Ok(short) = i16::try_from(n) {
        out.push(0x80);
        out.extend_from_slice(&short.to_le_bytes());
    } else {
        out.push(0x81);
        out.extend_from_slice(&n.to_le_bytes());
    }
}

/// Reads one string: characters until a 0, each the low byte of a packed integer (as the
/// engine stores them). Running out before the 0: `Unterminated` where the string began.
pub fn get_string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let offset = r.position();
    let mut s = String::new();
    loop {
        if r.is_empty() {
            return Err(DecodeError::Unterminated { offset });
        }
        match (get_int(r)? & 0xFF) as u8 {
            0 => return Ok(s),
            code => s.push(charset::to_char(code)),
        }
    }
}

/// Writes one string (server side): each character as its code, then 0.
pub fn put_string(s: &str, out: &mut Vec<u8>) {
    for c in s.chars() {
        put_int(i32::from(charset::from_char(c) as i8), out);
    }
    out.push(0);
}

/// The request carrying `nonce` (made non-zero and always four bytes wide, so every request
/// is the same size: the server answers nothing to a 0).
pub fn encode_request(nonce: i32, out: &mut Vec<u8>) {
    let n = nonce | 0x4000_0000;
    out.push(0x81);
    out.extend_from_slice(&n.to_le_bytes());
}

/// A count read from the reply: negative is `Invalid`; more than `cap` `TooLarge`; more than
/// the bytes left could hold at `min_bytes` each, `Overrun`.
fn count(
    r: &Reader<'_>,
    what: &'static str,
    n: i32,
    min_bytes: usize,
    cap: usize,
) -> Result<usize, DecodeError> {
    let n = usize::try_from(n).map_err(|_| DecodeError::Invalid(what))?;
    if n > cap {
        return Err(DecodeError::TooLarge {
            what,
            value: n as u64,
            limit: cap as u64,
        });
    }
    let fits = r.remaining() / min_bytes;
    if n > fits {
        return Err(DecodeError::Overrun {
            what,
            value: n as u64,
            fits: fits as u64,
        });
    }
    Ok(n)
}

/// Reads a reply to `request`. Another request's echo: `Mismatch`; over [`MAX_REPLY`]:
/// `TooLarge`; a count the bytes cannot hold: `Overrun`; cut short: `Truncated` or
/// `Unterminated` where it ended.
pub fn decode(datagram: &[u8], request: &[u8]) -> Result<Info, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Cube 2 reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    if !datagram.starts_with(request) {
        return Err(DecodeError::Mismatch("Cube 2 reply echo"));
    }
    let mut r = Reader::new(datagram);
    r.skip(request.len())?;
    let players = get_int(&mut r)?;
    if players < 0 {
        return Err(DecodeError::Invalid("Cube 2 player count"));
    }
    let n = get_int(&mut r)?;
    // Each attribute is at least one byte, and two strings follow.
    let n = count(&r, "Cube 2 attribute count", n, 1, MAX_ATTRS)?;
    let attrs = (0..n).map(|_| get_int(&mut r)).collect::<Result<_, _>>()?;
    let map = get_string(&mut r)?;
    let description = get_string(&mut r)?;
    let red_eclipse = if n >= RED_ECLIPSE_ATTRS {
        let branch = get_string(&mut r)?;
        // A name and a handle per player, each at least its terminator.
        let listed = count(&r, "Red Eclipse player names", players, 2, MAX_REPLY)?;
        let names = (0..listed)
            .map(|_| get_string(&mut r))
            .collect::<Result<_, _>>()?;
        let handles = (0..listed)
            .map(|_| get_string(&mut r))
            .collect::<Result<_, _>>()?;
        Some(RedEclipse {
            branch,
            names,
            handles,
        })
    } else {
        None
    };
    Ok(Info {
        players,
        attrs,
        map,
        description,
        red_eclipse,
    })
}

/// Writes a reply (server side): the echoed request, then [`Info`] as [`decode`] reads it.
pub fn encode(request: &[u8], i: &Info, out: &mut Vec<u8>) {
    out.extend_from_slice(request);
    put_int(i.players, out);
    put_int(i.attrs.len() as i32, out);
    for &a in &i.attrs {
        put_int(a, out);
    }
    put_string(&i.map, out);
    put_string(&i.description, out);
    if let Some(re) = &i.red_eclipse {
        put_string(&re.branch, out);
        for s in re.names.iter().chain(&re.handles) {
            put_string(s, out);
        }
    }
}

/// Text without the engine's colour codes: `\f` and the character after it, or `\f[...]`
/// (a hex colour) and `\f(...)` (an icon) whole.
pub fn strip_colours(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\u{c}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('[') => while chars.next().is_some_and(|c| c != ']') {},
            Some('(') => while chars.next().is_some_and(|c| c != ')') {},
            _ => {}
        }
    }
    out
}

/// One Sauerbraten extinfo record as a [`Player`]: the name without colour codes, the
/// client number as the id, frags as the score, the ping.
pub fn ext_player(p: &extinfo::ExtPlayer) -> Player {
    Player {
        name: strip_colours(&p.name),
        id: Some(p.cn.to_string()),
        score: Some(i64::from(p.frags)),
        duration: None,
        ping: u32::try_from(p.ping).ok(),
    }
}

/// Red Eclipse's modes by number (1.6 and 2.0).
const RED_ECLIPSE_MODES: &[&str] = &[
    "demo",
    "editing",
    "deathmatch",
    "capture-the-flag",
    "defend-and-control",
    "bomber-ball",
    "race",
];

/// Sauerbraten's multiplayer modes by number, in its own short names.
const SAUERBRATEN_MODES: &[&str] = &[
    "ffa",
    "coop edit",
    "teamplay",
    "insta",
    "insta team",
    "effic",
    "effic team",
    "tac",
    "tac team",
    "capture",
    "regen capture",
    "ctf",
    "insta ctf",
    "protect",
    "insta protect",
    "hold",
    "insta hold",
    "effic ctf",
    "effic protect",
    "effic hold",
    "collect",
    "insta collect",
    "effic collect",
];

fn mode_name(names: &[&str], mode: i32) -> String {
    usize::try_from(mode)
        .ok()
        .and_then(|m| names.get(m))
        .map_or_else(|| format!("mode {mode}"), |s| (*s).to_string())
}

/// Maps a reply onto [`Status`]: the description (colour codes stripped) as the name, map,
/// players online, slots, the mode's name as the game, the password master mode; Red
/// Eclipse's version (`major.minor.patch`) and, with `players`, its player names. With
/// `detail`: the attributes by name, the raw description and Red Eclipse's branch.
pub fn to_status(i: &Info, latency: Duration, players: bool, detail: bool) -> Status {
    let attr = |k: usize| i.attrs.get(k).copied();
    let red = i.red_eclipse.as_ref();
    // The slot count and master mode sit one place later in Red Eclipse (after mutators).
    let (max_at, mastermode_at) = if red.is_some() { (4, 5) } else { (3, 4) };
    let mode = attr(1);
    let version = red.and_then(|_| Some(format!("{}.{}.{}", attr(8)?, attr(9)?, attr(10)?)));
    let modes = if red.is_some() {
        RED_ECLIPSE_MODES
    } else {
        SAUERBRATEN_MODES
    };
    let mut out = Status {
        online: u32::try_from(i.players).unwrap_or(0),
        max: attr(max_at)
            .and_then(|m| u32::try_from(m).ok())
            .unwrap_or(0),
        name: strip_colours(&i.description),
        map: (!i.map.is_empty()).then(|| i.map.clone()),
        game: mode.map(|m| mode_name(modes, m)),
        version,
        password: attr(mastermode_at).map(|m| m == MASTER_MODE_PASSWORD),
        latency,
        ..Status::default()
    };
    if players {
        if let Some(re) = red {
            let list = re.names.iter().map(|n| Player {
                name: strip_colours(n),
                id: None,
                score: None,
                duration: None,
                ping: None,
            });
            out.players = Some(list.collect());
        }
    }
    if detail {
        let mut e = Map::new();
        let names: &[&str] = if red.is_some() {
            &[
                "game_version",
                "mode",
                "mutators",
                "time_remaining",
                "slots",
                "master_mode",
                "game_vars",
                "game_mods",
                "version_major",
                "version_minor",
                "version_patch",
                "platform",
                "arch",
                "game_state",
                "time_left",
            ]
        } else {
            &[
                "protocol",
                "mode",
                "time_left",
                "slots",
                "master_mode",
                "paused",
                "game_speed",
            ]
        };
        for (k, v) in names.iter().zip(&i.attrs) {
            e.insert((*k).into(), json!(v));
        }
        e.insert("attributes".into(), json!(i.attrs));
        e.insert("raw_description".into(), json!(i.description));
        e.insert(
            "dialect".into(),
            json!(if red.is_some() {
                "redeclipse"
            } else {
                "sauerbraten"
            }),
        );
        if let Some(re) = red {
            e.insert("branch".into(), json!(re.branch));
        }
        out.extras = e;
    }
    out
}

#[cfg(test)]
mod tests;
