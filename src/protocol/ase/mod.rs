//! All-Seeing Eye (ASE) query: Multi Theft Auto (its main user today), and older games
//! (Battlefield 1942, Far Cry, Chrome, Purge Jihad). See `docs/protocols/ase.md`.
//!
//! # Format
//! ```text
//! request: "s"
//! reply:   "EYE1" | game | port | name | gametype | map | version | password | players | max
//!          | { key | value } | empty key | { flags | [name] [team] [skin] [score] [ping] [time] }
//! ```
//! Every string is length-prefixed by one byte that counts itself: `01` is the empty string,
//! `06 "hello"` is five letters, `00` is invalid. A player's flags byte says which of its six
//! fields follow (bit 0 name ... bit 5 time). The reply is one datagram; no echo, no session:
//! the source address is all a client can match.
//!
//! One request, one reply: [`exchange`] is a `OneShot` codec. Multi Theft Auto answers on its
//! game port + 123 and caches the reply for about 10 s.

pub mod exchange;
mod map;

pub use map::{strip_mta_colors, to_status, Want};

use super::{DecodeError, Reader};

/// The full-status request.
pub const REQUEST: &[u8] = b"s";
/// What every reply starts with.
pub const MAGIC: &[u8; 4] = b"EYE1";
/// The longest string a length byte can carry.
pub const MAX_STRING: usize = 254;
/// Rules we keep; more is [`DecodeError::TooLarge`].
pub const MAX_RULES: usize = 512;
/// Players we keep; more is [`DecodeError::TooLarge`].
pub const MAX_PLAYERS: usize = 1024;

/// Which player fields follow a flags byte.
pub mod flags {
    pub const NAME: u8 = 1;
    pub const TEAM: u8 = 2;
    pub const SKIN: u8 = 4;
    pub const SCORE: u8 = 8;
    pub const PING: u8 = 16;
    pub const TIME: u8 = 32;
    pub const ALL: u8 = NAME | TEAM | SKIN | SCORE | PING | TIME;
}

/// One player as the reply lists it; fields the flags left out are `None`. Numbers stay text,
/// as sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    pub name: Option<String>,
    pub team: Option<String>,
    pub skin: Option<String>,
    pub score: Option<String>,
    pub ping: Option<String>,
    pub time: Option<String>,
}

impl Player {
    /// The flags byte for the fields present.
    pub fn flags(&self) -> u8 {
        let bit = |f: &Option<String>, b: u8| if f.is_some() { b } else { 0 };
        bit(&self.name, flags::NAME)
            | bit(&self.team, flags::TEAM)
            | bit(&self.skin, flags::SKIN)
            | bit(&self.score, flags::SCORE)
            | bit(&self.ping, flags::PING)
            | bit(&self.time, flags::TIME)
    }
}

/// A full reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// The game's short name (`mta`).
    pub game: String,
    /// The game port, as text.
    pub port: String,
    pub name: String,
    pub gametype: String,
    pub map: String,
    pub version: String,
    /// `"1"` when joining needs a password.
    pub password: String,
    pub players_online: String,
    pub players_max: String,
    pub rules: Vec<(String, String)>,
    pub players: Vec<Player>,
}

/// Decodes a request (server side): exactly `s`.
pub fn decode_request(datagram: &[u8]) -> Result<(), DecodeError> {
    if datagram == REQUEST {
        Ok(())
    } else {
        Err(DecodeError::Invalid("ASE request"))
    }
}

/// A string whose length byte counts itself.
fn string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let offset = r.position();
    let len = r.u8()?;
    let n = usize::from(len)
        .checked_sub(1)
        .ok_or(DecodeError::Invalid("ASE string length 0"))?;
    if n > r.remaining() {
        return Err(DecodeError::Truncated {
            offset,
            needed: n + 1,
            available: r.remaining() + 1,
        });
    }
    Ok(String::from_utf8_lossy(r.bytes(n)?).into_owned())
}

fn write_string(s: &str, out: &mut Vec<u8>) {
    // At most MAX_STRING bytes, cut on a character boundary so the text stays valid UTF-8.
    let mut end = s.len().min(MAX_STRING);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    out.push(end as u8 + 1);
    out.extend_from_slice(&s.as_bytes()[..end]);
}

/// Decodes a reply.
///
/// After the nine fixed strings come rules up to an empty key, then players to the end. The
/// rules' end may be missing when the datagram ends there (the player list is then empty), as
/// qstat tolerates; a flags byte of 0, or one as the last byte, ends the players too. Text
/// that is not UTF-8 decodes lossily.
pub fn decode_reply(datagram: &[u8]) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(datagram);
    if r.bytes(MAGIC.len()).ok() != Some(&MAGIC[..]) {
        return Err(DecodeError::Mismatch("ASE reply magic"));
    }
    let mut reply = Reply {
        game: string(&mut r)?,
        port: string(&mut r)?,
        name: string(&mut r)?,
        gametype: string(&mut r)?,
        map: string(&mut r)?,
        version: string(&mut r)?,
        password: string(&mut r)?,
        players_online: string(&mut r)?,
        players_max: string(&mut r)?,
        ..Reply::default()
    };
    while !r.is_empty() {
        let key = string(&mut r)?;
        if key.is_empty() {
            break;
        }
        let value = string(&mut r)?;
        if reply.rules.len() >= MAX_RULES {
            return Err(DecodeError::TooLarge {
                what: "ASE rules",
                value: reply.rules.len() as u64 + 1,
                limit: MAX_RULES as u64,
            });
        }
        reply.rules.push((key, value));
    }
    while r.remaining() > 1 {
        let bits = r.u8()?;
        if bits == 0 {
            break;
        }
        if reply.players.len() >= MAX_PLAYERS {
            return Err(DecodeError::TooLarge {
                what: "ASE players",
                value: reply.players.len() as u64 + 1,
                limit: MAX_PLAYERS as u64,
            });
        }
        let mut field = |bit: u8| -> Result<Option<String>, DecodeError> {
            if bits & bit != 0 {
                string(&mut r).map(Some)
            } else {
                Ok(None)
            }
        };
        let player = Player {
            name: field(flags::NAME)?,
            team: field(flags::TEAM)?,
            skin: field(flags::SKIN)?,
            score: field(flags::SCORE)?,
            ping: field(flags::PING)?,
            time: field(flags::TIME)?,
        };
        reply.players.push(player);
    }
    Ok(reply)
}

/// Writes a reply (server side). Strings longer than [`MAX_STRING`] bytes are cut; an empty
/// rule key (it would end the rules) is left out; a player with no field is sent with an
/// empty name (a flags byte of 0 would end the list).
pub fn encode_reply(reply: &Reply, out: &mut Vec<u8>) {
    out.extend_from_slice(MAGIC);
    for s in [
        &reply.game,
        &reply.port,
        &reply.name,
        &reply.gametype,
        &reply.map,
        &reply.version,
        &reply.password,
        &reply.players_online,
        &reply.players_max,
    ] {
        write_string(s, out);
    }
    for (k, v) in reply.rules.iter().filter(|(k, _)| !k.is_empty()) {
        write_string(k, out);
        write_string(v, out);
    }
    write_string("", out);
    for p in &reply.players {
        let bits = p.flags();
        if bits == 0 {
            out.push(flags::NAME);
            write_string("", out);
            continue;
        }
        out.push(bits);
        for f in [&p.name, &p.team, &p.skin, &p.score, &p.ping, &p.time]
            .into_iter()
            .flatten()
        {
            write_string(f, out);
        }
    }
}

pub mod spec;
#[cfg(test)]
mod tests;
