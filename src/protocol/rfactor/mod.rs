//! rFactor's server query (UDP, the game port - 100: 34297 by default): one 4-byte request,
//! one datagram of fixed-size fields. See `docs/protocols/rfactor.md`.
//!
//! # Format
//! ```text
//! request:  "rF_S"
//! reply:    gamename[8] full_update:u8 region:u16 ip[4] size:u16 version:u16
//!           version_racecast:u16 game_port:u16 query_port:u16 game[20] name[28] track[32]
//!           motd[96] aids:u16 ping:u16 flags:u8 rate:u8 players:u8 max:u8 bots:u8
//!           special:u8 damage:u8 rules:u16 credits1:u8 credits2:u16 time:u16
//!           laps:u16 (sixteenths) pad[3] vehicles:NUL-terminated
//! ```
//! Integers little-endian; `name[N]` is a field of N bytes holding a NUL-terminated string
//! (Latin-1). `special` bit 1 (`0x02`) is the password, bit 2 RaceCast, bit 4 fixed setups.
//! 224 bytes before the vehicles string.

pub mod exchange;
pub mod spec;

use std::time::Duration;

use serde_json::{json, Map};

use super::reader::Reader;
use super::DecodeError;
use crate::status::Status;

/// The request.
pub const REQUEST: &[u8] = b"rF_S";
/// The query port's default (the game port 34397 - 100).
pub const DEFAULT_PORT: u16 = 34297;
/// The fixed part of a reply, before the vehicles string.
pub const FIXED_LEN: usize = 224;
/// The most a reply may hold: real ones are a few hundred bytes (the fixed part and a
/// short vehicle filter); a larger datagram is not an rFactor reply we read.
pub const MAX_REPLY: usize = 4096;

/// A reply's fields.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Info {
    pub gamename: String,
    pub region: u16,
    pub version: u16,
    pub version_racecast: u16,
    pub game_port: u16,
    pub query_port: u16,
    pub game: String,
    pub name: String,
    pub track: String,
    pub motd: String,
    pub aids: u16,
    pub ping: u16,
    pub rate: u8,
    pub players: u8,
    pub max: u8,
    pub bots: u8,
    pub special: u8,
    pub damage: u8,
    pub time: u16,
    /// Laps in sixteenths, as sent.
    pub laps16: u16,
    pub vehicles: String,
}

/// Latin-1 bytes to text.
fn latin1(b: &[u8]) -> String {
    b.iter().map(|&c| char::from(c)).collect()
}

/// A fixed field of `n` bytes, read to its first NUL (all of it without one).
fn fixed(r: &mut Reader<'_>, n: usize) -> Result<String, DecodeError> {
    let b = r.bytes(n)?;
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    Ok(latin1(&b[..end]))
}

/// Reads a reply. Shorter than [`FIXED_LEN`]: `Truncated` at the field that did not fit;
/// longer than [`MAX_REPLY`]: `TooLarge`. The vehicles string runs to its NUL or the
/// datagram's end.
pub fn decode(datagram: &[u8]) -> Result<Info, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "rFactor reply bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    let mut r = Reader::new(datagram);
    let gamename = fixed(&mut r, 8)?;
    let _full_update = r.u8()?;
    let region = r.u16_le()?;
    r.skip(4)?; // the server's own address, as it sees it
    let _size = r.u16_le()?;
    let version = r.u16_le()?;
    let version_racecast = r.u16_le()?;
    let game_port = r.u16_le()?;
    let query_port = r.u16_le()?;
    let game = fixed(&mut r, 20)?;
    let name = fixed(&mut r, 28)?;
    let track = fixed(&mut r, 32)?;
    let motd = fixed(&mut r, 96)?;
    let aids = r.u16_le()?;
    let ping = r.u16_le()?;
    let _flags = r.u8()?;
    let rate = r.u8()?;
    let players = r.u8()?;
    let max = r.u8()?;
    let bots = r.u8()?;
    let special = r.u8()?;
    let damage = r.u8()?;
    let _rules = r.u16_le()?;
    let _credits1 = r.u8()?;
    let _credits2 = r.u16_le()?;
    let time = r.u16_le()?;
    let laps16 = r.u16_le()?;
    r.skip(3)?;
    let rest = r.rest();
    let end = rest.iter().position(|&c| c == 0).unwrap_or(rest.len());
    Ok(Info {
        gamename,
        region,
        version,
        version_racecast,
        game_port,
        query_port,
        game,
        name,
        track,
        motd,
        aids,
        ping,
        rate,
        players,
        max,
        bots,
        special,
        damage,
        time,
        laps16,
        vehicles: latin1(&rest[..end]),
    })
}

/// Writes `s` into a field of `n` bytes, cut to leave room for its NUL (server side).
fn put_fixed(out: &mut Vec<u8>, s: &str, n: usize) {
    let bytes: Vec<u8> = s.chars().map(|c| u8::try_from(c).unwrap_or(b'?')).collect();
    let len = bytes.len().min(n - 1);
    out.extend_from_slice(&bytes[..len]);
    out.resize(out.len() + (n - len), 0);
}

/// Writes a reply (server side): the inverse of [`decode`].
pub fn encode(i: &Info, out: &mut Vec<u8>) {
    put_fixed(out, &i.gamename, 8);
    out.push(1);
    out.extend_from_slice(&i.region.to_le_bytes());
    out.extend_from_slice(&[127, 0, 0, 1]);
    let size = (FIXED_LEN + i.vehicles.len() + 1) as u16;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&i.version.to_le_bytes());
    out.extend_from_slice(&i.version_racecast.to_le_bytes());
    out.extend_from_slice(&i.game_port.to_le_bytes());
    out.extend_from_slice(&i.query_port.to_le_bytes());
    put_fixed(out, &i.game, 20);
    put_fixed(out, &i.name, 28);
    put_fixed(out, &i.track, 32);
    put_fixed(out, &i.motd, 96);
    out.extend_from_slice(&i.aids.to_le_bytes());
    out.extend_from_slice(&i.ping.to_le_bytes());
    out.push(0);
    out.push(i.rate);
    out.extend_from_slice(&[i.players, i.max, i.bots, i.special, i.damage]);
    out.extend_from_slice(&0u16.to_le_bytes());
    out.push(0);
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&i.time.to_le_bytes());
    out.extend_from_slice(&i.laps16.to_le_bytes());
    out.extend_from_slice(&[0, 0, 0]);
    out.extend(i.vehicles.chars().map(|c| u8::try_from(c).unwrap_or(b'?')));
    out.push(0);
}

/// The password bit of `special`.
pub const SPECIAL_PASSWORD: u8 = 0x02;

/// Maps a reply onto [`Status`]: name, track as the map, players (AI counted apart as
/// bots), capacity, the version number, the password bit; the game name (`game`, else
/// `gamename`) as the game. With `detail`: the rest as extras.
pub fn to_status(i: &Info, latency: Duration, detail: bool) -> Status {
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_string());
    let mut out = Status {
        online: u32::from(i.players),
        max: u32::from(i.max),
        bots: Some(u32::from(i.bots)),
        name: i.name.clone(),
        map: non_empty(&i.track),
        game: non_empty(&i.game).or_else(|| non_empty(&i.gamename)),
        version: Some(i.version.to_string()),
        password: Some(i.special & SPECIAL_PASSWORD != 0),
        latency,
        ..Status::default()
    };
    if detail {
        let mut e = Map::new();
        e.insert("game_port".into(), json!(i.game_port));
        e.insert("region".into(), json!(i.region));
        e.insert("motd".into(), json!(i.motd));
        e.insert("vehicles".into(), json!(i.vehicles));
        e.insert("laps".into(), json!(f64::from(i.laps16) / 16.0));
        e.insert("time".into(), json!(i.time));
        e.insert("damage".into(), json!(i.damage));
        e.insert("racecast".into(), json!(i.special & 0x04 != 0));
        e.insert("fixed_setups".into(), json!(i.special & 0x10 != 0));
        out.extras = e;
    }
    out
}

#[cfg(test)]
mod tests;
