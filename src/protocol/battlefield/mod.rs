//! Frostbite 1/2 remote administration ("RCON") protocol, the part anyone may ask: Battlefield
//! Bad Company 2, 3, 4, Hardline and the two Medal of Honor games answer `serverInfo`,
//! `version` and (BF3 onwards) `listPlayers all` before any login, over TCP.
//!
//! A packet is a 12-byte header (sequence word with origin and response flags, the packet's
//! total size, the number of words) and then the words, each `u32` length, its bytes and a
//! NUL. All integers are little-endian. Codec only: [`exchange`] holds the dialogue; what real
//! servers send beyond the layout is in docs/protocols/battlefield.md.

pub mod exchange;
pub mod info;
pub mod spec;

#[cfg(test)]
mod tests;

pub use info::{decode_game, decode_players, decode_server_info, ServerInfo};

use crate::protocol::DecodeError;

/// Bit 31 of the sequence word: the packet belongs to a dialogue the client started.
pub const FROM_CLIENT: u32 = 0x8000_0000;
/// Bit 30: the packet answers a request.
pub const RESPONSE: u32 = 0x4000_0000;
/// Bits 0..=29: the sequence number.
pub const SEQUENCE_MASK: u32 = 0x3FFF_FFFF;
/// The header: sequence word, total size, word count.
pub const HEADER: usize = 12;
/// The largest packet the server admin documents allow (16 KiB); anything announcing more is
/// refused before it is read.
pub const MAX_PACKET: usize = 16384;
/// The smallest a word can take (length, no bytes, NUL): bounds a word count by the size.
const MIN_WORD: usize = 5;

/// One decoded packet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    /// The whole sequence word, flags included.
    pub sequence: u32,
    pub words: Vec<String>,
}

impl Packet {
    pub fn is_response(&self) -> bool {
        self.sequence & RESPONSE != 0
    }

    pub fn number(&self) -> u32 {
        self.sequence & SEQUENCE_MASK
    }
}

/// Writes a packet: `sequence` is the whole sequence word (flags included).
pub fn encode(sequence: u32, words: &[&str], out: &mut Vec<u8>) {
    let size = HEADER + words.iter().map(|w| w.len() + MIN_WORD).sum::<usize>();
    out.extend_from_slice(&sequence.to_le_bytes());
    out.extend_from_slice(&(size as u32).to_le_bytes());
    out.extend_from_slice(&(words.len() as u32).to_le_bytes());
    for w in words {
        out.extend_from_slice(&(w.len() as u32).to_le_bytes());
        out.extend_from_slice(w.as_bytes());
        out.push(0);
    }
}

/// A client request of sequence number `number`.
pub fn encode_request(number: u32, words: &[&str], out: &mut Vec<u8>) {
    encode(FROM_CLIENT | (number & SEQUENCE_MASK), words, out)
}

fn u32_at(buf: &[u8], offset: usize) -> Result<u32, DecodeError> {
    let bytes = buf.get(offset..offset + 4).ok_or(DecodeError::Truncated {
        offset,
        needed: 4,
        available: buf.len().saturating_sub(offset),
    })?;
    let mut b = [0u8; 4];
    b.copy_from_slice(bytes);
    Ok(u32::from_le_bytes(b))
}

/// The first packet of a stream: `Ok(None)` while its bytes have not all come,
/// `Ok(Some((packet, consumed)))` once they have. A size above `cap` (and [`MAX_PACKET`]) is
/// `TooLarge` as soon as the header shows it; a size below the header, a word count the size
/// cannot hold, a word past the size, a missing NUL, or words that end before or after the
/// size are `malformed`.
pub fn decode(buf: &[u8], cap: usize) -> Result<Option<(Packet, usize)>, DecodeError> {
    if buf.len() < HEADER {
        return Ok(None);
    }
    let sequence = u32_at(buf, 0)?;
    let size = u32_at(buf, 4)? as usize;
    let count = u32_at(buf, 8)? as usize;
    let limit = cap.min(MAX_PACKET);
    if size > limit {
        return Err(DecodeError::TooLarge {
            what: "Frostbite packet size",
            value: size as u64,
            limit: limit as u64,
        });
    }
    if size < HEADER {
        return Err(DecodeError::Invalid(
            "Frostbite packet size below its header",
        ));
    }
    let fits = (size - HEADER) / MIN_WORD;
    if count > fits {
        return Err(DecodeError::Overrun {
            what: "Frostbite word count",
            value: count as u64,
            fits: fits as u64,
        });
    }
    if buf.len() < size {
        return Ok(None);
    }
    let body = &buf[..size];
    let mut words = Vec::with_capacity(count);
    let mut at = HEADER;
    for _ in 0..count {
        let len = u32_at(body, at)? as usize;
        let start = at + 4;
        let room = size.saturating_sub(start).saturating_sub(1);
        // The word and its NUL must end inside the packet: an empty word whose length field
        // ends the packet has no room for its NUL either (found by the fuzz target).
        let nul = start.checked_add(len).filter(|&n| n < size);
        let Some(nul) = nul else {
            return Err(DecodeError::Overrun {
                what: "Frostbite word length",
                value: len as u64,
                fits: room as u64,
            });
        };
        if body[nul] != 0 {
            return Err(DecodeError::Invalid("Frostbite word without its NUL"));
        }
        words.push(String::from_utf8_lossy(&body[start..start + len]).into_owned());
        at = start + len + 1;
    }
    if at != size {
        return Err(DecodeError::Invalid(
            "Frostbite packet size disagrees with its words",
        ));
    }
    Ok(Some((Packet { sequence, words }, size)))
}
