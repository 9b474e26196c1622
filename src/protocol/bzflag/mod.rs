//! BZFlag's query over TCP on the game port (bzfs, 5154): the connect hello, then
//! `MsgQueryGame` and `MsgQueryPlayers`, as the game's own list tools ask. See
//! `docs/protocols/bzflag.md`.
//!
//! # Format
//! ```text
//! client:   "BZFLAG\r\n\r\n" | 00 00 "qg" | 00 00 "qp"      (one write: bzfs reads on)
//! hello:    "BZFS" version:4 ASCII ("0221") player-id:u8     (0xff: no free slot, closed)
//! message:  length:u16be code:u16be body[length]              (bzfs: at most 1024 in all)
//! qg body:  22 x u16be: style options max-players max-shots team-size x6 team-max x6
//!           shake-wins shake-timeout(1/10 s) max-player-score max-team-score
//!           time-limit(s) time-elapsed(s)
//! qp body:  teams:u16be players:u16be, then one "tu" (team scores) and one "ap" per
//!           player who has entered (our own half-open slot is never one of them)
//! ap body:  id:u8 type:u16be team:u16be wins:u16be losses:u16be team-kills:u16be
//!           callsign[32] motto[128]                            (NUL-padded)
//! ```
//! Team 5 is the observers; bzfs's `max-players` counts only the playing teams, so the
//! published online count leaves observers out (they are the `observers` extra).

pub mod exchange;
pub mod game;
pub mod spec;
#[cfg(test)]
mod tests;

pub use game::{decode_game, encode_game, to_status, Game};

use crate::protocol::{DecodeError, Reader};

/// What a client sends first (`BZ_CONNECT_HEADER`).
pub const HELLO: &[u8] = b"BZFLAG\r\n\r\n";
/// What the server's answer to the hello starts with.
pub const MAGIC: &[u8; 4] = b"BZFS";
/// The answer to the hello: magic, 4-character protocol version, our player id.
pub const HELLO_REPLY: usize = 9;
/// The player id a full server sends before it closes.
pub const NO_SLOT: u8 = 0xff;
/// A message's header: length (the body's, header not counted) and code, both u16be.
pub const HEADER: usize = 4;
/// bzfs's `MaxPacketLen`: no message it sends is longer, header included.
pub const MAX_PACKET: usize = 1024;

/// `MsgQueryGame` ('qg'): the request and its answer share the code.
pub const MSG_QUERY_GAME: u16 = 0x7167;
/// `MsgQueryPlayers` ('qp').
pub const MSG_QUERY_PLAYERS: u16 = 0x7170;
/// `MsgTeamUpdate` ('tu'): team sizes and scores, sent after the `qp` answer.
pub const MSG_TEAM_UPDATE: u16 = 0x7475;
/// `MsgAddPlayer` ('ap'): one player record.
pub const MSG_ADD_PLAYER: u16 = 0x6170;

/// Callsign and motto fields of a player record (`CallSignLen`, `MottoLen`).
pub const CALLSIGN_LEN: usize = 32;
pub const MOTTO_LEN: usize = 128;
/// An `ap` body: id, five u16 and the two strings.
pub const RECORD_LEN: usize = 1 + 5 * 2 + CALLSIGN_LEN + MOTTO_LEN;
/// The observer team.
pub const OBSERVER_TEAM: u16 = 5;
/// Player type of a server-side robot (`ComputerPlayer`).
pub const COMPUTER_PLAYER: u16 = 1;
/// Player ids are one byte: a larger player count is a lie.
pub const MAX_PLAYERS: u16 = 255;

/// The server's answer to the hello.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    /// The protocol version ("0221" for BZFlag 2.4).
    pub version: String,
    /// The player slot the server gave this connection; [`NO_SLOT`] when full.
    pub id: u8,
}

/// One framed message: its code and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub code: u16,
    pub body: Vec<u8>,
}

/// One `ap` record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    pub id: u8,
    /// 0 a tank, 1 a server-side robot.
    pub kind: u16,
    pub team: u16,
    pub wins: u16,
    pub losses: u16,
    pub team_kills: u16,
    pub callsign: String,
    pub motto: String,
}

/// Writes the whole request: the hello and both queries, pipelined (bzfs reads the
/// queries from what follows the hello in its buffer).
pub fn encode_request(out: &mut Vec<u8>) {
    out.extend_from_slice(HELLO);
    encode_message(MSG_QUERY_GAME, &[], out);
    encode_message(MSG_QUERY_PLAYERS, &[], out);
}

/// Writes one message; a body longer than [`MAX_PACKET`] allows is cut (the simulator's
/// honest paths never write one).
pub fn encode_message(code: u16, body: &[u8], out: &mut Vec<u8>) {
    let body = &body[..body.len().min(MAX_PACKET - HEADER)];
    out.extend_from_slice(&(body.len() as u16).to_be_bytes());
    out.extend_from_slice(&code.to_be_bytes());
    out.extend_from_slice(body);
}

/// Writes the answer to the hello (server side).
pub fn encode_hello(version: &[u8; 4], id: u8, out: &mut Vec<u8>) {
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(version);
    out.push(id);
}

/// The answer to the hello at the start of `buf`: `Ok(None)` while incomplete. Anything
/// but `BZFS` is refused as soon as its first bytes differ.
pub fn decode_hello(buf: &[u8]) -> Result<Option<(Hello, usize)>, DecodeError> {
    let seen = buf.len().min(MAGIC.len());
    if buf[..seen] != MAGIC[..seen] {
        return Err(DecodeError::Invalid("hello answer (not BZFS)"));
    }
    let Some(head) = buf.get(..HELLO_REPLY) else {
        return Ok(None);
    };
    let version = &head[4..8];
    if !version.iter().all(u8::is_ascii_alphanumeric) {
        return Err(DecodeError::Invalid(
            "protocol version (not 4 ASCII characters)",
        ));
    }
    let hello = Hello {
        version: String::from_utf8_lossy(version).into_owned(),
        id: head[8],
    };
    Ok(Some((hello, HELLO_REPLY)))
}

/// The first message of `buf`: `Ok(None)` while incomplete; a length above what bzfs can
/// send is too large, refused before its bytes arrive.
pub fn decode_message(buf: &[u8]) -> Result<Option<(Message, usize)>, DecodeError> {
    let Some(head) = buf.get(..HEADER) else {
        return Ok(None);
    };
    let len = usize::from(u16::from_be_bytes([head[0], head[1]]));
    if len > MAX_PACKET - HEADER {
        return Err(DecodeError::TooLarge {
            what: "message length",
            value: len as u64,
            limit: (MAX_PACKET - HEADER) as u64,
        });
    }
    let Some(whole) = buf.get(..HEADER + len) else {
        return Ok(None);
    };
    let message = Message {
        code: u16::from_be_bytes([head[2], head[3]]),
        body: whole[HEADER..].to_vec(),
    };
    Ok(Some((message, HEADER + len)))
}

/// The `qp` answer: (teams, players that follow as `ap` records).
pub fn decode_player_count(body: &[u8]) -> Result<(u16, u16), DecodeError> {
    let mut r = Reader::new(body);
    let teams = r.u16_be()?;
    let players = r.u16_be()?;
    if players > MAX_PLAYERS {
        return Err(DecodeError::TooLarge {
            what: "player count",
            value: u64::from(players),
            limit: u64::from(MAX_PLAYERS),
        });
    }
    Ok((teams, players))
}

/// A NUL-padded string field: up to its first NUL, lossy UTF-8.
fn padded(field: &[u8]) -> String {
    let end = field.iter().position(|b| *b == 0).unwrap_or(field.len());
    String::from_utf8_lossy(&field[..end]).into_owned()
}

/// One `ap` body; bytes past the record are ignored.
pub fn decode_record(body: &[u8]) -> Result<Record, DecodeError> {
    let mut r = Reader::new(body);
    Ok(Record {
        id: r.u8()?,
        kind: r.u16_be()?,
        team: r.u16_be()?,
        wins: r.u16_be()?,
        losses: r.u16_be()?,
        team_kills: r.u16_be()?,
        callsign: padded(r.bytes(CALLSIGN_LEN)?),
        motto: padded(r.bytes(MOTTO_LEN)?),
    })
}

/// Writes one `ap` body (server side); strings longer than their field are cut, one byte
/// kept for the NUL as bzfs does.
pub fn encode_record(p: &Record, out: &mut Vec<u8>) {
    out.push(p.id);
    for v in [p.kind, p.team, p.wins, p.losses, p.team_kills] {
        out.extend_from_slice(&v.to_be_bytes());
    }
    for (s, len) in [(&p.callsign, CALLSIGN_LEN), (&p.motto, MOTTO_LEN)] {
        let bytes = &s.as_bytes()[..s.len().min(len - 1)];
        out.extend_from_slice(bytes);
        out.extend(std::iter::repeat_n(0, len - bytes.len()));
    }
}

/// Writes a `tu` body (server side): (team, size, wins, losses) per team.
pub fn encode_team_update(teams: &[(u16, u16, u16, u16)], out: &mut Vec<u8>) {
    out.push(u8::try_from(teams.len()).unwrap_or(u8::MAX));
    for &(team, size, wins, losses) in teams.iter().take(usize::from(u8::MAX)) {
        for v in [team, size, wins, losses] {
            out.extend_from_slice(&v.to_be_bytes());
        }
    }
}
