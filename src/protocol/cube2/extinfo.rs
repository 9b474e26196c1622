//! Sauerbraten's "extinfo" player list: a request starting with 0 on the same socket as the
//! server-info ping, answered by several datagrams. See `docs/protocols/cube2.md`.
//!
//! ```text
//! request:  0, 1 (EXT_PLAYERSTATS), -1 (every client), then our nonce (81 + i32), echoed
//! header:   the request echoed, -1 (ack), 105 (version), 0 (no error), -10, client ids...
//! player:   the request echoed, -1, 105, 0, -11, cn, ping, name\0, team\0, frags, flags,
//!           deaths, teamkills, accuracy, health, armour, gun, privilege, state, 3 IP bytes
//! error:    the request echoed, -1, 105, 1
//! ```
//! One header datagram, then one datagram per client id, bots included. The real
//! `cube2-server` (2020-12-27) sent exactly this, and echoed the bytes after `-1` too, which
//! is how a reply names the poll it answers.

use super::{get_int, get_string, put_int, put_string, MAX_REPLY};
use crate::protocol::reader::Reader;
use crate::protocol::DecodeError;

/// The acknowledgement every extinfo reply starts with (`EXT_ACK`).
pub const ACK: i32 = -1;
/// The extinfo version Sauerbraten 2020 sends (`EXT_VERSION`).
pub const VERSION: i32 = 105;
/// The header datagram's marker (`EXT_PLAYERSTATS_RESP_IDS`).
pub const IDS: i32 = -10;
/// A player datagram's marker (`EXT_PLAYERSTATS_RESP_STATS`).
pub const STATS: i32 = -11;
/// Bots the engine adds beyond its player slots (`MAXBOTS`): the header may list them too.
pub const MAX_BOTS: usize = 32;
/// The engine's client slots (`MAXCLIENTS`): bots are numbered from here on.
pub const FIRST_BOT: i32 = 128;
/// No server has more clients than this (`MAXCLIENTS` plus the bots).
pub const MAX_IDS: usize = FIRST_BOT as usize + MAX_BOTS;

/// One client's record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ExtPlayer {
    pub cn: i32,
    pub ping: i32,
    pub name: String,
    pub team: String,
    pub frags: i32,
    pub flags: i32,
    pub deaths: i32,
    pub teamkills: i32,
    pub accuracy: i32,
    pub health: i32,
    pub armour: i32,
    pub gun: i32,
    pub privilege: i32,
    pub state: i32,
    /// The first three bytes of the address (zero unless the server's `extinfoip` is on).
    pub ip: [u8; 3],
}

/// One extinfo datagram.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// The header: the ids whose records follow.
    Ids(Vec<i32>),
    Player(ExtPlayer),
}

/// The request for every client's record, carrying `nonce` (always four bytes wide).
pub fn encode_request(nonce: i32, out: &mut Vec<u8>) {
    out.extend_from_slice(&[0, 1, 0xFF]);
    out.push(0x81);
    out.extend_from_slice(&nonce.to_le_bytes());
}

/// Reads one datagram answering `request`. Another request's echo: `Mismatch`; an error
/// answer or another version: `Invalid`; over [`MAX_REPLY`] or more than `max_ids` ids:
/// `TooLarge`; cut short: `Truncated` / `Unterminated`.
pub fn decode(datagram: &[u8], request: &[u8], max_ids: usize) -> Result<Reply, DecodeError> {
    if datagram.len() > MAX_REPLY {
        return Err(DecodeError::TooLarge {
            what: "Sauerbraten extinfo bytes",
            value: datagram.len() as u64,
            limit: MAX_REPLY as u64,
        });
    }
    if !datagram.starts_with(request) {
        return Err(DecodeError::Mismatch("Sauerbraten extinfo echo"));
    }
    let mut r = Reader::new(datagram);
    r.skip(request.len())?;
    if get_int(&mut r)? != ACK {
        return Err(DecodeError::Invalid("Sauerbraten extinfo ack"));
    }
    if get_int(&mut r)? != VERSION {
        return Err(DecodeError::Invalid("Sauerbraten extinfo version"));
    }
    if get_int(&mut r)? != 0 {
        return Err(DecodeError::Invalid("Sauerbraten extinfo error answer"));
    }
    match get_int(&mut r)? {
        IDS => {
            let mut ids = Vec::new();
            while !r.is_empty() {
                if ids.len() == max_ids {
                    return Err(DecodeError::TooLarge {
                        what: "Sauerbraten extinfo client ids",
                        value: ids.len() as u64 + 1,
                        limit: max_ids as u64,
                    });
                }
                ids.push(get_int(&mut r)?);
            }
            Ok(Reply::Ids(ids))
        }
        STATS => {
            let cn = get_int(&mut r)?;
            let ping = get_int(&mut r)?;
            let name = get_string(&mut r)?;
            let team = get_string(&mut r)?;
            let mut n = [0; 10];
            for v in &mut n {
                *v = get_int(&mut r)?;
            }
            let [frags, flags, deaths, teamkills, accuracy, health, armour, gun, privilege, state] =
                n;
            Ok(Reply::Player(ExtPlayer {
                cn,
                ping,
                name,
                team,
                frags,
                flags,
                deaths,
                teamkills,
                accuracy,
                health,
                armour,
                gun,
                privilege,
                state,
                ip: r.array()?,
            }))
        }
        _ => Err(DecodeError::Invalid("Sauerbraten extinfo reply type")),
    }
}

/// The prefix every reply to `request` starts with (server side).
fn prefix(request: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(request);
    put_int(ACK, out);
    put_int(VERSION, out);
    put_int(0, out);
}

/// Writes the header datagram (server side).
pub fn encode_ids(request: &[u8], ids: &[i32], out: &mut Vec<u8>) {
    prefix(request, out);
    put_int(IDS, out);
    for &id in ids {
        put_int(id, out);
    }
}

/// Writes one player datagram (server side), as [`decode`] reads it.
pub fn encode_player(request: &[u8], p: &ExtPlayer, out: &mut Vec<u8>) {
    prefix(request, out);
    put_int(STATS, out);
    put_int(p.cn, out);
    put_int(p.ping, out);
    put_string(&p.name, out);
    put_string(&p.team, out);
    for v in [
        p.frags,
        p.flags,
        p.deaths,
        p.teamkills,
        p.accuracy,
        p.health,
        p.armour,
        p.gun,
        p.privilege,
        p.state,
    ] {
        put_int(v, out);
    }
    out.extend_from_slice(&p.ip);
}

/// How many ids a header may list for a server whose info reply said `players` and `slots`:
/// its slots (or players, if more) plus the bots, never past [`MAX_IDS`].
pub fn id_cap(players: i32, slots: Option<i32>) -> usize {
    let humans = usize::try_from(players.max(slots.unwrap_or(0))).unwrap_or(0);
    humans.saturating_add(MAX_BOTS).min(MAX_IDS)
}
