//! Tribes 1 / Starsiege server query (UDP, default 28001 for Tribes, 29001 for Starsiege):
//! one request of three bytes, one reply of length-prefixed strings. See
//! `docs/protocols/tribes1.md`.
//!
//! # Format
//! ```text
//! request:  kind:u8 key:u16        ('b' = 0x62 Tribes, 'r' = 0x72 Starsiege; any key)
//! reply:    kind+1:u8 key:u16 kind:u8 game-type:str version:str name:str body
//!   Tribes body (any game type but "Starsiege"):
//!           dedicated:u8 password:u8 players:u8 max:u8 cpu:u16le mod:str mission-type:str
//!           map:str motd:str teams:u8 team-fields:str player-fields:str
//!           teams x { name:str values:str }
//!           players x { ping/4:u8 loss:u8 team:u8 name:str values:str }
//!   Starsiege body (game type "Starsiege"):
//!           password:u8 dedicated:u8 drop-in:u8 in-progress:u8 players:u32le max:u32le
//!           team-play:u8 map:str cpu:u16le factory-vehicles:u8 tecmix:u8
//!           spawn-limit:u32le frag-limit:u32le time-limit:u32le tech-limit:u32le
//!           combat-limit:u32le mass-limit:u32le players-sent:u32le
//!           { name:str team:u8 } to the end
//! str:      length:u8 then that many Latin-1 bytes
//! ```
//! The two games share the framing and the request; which body follows is told by the game
//! type string, not by the request byte (as npm gamedig 5.3.3 reads it). `starsiege` is this
//! codec with the other request byte ([`STARSIEGE`]), not a copy.

pub mod exchange;
pub mod spec;
pub mod starsiege_spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::{DecodeError, Reader};
use crate::status::{Player, Status};

/// Tribes' request byte (`'b'`); the reply's first byte is one more.
pub const TRIBES: u8 = 0x62;
/// Starsiege's request byte (`'r'`).
pub const STARSIEGE: u8 = 0x72;
/// Tribes' default port (qstat's `-tbs`, gamedig's `t1s`).
pub const TRIBES_PORT: u16 = 28001;
/// Starsiege's default port (gamedig's `starsiege`).
pub const STARSIEGE_PORT: u16 = 29001;
/// A reply is one datagram; real ones are a few hundred bytes to ~2 KB with a full server.
pub const MAX_REPLY: usize = 8192;
/// The game type that selects the Starsiege body.
pub const STARSIEGE_GAME: &str = "Starsiege";
/// A Starsiege count (32-bit on the wire) above this is no real server's.
pub const MAX_COUNT: u32 = 1000;

/// One team of a Tribes reply: its name and its tab-separated values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Team {
    pub name: String,
    pub values: String,
}

/// One player of a Tribes reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TribesPlayer {
    /// Milliseconds / 4, as sent.
    pub ping: u8,
    pub loss: u8,
    pub team: u8,
    pub name: String,
    /// Tab-separated values in the order of the player fields (`%n`, `%p`... stand for the
    /// record's own name, ping...).
    pub values: String,
}

/// The Tribes body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tribes {
    pub dedicated: bool,
    pub password: bool,
    /// The players byte: how many records follow.
    pub players: u8,
    pub max: u8,
    pub cpu: u16,
    pub game_mod: String,
    pub mission_type: String,
    pub map: String,
    pub motd: String,
    /// The teams byte: how many team records follow.
    pub team_count: u8,
    pub team_fields: String,
    pub player_fields: String,
    pub teams: Vec<Team>,
    pub list: Vec<TribesPlayer>,
}

/// The Starsiege body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Starsiege {
    pub password: bool,
    pub dedicated: bool,
    pub drop_in: bool,
    pub in_progress: bool,
    pub players: u32,
    pub max: u32,
    pub team_play: u8,
    pub map: String,
    pub cpu: u16,
    pub factory_vehicles: u8,
    pub tecmix: u8,
    /// Spawn, frag, time, tech, combat and mass limits.
    pub limits: [u32; 6],
    pub players_sent: u32,
    /// Name and team bit (1 yellow, 2 blue, 4 red, 8 purple).
    pub list: Vec<(String, u8)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    Tribes(Tribes),
    Starsiege(Starsiege),
}

/// A decoded reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub game_type: String,
    pub version: String,
    pub name: String,
    pub body: Body,
}

/// Writes the request: the kind byte, then the key the reply must echo.
pub fn encode_request(kind: u8, key: u16, out: &mut Vec<u8>) {
    out.push(kind);
    out.extend_from_slice(&key.to_le_bytes());
}

/// The kind and key of a request (server side), if `datagram` is one.
pub fn parse_request(datagram: &[u8]) -> Option<(u8, u16)> {
    match datagram {
        [kind @ (TRIBES | STARSIEGE), a, b, ..] => Some((*kind, u16::from_le_bytes([*a, *b]))),
        _ => None,
    }
}

/// Text: Latin-1, every byte the character of the same number (gamedig reads it so).
fn text(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

fn str8(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let len = r.u8()?;
    Ok(text(r.bytes(len.into())?))
}

/// Decodes the reply to a `kind` request with `key`. Another first byte, key or echoed kind
/// is a [`DecodeError::Mismatch`] (not our answer); a length or count past the end of the
/// datagram is malformed; over [`MAX_REPLY`] is too large.
pub fn decode(datagram: &[u8], kind: u8, key: u16) -> Result<Reply, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Tribes reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    let k = key.to_le_bytes();
    if datagram.get(..4) != Some(&[kind.wrapping_add(1), k[0], k[1], kind][..]) {
        return Err(DecodeError::Mismatch("not the Tribes reply to our request"));
    }
    let mut r = Reader::new(datagram);
    r.skip(4)?;
    let game_type = str8(&mut r)?;
    let version = str8(&mut r)?;
    let name = str8(&mut r)?;
    let body = if game_type == STARSIEGE_GAME {
        Body::Starsiege(starsiege(&mut r)?)
    } else {
        Body::Tribes(tribes(&mut r)?)
    };
    Ok(Reply {
        game_type,
        version,
        name,
        body,
    })
}

/// A count of records, each at least `min` bytes, that must fit in what is left.
fn fitting(
    r: &Reader<'_>,
    what: &'static str,
    count: usize,
    min: usize,
) -> Result<(), DecodeError> {
    let fits = r.remaining() / min;
    if count > fits {
        return Err(DecodeError::Overrun {
            what,
            value: count as u64,
            fits: fits as u64,
        });
    }
    Ok(())
}

fn tribes(r: &mut Reader<'_>) -> Result<Tribes, DecodeError> {
    let dedicated = r.u8()? != 0;
    let password = r.u8()? != 0;
    let players = r.u8()?;
    let max = r.u8()?;
    let cpu = r.u16_le()?;
    let game_mod = str8(r)?;
    let mission_type = str8(r)?;
    let map = str8(r)?;
    let motd = str8(r)?;
    let team_count = r.u8()?;
    let team_fields = str8(r)?;
    let player_fields = str8(r)?;
    // A team is two strings (2 bytes at least), a player three bytes and two strings.
    fitting(r, "Tribes team count", team_count.into(), 2)?;
    let mut teams = Vec::with_capacity(team_count.into());
    for _ in 0..team_count {
        let name = str8(r)?;
        let values = str8(r)?;
        teams.push(Team { name, values });
    }
    fitting(r, "Tribes player count", players.into(), 5)?;
    let mut list = Vec::with_capacity(players.into());
    for _ in 0..players {
        list.push(TribesPlayer {
            ping: r.u8()?,
            loss: r.u8()?,
            team: r.u8()?,
            name: str8(r)?,
            values: str8(r)?,
        });
    }
    Ok(Tribes {
        dedicated,
        password,
        players,
        max,
        cpu,
        game_mod,
        mission_type,
        map,
        motd,
        team_count,
        team_fields,
        player_fields,
        teams,
        list,
    })
}

fn count(r: &mut Reader<'_>, what: &'static str) -> Result<u32, DecodeError> {
    let n = r.u32_le()?;
    if n > MAX_COUNT {
        return Err(DecodeError::Invalid(what));
    }
    Ok(n)
}

fn starsiege(r: &mut Reader<'_>) -> Result<Starsiege, DecodeError> {
    let password = r.u8()? != 0;
    let dedicated = r.u8()? != 0;
    let drop_in = r.u8()? != 0;
    let in_progress = r.u8()? != 0;
    let players = count(r, "Starsiege player count (over 1000)")?;
    let max = count(r, "Starsiege max player count (over 1000)")?;
    let team_play = r.u8()?;
    let map = str8(r)?;
    let cpu = r.u16_le()?;
    let factory_vehicles = r.u8()?;
    let tecmix = r.u8()?;
    let mut limits = [0; 6];
    for l in &mut limits {
        *l = r.u32_le()?;
    }
    let players_sent = r.u32_le()?;
    // Records run to the end of the datagram (at most MAX_REPLY / 2 of them).
    let mut list = Vec::new();
    while !r.is_empty() {
        let name = str8(r)?;
        list.push((name, r.u8()?));
    }
    Ok(Starsiege {
        password,
        dedicated,
        drop_in,
        in_progress,
        players,
        max,
        team_play,
        map,
        cpu,
        factory_vehicles,
        tecmix,
        limits,
        players_sent,
        list,
    })
}

/// Writes a string behind a u8 length, cut at 255 bytes; characters above U+00FF become `?`.
fn write_str8(s: &str, out: &mut Vec<u8>) {
    let bytes: Vec<u8> = s
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .take(255)
        .collect();
    out.push(bytes.len() as u8);
    out.extend_from_slice(&bytes);
}

/// Writes the reply to a `kind` request with `key` (simulator side): the inverse of
/// [`decode`]. Counts go out as given, whatever the lists hold.
pub fn encode(reply: &Reply, kind: u8, key: u16, out: &mut Vec<u8>) {
    out.push(kind.wrapping_add(1));
    out.extend_from_slice(&key.to_le_bytes());
    out.push(kind);
    for s in [&reply.game_type, &reply.version, &reply.name] {
        write_str8(s, out);
    }
    match &reply.body {
        Body::Tribes(t) => {
            out.extend_from_slice(&[
                u8::from(t.dedicated),
                u8::from(t.password),
                t.players,
                t.max,
            ]);
            out.extend_from_slice(&t.cpu.to_le_bytes());
            for s in [&t.game_mod, &t.mission_type, &t.map, &t.motd] {
                write_str8(s, out);
            }
            out.push(t.team_count);
            write_str8(&t.team_fields, out);
            write_str8(&t.player_fields, out);
            for team in &t.teams {
                write_str8(&team.name, out);
                write_str8(&team.values, out);
            }
            for p in &t.list {
                out.extend_from_slice(&[p.ping, p.loss, p.team]);
                write_str8(&p.name, out);
                write_str8(&p.values, out);
            }
        }
        Body::Starsiege(s) => {
            out.extend_from_slice(&[
                u8::from(s.password),
                u8::from(s.dedicated),
                u8::from(s.drop_in),
                u8::from(s.in_progress),
            ]);
            out.extend_from_slice(&s.players.to_le_bytes());
            out.extend_from_slice(&s.max.to_le_bytes());
            out.push(s.team_play);
            write_str8(&s.map, out);
            out.extend_from_slice(&s.cpu.to_le_bytes());
            out.extend_from_slice(&[s.factory_vehicles, s.tecmix]);
            for l in s.limits.iter().chain([&s.players_sent]) {
                out.extend_from_slice(&l.to_le_bytes());
            }
            for (name, team) in &s.list {
                write_str8(name, out);
                out.push(*team);
            }
        }
    }
}

/// A field list's names as gamedig 5.3.3 normalises them: split at tabs, every name but the
/// first loses its first character (a format code), trimmed, lower case.
pub fn field_names(fields: &str) -> Vec<String> {
    fields
        .split('\t')
        .enumerate()
        .map(|(i, f)| {
            let f = if i == 0 { f } else { f.get(1..).unwrap_or("") };
            f.trim().to_lowercase()
        })
        .collect()
}

/// A player's score: the value under the field named `score`, where it is a number.
fn score(fields: &[String], values: &str) -> Option<i64> {
    let at = fields.iter().position(|f| f == "score")?;
    values.split('\t').nth(at)?.trim().parse().ok()
}

/// What the caller asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Want {
    pub players: bool,
    pub detail: bool,
}

/// Maps a reply onto [`Status`]: name, version, map, counts, password; the game is the mod
/// (Tribes) or the game type; the list (name, ping, score) when asked for.
pub fn to_status(reply: &Reply, latency: Duration, want: Want) -> Status {
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let mut out = Status {
        name: reply.name.clone(),
        version: non_empty(&reply.version),
        latency,
        ..Status::default()
    };
    let mut e = Map::new();
    e.insert("game_type".into(), json!(reply.game_type));
    match &reply.body {
        Body::Tribes(t) => {
            out.online = u32::from(t.players);
            out.max = u32::from(t.max);
            out.map = non_empty(&t.map);
            out.game = non_empty(&t.game_mod).or_else(|| non_empty(&reply.game_type));
            out.password = Some(t.password);
            if want.players {
                let fields = field_names(&t.player_fields);
                out.players = Some(
                    t.list
                        .iter()
                        .map(|p| Player {
                            name: p.name.clone(),
                            score: score(&fields, &p.values),
                            ping: Some(u32::from(p.ping) * 4),
                            ..Player::default()
                        })
                        .collect(),
                );
            }
            e.insert("dedicated".into(), json!(t.dedicated));
            e.insert("mission_type".into(), json!(t.mission_type));
            e.insert("motd".into(), json!(t.motd));
            e.insert("cpu_mhz".into(), json!(t.cpu));
            e.insert(
                "teams".into(),
                json!(t.teams.iter().map(|t| &t.name).collect::<Vec<_>>()),
            );
        }
        Body::Starsiege(s) => {
            out.online = s.players;
            out.max = s.max;
            out.map = non_empty(&s.map);
            out.game = non_empty(&reply.game_type);
            out.password = Some(s.password);
            if want.players {
                out.players = Some(
                    s.list
                        .iter()
                        .map(|(name, _)| Player {
                            name: name.clone(),
                            ..Player::default()
                        })
                        .collect(),
                );
            }
            e.insert("dedicated".into(), json!(s.dedicated));
            e.insert("drop_in_progress".into(), json!(s.drop_in));
            e.insert("game_in_progress".into(), json!(s.in_progress));
            e.insert("team_play".into(), json!(s.team_play));
            e.insert("cpu_mhz".into(), json!(s.cpu));
            let [spawn, frag, time, tech, combat, mass] = s.limits;
            e.insert("spawn_limit".into(), json!(spawn));
            e.insert("frag_limit".into(), json!(frag));
            e.insert("time_limit".into(), json!(time));
            e.insert("tech_limit".into(), json!(tech));
            e.insert("combat_limit".into(), json!(combat));
            e.insert("mass_limit".into(), json!(mass));
        }
    }
    if want.detail {
        out.extras = e;
    }
    out
}

#[cfg(test)]
mod tests;
