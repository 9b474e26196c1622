//! Armagetron Advanced's server browser query over UDP: `small_request` (descriptor 52) sent
//! ahead of `big_request` (53), answered by `small_server` (50) and `big_server` (51). See
//! `docs/protocols/armagetron.md`.
//!
//! # Format
//! ```text
//! packet:   { message } sender:u16be
//! message:  descriptor:u16be id:u16be shorts:u16be data[shorts * 2]
//! int:      low:u16be high:u16be                  (a 32-bit value, low half first)
//! string:   bytes:u16be  ceil(bytes / 2) x u16be   (two characters per short, the first
//!                                                   in the low byte; signed arithmetic)
//! request:  00 34 00 00 00 00 00 00               then  00 35 00 00 00 00 00 00
//! ```
//! The real server (Debian's armagetronad-dedicated 0.2.9.1) answers `big_request` only
//! while it accepts browser queries: always once it reports to a master server, else for a
//! few queries after each `small_request`; two query messages in one packet get the sender
//! banned. Hence two datagrams, the small one first.

pub mod exchange;
pub mod info;
pub mod spec;
#[cfg(test)]
mod tests;

pub use info::{decode_big_info, encode_big_info, to_status, BigInfo};

use crate::protocol::{DecodeError, Reader};

/// `small_server`: the answer to `small_request` (port and host only).
pub const SMALL_SERVER: u16 = 50;
/// `big_server`: the answer we read.
pub const BIG_SERVER: u16 = 51;
/// `small_request`: opens the server's query window.
pub const SMALL_REQUEST: u16 = 52;
/// `big_request`: asks for the full server info.
pub const BIG_REQUEST: u16 = 53;

/// One message of a packet: its descriptor and data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message<'a> {
    pub descriptor: u16,
    pub data: &'a [u8],
}

/// Writes one request packet: a message of `descriptor` without data, sender 0.
pub fn encode_request(descriptor: u16, out: &mut Vec<u8>) {
    out.extend_from_slice(&descriptor.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
}

/// Splits a packet into its messages (the sender trailer dropped). A message whose length
/// runs past the packet is an [`DecodeError::Overrun`]; a packet without room for the
/// trailer is truncated.
pub fn decode_messages(packet: &[u8]) -> Result<Vec<Message<'_>>, DecodeError> {
    let Some(body_len) = packet.len().checked_sub(2) else {
        return Err(DecodeError::Truncated {
            offset: 0,
            needed: 2,
            available: packet.len(),
        });
    };
    let mut r = Reader::new(&packet[..body_len]);
    let mut out = Vec::new();
    while !r.is_empty() {
        let descriptor = r.u16_be()?;
        let _id = r.u16_be()?;
        let shorts = usize::from(r.u16_be()?);
        if shorts * 2 > r.remaining() {
            return Err(DecodeError::Overrun {
                what: "message length",
                value: (shorts * 2) as u64,
                fits: r.remaining() as u64,
            });
        }
        out.push(Message {
            descriptor,
            data: r.bytes(shorts * 2)?,
        });
    }
    Ok(out)
}

/// Writes one message and a packet's sender trailer (the simulator's side).
pub fn encode_packet(descriptor: u16, data: &[u8], out: &mut Vec<u8>) {
    let shorts = data.len().div_ceil(2).min(usize::from(u16::MAX));
    out.extend_from_slice(&descriptor.to_be_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&(shorts as u16).to_be_bytes());
    out.extend_from_slice(&data[..data.len().min(shorts * 2)]);
    if data.len() % 2 == 1 {
        out.push(0);
    }
    out.extend_from_slice(&[0, 0]);
}

/// A 32-bit int: the low short, then the high one (signed).
pub fn read_int(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
    let low = u32::from(r.u16_be()?);
    let high = u32::from(r.u16_be()?);
    Ok(((high << 16) | low) as i32)
}

pub fn write_int(v: i32, out: &mut Vec<u8>) {
    let v = v as u32;
    out.extend_from_slice(&((v & 0xFFFF) as u16).to_be_bytes());
    out.extend_from_slice(&((v >> 16) as u16).to_be_bytes());
}

/// A string: its byte count, then two characters per short, undoing the engine's signed
/// packing (a first character of 128 or more borrowed one from the second). Trailing NULs
/// are dropped; bytes are Latin-1.
pub fn read_string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let len = usize::from(r.u16_be()?);
    let shorts = len.div_ceil(2);
    if shorts * 2 > r.remaining() {
        return Err(DecodeError::Overrun {
            what: "string length",
            value: len as u64,
            fits: r.remaining() as u64,
        });
    }
    let mut bytes = Vec::with_capacity(len);
    for _ in 0..shorts {
        let w = r.u16_be()?;
        let lo = (w & 0xFF) as u8;
        let hi = ((w >> 8) as u8).wrapping_add(u8::from(lo >= 0x80));
        bytes.push(lo);
        bytes.push(hi);
    }
    bytes.truncate(len);
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    Ok(bytes.iter().map(|&b| char::from(b)).collect())
}

/// Writes a string the way the engine does: Latin-1 (other characters as `?`), its NUL
/// counted, the signed packing kept.
pub fn write_string(s: &str, out: &mut Vec<u8>) {
    let mut bytes: Vec<u8> = s
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .filter(|&b| b != 0)
        .collect();
    if bytes.is_empty() {
        out.extend_from_slice(&[0, 0]);
        return;
    }
    bytes.push(0);
    let len = bytes.len().min(usize::from(u16::MAX) - 1);
    bytes.truncate(len);
    out.extend_from_slice(&(len as u16).to_be_bytes());
    for pair in bytes.chunks(2) {
        let lo = i16::from(pair[0] as i8);
        let hi = i16::from(pair.get(1).copied().unwrap_or(0) as i8);
        let w = lo.wrapping_add(hi.wrapping_shl(8));
        out.extend_from_slice(&w.to_be_bytes());
    }
}

/// Armagetron's colour codes (`0xRRGGBB`, `0xRESETT`) taken out of a text.
pub fn strip_colours(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && b.get(i + 1) == Some(&b'x') && i + 8 <= b.len() {
            let code = &b[i + 2..i + 8];
            if code.iter().all(u8::is_ascii_hexdigit) || code == b"RESETT" {
                i += 8;
                continue;
            }
        }
        // Byte-wise is safe: the strings are Latin-1 mapped to chars, so only ASCII is
        // matched above and every char boundary is kept.
        let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
        out.push(c);
        i += c.len_utf8();
    }
    out
}
