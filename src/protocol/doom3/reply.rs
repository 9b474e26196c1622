//! The `infoResponse` datagram, in the four layouts of the id Tech 4 games.
//!
//! ```text
//! FF FF "infoResponse" 00
//!   [ETQW: task id u32]  challenge u32  protocol (minor u16, major u16)  [ETQW: size u32]
//!   { key 00 value 00 } 00 00                          server variables, then two empty strings
//!   { number u8 | ping u16 | [rate u32] | name 00 | [layout extras] }  number == end marker
//!   os mask u32   [ETQW: ranked u8 | time left u32 | game state u8 | server type u8 | ...]
//! ```
//! All integers little-endian. Player extras: Quake 4 a clan tag string; ETQW and
//! Wolfenstein (protocol 10.17 and later) a clan tag position byte and clan tag string, then
//! a bot byte; ETQW drops the rate from protocol 10.20 on. The end marker is the engine's
//! client limit: 32, or 16 for Wolfenstein.

use super::Dialect;
use crate::protocol::{DecodeError, Reader};

/// The reply's name; ETQW's `getInfoEx` is answered with [`INFO_EX_RESPONSE`].
pub const INFO_RESPONSE: &str = "infoResponse";
pub const INFO_EX_RESPONSE: &str = "infoExResponse";
/// Most server variables kept.
pub const MAX_VARS: usize = 512;
/// Most players read (the engines' limit is 32).
pub const MAX_PLAYERS: usize = 64;
/// ETQW's last protocol with a rate per player (10.19).
const ETQW_LAST_RATE: u32 = 0x000A_0013;
/// First protocol with clan tags in ETQW and Wolfenstein (10.17).
const FIRST_CLAN_TAG: u32 = 0x000A_0011;
/// ETQW 13.9 and 13.10 pack the bot flag into one bit and shift everything after it: qstat
/// realigns the bytes by hand. We refuse those two rather than guess.
const BIT_PACKED: [u32; 2] = [0x000D_0009, 0x000D_000A];

/// The protocol version, sent as minor then major (together a u32 `major << 16 | minor`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u16,
    pub minor: u16,
}

impl Version {
    pub fn packed(self) -> u32 {
        u32::from(self.major) << 16 | u32::from(self.minor)
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Player {
    /// The client slot (not stable across maps).
    pub number: u8,
    pub ping: u16,
    /// The client's rate, where the layout has one.
    pub rate: Option<u32>,
    pub name: String,
    /// Quake 4, ETQW and Wolfenstein: the clan tag, and (ETQW, Wolfenstein) where it goes.
    pub clan: Option<String>,
    pub clan_position: Option<u8>,
    /// ETQW and Wolfenstein.
    pub bot: Option<bool>,
}

/// ETQW's fields after the os mask; each may be missing, as on older servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EtqwTail {
    pub ranked: Option<bool>,
    pub time_left: Option<u32>,
    pub game_state: Option<u8>,
    /// 0 a game server, 1 an ETQW TV server.
    pub server_type: Option<u8>,
    /// Game server: clients waiting to join.
    pub interested_clients: Option<u8>,
    /// TV server: viewers connected and the viewer limit.
    pub tv: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// `infoExResponse` rather than `infoResponse`.
    pub ex: bool,
    pub task_id: Option<u32>,
    pub challenge: u32,
    pub version: Version,
    /// ETQW's size field (qstat reads and ignores it too).
    pub size: Option<u32>,
    /// Server variables in the server's order (`si_name`, `si_map`, ...), as sent.
    pub vars: Vec<(String, String)>,
    pub players: Vec<Player>,
    pub os_mask: Option<u32>,
    pub etqw: Option<EtqwTail>,
}

impl Reply {
    /// A server variable, by case-insensitive name (the engines' cvars are).
    pub fn var(&self, key: &str) -> Option<&str> {
        crate::protocol::keyvalue::get(&self.vars, key)
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Which layout a reply to `challenge` is in, read from the reply itself: ETQW puts a task id
/// before the echoed challenge, the others echo it first; then the protocol's major version
/// tells them apart (1 Doom 3, 2 Quake 4, 3 and 4 Prey, which reads as Doom 3; 5 and later,
/// without a task id, Wolfenstein). A reply that is not an info response, or echoes neither
/// way, is a [`DecodeError::Mismatch`]: someone else's.
///
/// The challenge must not be `FFFF FFFF`, ETQW's usual task id, or the two layouts could
/// not be told apart.
pub fn detect(datagram: &[u8], challenge: u32) -> Result<Dialect, DecodeError> {
    let mut r = Reader::new(datagram);
    let marker = r
        .u16_le()
        .map_err(|_| DecodeError::Mismatch("Doom 3 out-of-band marker"))?;
    if marker != 0xFFFF {
        return Err(DecodeError::Mismatch("Doom 3 out-of-band marker"));
    }
    match r
        .cstr()
        .map_err(|_| DecodeError::Mismatch("Doom 3 reply name"))?
    {
        b"infoResponse" | b"infoExResponse" => {}
        _ => return Err(DecodeError::Mismatch("Doom 3 reply name")),
    }
    let first = r.u32_le()?;
    let second = r.u32_le()?;
    if first == challenge {
        // `second` is the version: minor u16, then major u16.
        return Ok(match second >> 16 {
            2 => Dialect::Quake4,
            0..=4 => Dialect::Doom3,
            _ => Dialect::Wolfenstein,
        });
    }
    if second == challenge {
        return Ok(Dialect::Etqw);
    }
    Err(DecodeError::Mismatch("Doom 3 challenge"))
}

/// Decodes a reply in the layout [`detect`] reads from it.
pub fn decode_detected(datagram: &[u8], challenge: u32) -> Result<(Reply, Dialect), DecodeError> {
    let dialect = detect(datagram, challenge)?;
    Ok((decode_reply(datagram, dialect, challenge)?, dialect))
}

/// Decodes a reply in `dialect`'s layout. A datagram that is not an info response, or
/// carries another challenge, is a [`DecodeError::Mismatch`]: someone else's.
pub fn decode_reply(
    datagram: &[u8],
    dialect: Dialect,
    challenge: u32,
) -> Result<Reply, DecodeError> {
    let mut r = Reader::new(datagram);
    if r.u16_le()? != 0xFFFF {
        return Err(DecodeError::Mismatch("Doom 3 out-of-band marker"));
    }
    let ex = match r
        .cstr()
        .map_err(|_| DecodeError::Mismatch("Doom 3 reply name"))?
    {
        b"infoResponse" => false,
        b"infoExResponse" => true,
        _ => return Err(DecodeError::Mismatch("Doom 3 reply name")),
    };
    let etqw = dialect == Dialect::Etqw;
    let mut reply = Reply {
        ex,
        task_id: if etqw { Some(r.u32_le()?) } else { None },
        challenge: r.u32_le()?,
        ..Reply::default()
    };
    if reply.challenge != challenge {
        return Err(DecodeError::Mismatch("Doom 3 challenge"));
    }
    let minor = r.u16_le()?;
    reply.version = Version {
        major: r.u16_le()?,
        minor,
    };
    if etqw {
        reply.size = Some(r.u32_le()?);
    }
    loop {
        let key = r.cstr()?;
        let value = r.cstr()?;
        if key.is_empty() && value.is_empty() {
            break;
        }
        if reply.vars.len() == MAX_VARS {
            return Err(DecodeError::TooLarge {
                what: "Doom 3 server variables",
                value: MAX_VARS as u64 + 1,
                limit: MAX_VARS as u64,
            });
        }
        reply.vars.push((text(key), text(value)));
    }
    let packed = reply.version.packed();
    if etqw && BIT_PACKED.contains(&packed) {
        return Err(DecodeError::Invalid(
            "ETQW 13.9/13.10 bit-packed player list",
        ));
    }
    let tail = if etqw { 5 } else { 4 };
    // Players until the end marker; like qstat, a list that runs into the tail ends there.
    while r.remaining() > tail {
        let number = r.u8()?;
        if number == dialect.end_marker() {
            break;
        }
        if reply.players.len() == MAX_PLAYERS {
            return Err(DecodeError::TooLarge {
                what: "Doom 3 players",
                value: MAX_PLAYERS as u64 + 1,
                limit: MAX_PLAYERS as u64,
            });
        }
        reply
            .players
            .push(read_player(&mut r, number, dialect, packed)?);
    }
    if r.remaining() >= 4 {
        reply.os_mask = Some(r.u32_le()?);
    }
    if etqw {
        reply.etqw = Some(read_etqw_tail(&mut r));
    }
    Ok(reply)
}

fn read_player(
    r: &mut Reader<'_>,
    number: u8,
    dialect: Dialect,
    packed: u32,
) -> Result<Player, DecodeError> {
    let mut p = Player {
        number,
        ping: r.u16_le()?,
        ..Player::default()
    };
    if dialect.has_rate(packed) {
        p.rate = Some(r.u32_le()?);
    }
    p.name = text(r.cstr()?);
    match dialect {
        Dialect::Quake4 => p.clan = Some(text(r.cstr()?)),
        Dialect::Etqw | Dialect::Wolfenstein => {
            if packed >= FIRST_CLAN_TAG {
                p.clan_position = Some(r.u8()?);
                p.clan = Some(text(r.cstr()?));
            }
            p.bot = Some(r.u8()? != 0);
        }
        Dialect::Doom3 => {}
    }
    Ok(p)
}

/// Whatever of ETQW's tail is there (qstat reads it the same forgiving way).
fn read_etqw_tail(r: &mut Reader<'_>) -> EtqwTail {
    let mut t = EtqwTail {
        ranked: r.u8().ok().map(|b| b != 0),
        ..EtqwTail::default()
    };
    if r.remaining() < 5 {
        return t;
    }
    t.time_left = r.u32_le().ok();
    t.game_state = r.u8().ok();
    t.server_type = r.u8().ok();
    match t.server_type {
        Some(0) => t.interested_clients = r.u8().ok(),
        Some(1) => {
            if let (Ok(a), Ok(b)) = (r.u32_le(), r.u32_le()) {
                t.tv = Some((a, b));
            }
        }
        _ => {}
    }
    t
}

/// Writes a reply in `dialect`'s layout (the simulator's). Fields the layout lacks are not
/// written; fields it has but the reply leaves `None` are written as zero or empty.
pub fn encode_reply(reply: &Reply, dialect: Dialect, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0xFF, 0xFF]);
    out.extend_from_slice(
        if reply.ex {
            INFO_EX_RESPONSE
        } else {
            INFO_RESPONSE
        }
        .as_bytes(),
    );
    out.push(0);
    let etqw = dialect == Dialect::Etqw;
    if etqw {
        out.extend_from_slice(&reply.task_id.unwrap_or(0).to_le_bytes());
    }
    out.extend_from_slice(&reply.challenge.to_le_bytes());
    out.extend_from_slice(&reply.version.minor.to_le_bytes());
    out.extend_from_slice(&reply.version.major.to_le_bytes());
    if etqw {
        out.extend_from_slice(&reply.size.unwrap_or(0).to_le_bytes());
    }
    for (k, v) in &reply.vars {
        put_cstr(out, k);
        put_cstr(out, v);
    }
    out.extend_from_slice(&[0, 0]);
    let packed = reply.version.packed();
    for p in &reply.players {
        out.push(p.number);
        out.extend_from_slice(&p.ping.to_le_bytes());
        if dialect.has_rate(packed) {
            out.extend_from_slice(&p.rate.unwrap_or(0).to_le_bytes());
        }
        put_cstr(out, &p.name);
        match dialect {
            Dialect::Quake4 => put_cstr(out, p.clan.as_deref().unwrap_or("")),
            Dialect::Etqw | Dialect::Wolfenstein => {
                if packed >= FIRST_CLAN_TAG {
                    out.push(p.clan_position.unwrap_or(0));
                    put_cstr(out, p.clan.as_deref().unwrap_or(""));
                }
                out.push(u8::from(p.bot.unwrap_or(false)));
            }
            Dialect::Doom3 => {}
        }
    }
    out.push(dialect.end_marker());
    out.extend_from_slice(&reply.os_mask.unwrap_or(0).to_le_bytes());
    if let (true, Some(t)) = (etqw, &reply.etqw) {
        out.push(u8::from(t.ranked.unwrap_or(false)));
        out.extend_from_slice(&t.time_left.unwrap_or(0).to_le_bytes());
        out.push(t.game_state.unwrap_or(0));
        match (t.server_type.unwrap_or(0), t.tv) {
            (1, tv) => {
                let (a, b) = tv.unwrap_or((0, 0));
                out.push(1);
                out.extend_from_slice(&a.to_le_bytes());
                out.extend_from_slice(&b.to_le_bytes());
            }
            (kind, _) => {
                out.push(kind);
                out.push(t.interested_clients.unwrap_or(0));
            }
        }
    }
}

/// A string without interior NULs (cut at the first one), then its NUL.
fn put_cstr(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    out.extend_from_slice(&b[..end]);
    out.push(0);
}

impl Dialect {
    /// The player number that ends the list: the engine's client limit.
    pub fn end_marker(self) -> u8 {
        match self {
            Dialect::Wolfenstein => 16,
            _ => 32,
        }
    }

    /// Whether players carry a rate at protocol `packed`.
    pub fn has_rate(self, packed: u32) -> bool {
        self != Dialect::Etqw || packed <= ETQW_LAST_RATE
    }
}
