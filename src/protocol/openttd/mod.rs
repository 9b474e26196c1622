//! OpenTTD's game info query over TCP (OpenTTD 12 and later): `PACKET_CLIENT_GAME_INFO` on
//! the game port, answered by one `PACKET_SERVER_GAME_INFO`. See `docs/protocols/openttd.md`.
//!
//! # Format
//! ```text
//! packet:   size:u16le (header included) type:u8 body
//! request:  03 00 07                       (CLIENT_GAME_INFO, no body)
//! reply:    size 06 game-info              (SERVER_GAME_INFO, `info::decode_game_info`)
//! refusals: size 00 (FULL) | size 01 (BANNED) | size 03 code (ERROR)
//! ```
//! The real OpenTTD 13.0 answers UDP `CLIENT_FIND_SERVER` with an empty `SERVER_RESPONSE`
//! (`03 00 01`, LAN discovery only): since 12.0 the facts travel over TCP, so this is a TCP
//! protocol. Strings are NUL-terminated UTF-8.

pub mod exchange;
pub mod info;
pub mod spec;
#[cfg(test)]
mod tests;

pub use info::{decode_game_info, encode_game_info, to_status, GameInfo, Grf};

use crate::protocol::DecodeError;

/// The packet header: size (u16 LE, itself included) and type.
pub const HEADER: usize = 3;

/// OpenTTD's own cap on a TCP packet (`TCP_MTU`, 32767): a larger size is a lie or not
/// OpenTTD.
pub const MAX_PACKET: usize = 32_767;

/// `PACKET_SERVER_FULL`: no free connection slot.
pub const SERVER_FULL: u8 = 0;
/// `PACKET_SERVER_BANNED`: our address is banned.
pub const SERVER_BANNED: u8 = 1;
/// `PACKET_SERVER_ERROR`: a `NetworkErrorCode` byte follows.
pub const SERVER_ERROR: u8 = 3;
/// `PACKET_SERVER_GAME_INFO`: the answer.
pub const SERVER_GAME_INFO: u8 = 6;
/// `PACKET_CLIENT_GAME_INFO`: the request.
pub const CLIENT_GAME_INFO: u8 = 7;

/// One framed packet: its type and body (the header stripped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub kind: u8,
    pub body: Vec<u8>,
}

/// Writes `CLIENT_GAME_INFO`: a bare header.
pub fn encode_request(out: &mut Vec<u8>) {
    encode_packet(CLIENT_GAME_INFO, &[], out);
}

/// Writes one packet (server side and request); a body that does not fit the size field is
/// cut at [`MAX_PACKET`] (the simulator's encoder never writes one).
pub fn encode_packet(kind: u8, body: &[u8], out: &mut Vec<u8>) {
    let body = &body[..body.len().min(MAX_PACKET - HEADER)];
    let size = (HEADER + body.len()) as u16;
    out.extend_from_slice(&size.to_le_bytes());
    out.push(kind);
    out.extend_from_slice(body);
}

/// Frames the first packet of `buf`: `Ok(None)` while it is incomplete. A size below the
/// header is malformed; above `cap` (at most [`MAX_PACKET`]) too large, refused before its
/// bytes arrive.
pub fn decode_packet(buf: &[u8], cap: usize) -> Result<Option<(Packet, usize)>, DecodeError> {
    let Some(head) = buf.get(..HEADER) else {
        return Ok(None);
    };
    let size = usize::from(u16::from_le_bytes([head[0], head[1]]));
    if size < HEADER {
        return Err(DecodeError::Invalid("packet size below the 3-byte header"));
    }
    let limit = cap.min(MAX_PACKET);
    if size > limit {
        return Err(DecodeError::TooLarge {
            what: "packet size",
            value: size as u64,
            limit: limit as u64,
        });
    }
    let Some(whole) = buf.get(..size) else {
        return Ok(None);
    };
    let packet = Packet {
        kind: whole[2],
        body: whole[HEADER..].to_vec(),
    };
    Ok(Some((packet, size)))
}
