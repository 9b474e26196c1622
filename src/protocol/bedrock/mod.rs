//! Minecraft Bedrock Edition status: RakNet's unconnected ping and pong
//! (`docs/protocols/minecraft-bedrock.md`).
//!
//! # Format
//! ```text
//! ping (33 bytes): 0x01 | client time i64 | MAGIC (16) | client GUID u64
//! pong:            0x1c | client time i64 (echoed) | server GUID u64 | MAGIC (16)
//!                  | ID string length u16 | ID string (`;`-separated, see [`id`])
//! ```
//! Integers are big-endian. The time is whatever the client chose (clients send milliseconds
//! since they started); the pong must echo it, which is how a pong is matched to its ping.
//! The 16-byte magic marks RakNet's "offline" messages.
//!
//! # Driving a poll
//! Send [`encode_ping`] with a fresh time value, feed each datagram from the server's address
//! to [`decode_pong`] with that value, then [`to_status`]. A wrong type byte or too short a
//! datagram is malformed; a wrong magic or another time is a mismatch (not an answer to our
//! ping: keep waiting).

pub mod exchange;
pub mod id;

use std::time::Duration;

use serde_json::{json, Map};

use super::{DecodeError, Reader};
use crate::status::Status;
pub use id::ServerId;

/// RakNet's offline-message magic.
pub const MAGIC: [u8; 16] = [
    0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, 0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78,
];
/// Unconnected ping.
pub const UNCONNECTED_PING: u8 = 0x01;
/// Unconnected ping that servers answer only while they have open connection slots.
pub const UNCONNECTED_PING_OPEN: u8 = 0x02;
/// Unconnected pong.
pub const UNCONNECTED_PONG: u8 = 0x1c;
/// Length of a ping.
pub const PING_LEN: usize = 33;
/// Bytes of a pong before the ID string.
pub const PONG_HEADER_LEN: usize = 35;
/// The longest ID string we decode. Real ones are a few hundred bytes (two MOTD lines and
/// numbers); anything longer is refused as `too_large` instead of turned into label values.
pub const MAX_ID_BYTES: usize = 4096;

/// A ping as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ping {
    pub time: i64,
    pub client_guid: u64,
    /// Sent as 0x02: "answer only if you have open slots".
    pub open_connections: bool,
}

/// An unconnected pong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pong {
    pub time: i64,
    pub server_guid: u64,
    pub id: ServerId,
}

/// Writes an unconnected ping (0x01: answered whether or not slots are free).
pub fn encode_ping(time: i64, client_guid: u64, out: &mut Vec<u8>) {
    out.push(UNCONNECTED_PING);
    out.extend_from_slice(&time.to_be_bytes());
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&client_guid.to_be_bytes());
}

/// Decodes a ping (server side). Real servers accept trailing bytes after the GUID; so does
/// this.
pub fn decode_ping(datagram: &[u8]) -> Result<Ping, DecodeError> {
    let mut r = Reader::new(datagram);
    let open_connections = match r.u8()? {
        UNCONNECTED_PING => false,
        UNCONNECTED_PING_OPEN => true,
        other => {
            return Err(DecodeError::UnexpectedType {
                what: "RakNet ping id",
                found: other.into(),
            })
        }
    };
    let time = r.i64_be()?;
    if r.array::<16>()? != MAGIC {
        return Err(DecodeError::Invalid("RakNet magic"));
    }
    let client_guid = u64::from_be_bytes(r.array()?);
    Ok(Ping {
        time,
        client_guid,
        open_connections,
    })
}

/// Decodes a pong and checks that it answers the ping that carried `time`.
pub fn decode_pong(datagram: &[u8], time: i64) -> Result<Pong, DecodeError> {
    let mut r = Reader::new(datagram);
    let kind = r.u8()?;
    if kind != UNCONNECTED_PONG {
        return Err(DecodeError::UnexpectedType {
            what: "RakNet pong id",
            found: kind.into(),
        });
    }
    let echoed = r.i64_be()?;
    let server_guid = u64::from_be_bytes(r.array()?);
    if r.array::<16>()? != MAGIC {
        return Err(DecodeError::Mismatch("RakNet magic"));
    }
    if echoed != time {
        return Err(DecodeError::Mismatch("RakNet pong time"));
    }
    let len = usize::from(r.u16_be()?);
    if len > MAX_ID_BYTES {
        return Err(DecodeError::TooLarge {
            what: "Bedrock server ID string",
            value: len as u64,
            limit: MAX_ID_BYTES as u64,
        });
    }
    // The reader refuses a length beyond the datagram: truncated, never an allocation.
    let raw = r.bytes(len)?;
    Ok(Pong {
        time: echoed,
        server_guid,
        id: id::decode(raw)?,
    })
}

/// Writes a pong (server side) around an already-built ID string.
pub fn encode_pong(time: i64, server_guid: u64, id: &[u8], out: &mut Vec<u8>) {
    out.push(UNCONNECTED_PONG);
    out.extend_from_slice(&time.to_be_bytes());
    out.extend_from_slice(&server_guid.to_be_bytes());
    out.extend_from_slice(&MAGIC);
    // Longer strings cannot be described by the u16; they are cut to what it can say.
    let id = &id[..id.len().min(usize::from(u16::MAX))];
    out.extend_from_slice(&(id.len() as u16).to_be_bytes());
    out.extend_from_slice(id);
}

/// Normalizes a pong: name = MOTD line 1, map = MOTD line 2 (the level name), game = the game
/// mode, version = the version name. `latency` is the ping/pong round trip. Extras (edition,
/// protocol, GUIDs, ports) only with `detail`: the daemon never reads them.
pub fn to_status(pong: &Pong, latency: Duration, detail: bool) -> Status {
    let id = &pong.id;
    let mut extras = Map::new();
    if detail {
        extras.insert("edition".into(), json!(id.edition));
        // 64-bit ids as strings: JSON consumers often hold numbers as doubles.
        extras.insert("server_guid".into(), json!(pong.server_guid.to_string()));
        let optional = [
            ("protocol", id.protocol.map(|v| json!(v))),
            ("id_guid", id.guid.as_ref().map(|v| json!(v))),
            ("game_mode_number", id.game_mode_number.map(|v| json!(v))),
            ("port_v4", id.port_v4.map(|v| json!(v))),
            ("port_v6", id.port_v6.map(|v| json!(v))),
        ];
        for (k, v) in optional {
            if let Some(v) = v {
                extras.insert(k.into(), v);
            }
        }
    }
    Status {
        online: id.online,
        max: id.max,
        name: id.motd.clone(),
        map: id.level.clone(),
        game: id.game_mode.clone(),
        version: Some(id.version.clone()).filter(|v| !v.is_empty()),
        latency,
        extras,
        ..Status::default()
    }
}

pub mod spec;
#[cfg(test)]
mod tests;
