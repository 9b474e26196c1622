//! The three replies: server info (type 0), rules (1) and players (2).
//!
//! ```text
//! every datagram: header u32 LE (the engine's query version) | type u8 | body
//! info:    server id i32 | ip string | game port i32 | query port i32 | name | map
//!          | game type | players i32 | max players i32
//!          [ | (Killing Floor: wave i32 | waves i32) | ping i32 | flags i32 | skill ]
//! rules:   { key string | value string }            (to the end of the datagram)
//! players: { id i32 | name | ping i32 | score i32 | stats id i32 }   (to the end)
//! ```
//! All integers little-endian. UT2003 stops after the maximum; UT2004 and its descendants add
//! ping, flags and skill; Killing Floor puts its wave counters before them. The tail is told
//! apart by where it ends: a tail that fits neither layout exactly is ignored, not an error
//! (the counts before it are what we need).

use super::text::{read_string, write_string};
use crate::protocol::{DecodeError, Reader};

/// Query versions in the header, as qstat knows them: 0x77 Pariah demo, 0x78 UT2003 demo,
/// 0x79 UT2003, 0x7E Unreal II XMP, 0x7F UT2004 demo, 0x80 UT2004 (and Killing Floor, Red
/// Orchestra, which answer like it). Anything else is not an Unreal 2 reply.
pub const VERSIONS: [u32; 6] = [0x77, 0x78, 0x79, 0x7E, 0x7F, 0x80];

/// The smallest player entry: id, an empty name, ping, score, stats id.
const MIN_PLAYER_BYTES: usize = 4 + 1 + 4 + 4 + 4;

/// What a datagram carries; also the request's type byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Info = 0,
    Rules = 1,
    Players = 2,
}

impl Kind {
    pub fn from_byte(b: u8) -> Option<Kind> {
        match b {
            0 => Some(Kind::Info),
            1 => Some(Kind::Rules),
            2 => Some(Kind::Players),
            _ => None,
        }
    }
}

/// The server info reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Info {
    pub server_id: i32,
    /// Usually empty: servers leave their address to the socket.
    pub ip: String,
    pub game_port: i32,
    pub query_port: i32,
    pub name: String,
    pub map: String,
    /// The game's class name: `xDeathMatch`, `KFGameType`, `ROTeamGame`...
    pub game_type: String,
    pub players: i32,
    pub max_players: i32,
    /// Killing Floor's current and total waves.
    pub waves: Option<(i32, i32)>,
    /// UT2004's tail: the server's ping (unused, 0 on most servers), its flags and skill.
    pub tail: Option<Tail>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tail {
    pub ping: i32,
    /// Bit 0: password; others are engine-specific (stats, lan, ...).
    pub flags: i32,
    pub skill: String,
}

/// One entry of the players reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    pub id: i32,
    pub name: String,
    pub ping: i32,
    pub score: i32,
    /// UT2004's stats id; qstat reads team bits (29 red, 30 blue) here.
    pub stats_id: i32,
}

/// A decoded datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    Info(Info),
    Rules(Vec<(String, String)>),
    Players(Vec<Player>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// The header's query version, one of [`VERSIONS`].
    pub version: u32,
    pub body: Body,
}

/// Reads the header and type: a foreign header is a mismatch (not ours), a known header
/// with an unknown type is invalid.
pub fn decode_header<'a>(datagram: &'a [u8]) -> Result<(u32, Kind, Reader<'a>), DecodeError> {
    let mut r = Reader::new(datagram);
    let version = r.u32_le()?;
    if !VERSIONS.contains(&version) {
        return Err(DecodeError::Mismatch("Unreal 2 header"));
    }
    let kind = r.u8()?;
    let kind = Kind::from_byte(kind).ok_or(DecodeError::UnexpectedType {
        what: "Unreal 2 reply type",
        found: u32::from(kind),
    })?;
    Ok((version, kind, r))
}

/// Decodes one reply datagram of any kind.
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let (version, kind, mut r) = decode_header(datagram)?;
    let body = match kind {
        Kind::Info => Body::Info(decode_info(&mut r)?),
        Kind::Rules => Body::Rules(decode_rules(&mut r)?),
        Kind::Players => Body::Players(decode_players(&mut r)?),
    };
    Ok(Reply { version, body })
}

fn decode_info(r: &mut Reader<'_>) -> Result<Info, DecodeError> {
    let mut info = Info {
        server_id: r.i32_le()?,
        ip: read_string(r)?,
        game_port: r.i32_le()?,
        query_port: r.i32_le()?,
        name: read_string(r)?,
        map: read_string(r)?,
        game_type: read_string(r)?,
        players: r.i32_le()?,
        max_players: r.i32_le()?,
        ..Info::default()
    };
    if r.is_empty() {
        return Ok(info);
    }
    let at = r.clone();
    if let Some(tail) = read_tail(r) {
        info.tail = Some(tail);
        return Ok(info);
    }
    *r = at;
    if let Some((waves, tail)) = read_waves_and_tail(r) {
        info.waves = Some(waves);
        info.tail = Some(tail);
    }
    Ok(info)
}

/// Killing Floor's wave counters, then the tail, if they end the datagram exactly.
fn read_waves_and_tail(r: &mut Reader<'_>) -> Option<((i32, i32), Tail)> {
    let waves = (r.i32_le().ok()?, r.i32_le().ok()?);
    Some((waves, read_tail(r)?))
}

/// Ping, flags and skill, if they end the datagram exactly.
fn read_tail(r: &mut Reader<'_>) -> Option<Tail> {
    let tail = Tail {
        ping: r.i32_le().ok()?,
        flags: r.i32_le().ok()?,
        skill: read_string(r).ok()?,
    };
    r.is_empty().then_some(tail)
}

fn decode_rules(r: &mut Reader<'_>) -> Result<Vec<(String, String)>, DecodeError> {
    // Two length bytes per rule at least; never reserve more than could have arrived.
    let mut rules = Vec::with_capacity((r.remaining() / 2).min(64));
    while !r.is_empty() {
        rules.push((read_string(r)?, read_string(r)?));
    }
    Ok(rules)
}

fn decode_players(r: &mut Reader<'_>) -> Result<Vec<Player>, DecodeError> {
    let mut players = Vec::with_capacity((r.remaining() / MIN_PLAYER_BYTES).min(64));
    while !r.is_empty() {
        players.push(Player {
            id: r.i32_le()?,
            name: read_string(r)?,
            ping: r.i32_le()?,
            score: r.i32_le()?,
            stats_id: r.i32_le()?,
        });
    }
    Ok(players)
}

fn header(version: u32, kind: Kind, out: &mut Vec<u8>) {
    out.extend_from_slice(&version.to_le_bytes());
    out.push(kind as u8);
}

/// Writes an info reply (the simulator's).
pub fn encode_info(version: u32, info: &Info, out: &mut Vec<u8>) {
    header(version, Kind::Info, out);
    out.extend_from_slice(&info.server_id.to_le_bytes());
    write_string(&info.ip, out);
    out.extend_from_slice(&info.game_port.to_le_bytes());
    out.extend_from_slice(&info.query_port.to_le_bytes());
    write_string(&info.name, out);
    write_string(&info.map, out);
    write_string(&info.game_type, out);
    out.extend_from_slice(&info.players.to_le_bytes());
    out.extend_from_slice(&info.max_players.to_le_bytes());
    if let Some(tail) = &info.tail {
        if let Some((wave, waves)) = info.waves {
            out.extend_from_slice(&wave.to_le_bytes());
            out.extend_from_slice(&waves.to_le_bytes());
        }
        out.extend_from_slice(&tail.ping.to_le_bytes());
        out.extend_from_slice(&tail.flags.to_le_bytes());
        write_string(&tail.skill, out);
    }
}

/// Writes one rules datagram holding `rules`.
pub fn encode_rules(version: u32, rules: &[(String, String)], out: &mut Vec<u8>) {
    header(version, Kind::Rules, out);
    for (k, v) in rules {
        write_string(k, out);
        write_string(v, out);
    }
}

/// Writes one players datagram holding `players`.
pub fn encode_players(version: u32, players: &[Player], out: &mut Vec<u8>) {
    header(version, Kind::Players, out);
    for p in players {
        out.extend_from_slice(&p.id.to_le_bytes());
        write_string(&p.name, out);
        out.extend_from_slice(&p.ping.to_le_bytes());
        out.extend_from_slice(&p.score.to_le_bytes());
        out.extend_from_slice(&p.stats_id.to_le_bytes());
    }
}
