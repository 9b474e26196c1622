//! Packets: the 20-byte header, a request, a reply's parts and their reassembly.
//!
//! ```text
//! header (20 bytes, u16 big-endian fields; all but the key scrambled with it):
//!   key (start, step) | zero | cmd | id | total length | length | total parts | part
//!   | data key (start, step) | crc of the whole plain text
//! data: `length` bytes scrambled with the data key
//! ```
//! A request is one packet: command 1 (general) or 2 (detail), an id, and 16 bytes of data,
//! the status password padded with NULs. The reply is command 3 in up to 32 parts of at most
//! 492 data bytes, each echoing the request's id, numbered from 0; their data in part order
//! is the text (`text.rs`).

use super::obfuscation::{self, Key, DATA_PERIOD, DATA_TABLE, HEADER_PERIOD, HEADER_TABLE};
use crate::protocol::reader::Reader;
use crate::protocol::DecodeError;

/// Bytes in a packet's header.
pub const HEADER_LEN: usize = 20;
/// Data bytes a part carries at most (qstat's and the PHP reader's figure: 512-byte packets).
pub const MAX_PART_DATA: usize = 492;
/// A packet's size at most.
pub const MAX_PACKET: usize = HEADER_LEN + MAX_PART_DATA;
/// Parts a reply has at most.
pub const MAX_PARTS: u16 = 32;
/// A request's data: the status password, NUL-padded.
pub const REQUEST_DATA_LEN: usize = 16;
/// The general status request (no channels or clients).
pub const CMD_GENERAL: u16 = 1;
/// The detailed status request: what every reader sends, and we do.
pub const CMD_DETAIL: u16 = 2;
/// What the server's reply parts say (the PHP reader checks it; qstat and gamedig do not).
pub const CMD_REPLY: u16 = 3;

/// A packet's header, plain.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Header {
    pub key: Key,
    pub zero: u16,
    pub cmd: u16,
    pub id: u16,
    pub total_len: u16,
    pub len: u16,
    pub total_parts: u16,
    pub part: u16,
    pub data_key: Key,
    pub crc: u16,
}

/// Writes a packet: `header` (its `len` is `data.len()`'s to say, unchecked: a simulator may
/// lie) scrambled with its key, then `data` scrambled with the data key.
pub fn encode_packet(h: &Header, data: &[u8], out: &mut Vec<u8>) {
    let mut plain = [0u8; HEADER_LEN - 2];
    let fields = [
        h.zero,
        h.cmd,
        h.id,
        h.total_len,
        h.len,
        h.total_parts,
        h.part,
        u16::from_be_bytes(h.data_key.to_bytes()),
        h.crc,
    ];
    for (chunk, f) in plain.chunks_exact_mut(2).zip(fields) {
        chunk.copy_from_slice(&f.to_be_bytes());
    }
    obfuscation::hide(&HEADER_TABLE, HEADER_PERIOD, h.key, &mut plain);
    out.extend_from_slice(&h.key.to_bytes());
    out.extend_from_slice(&plain);
    let at = out.len();
    out.extend_from_slice(data);
    obfuscation::hide(&DATA_TABLE, DATA_PERIOD, h.data_key, &mut out[at..]);
}

/// Reads a packet's header and its data, both unscrambled; checks only the sizes (a packet
/// of more than [`MAX_PACKET`] bytes is `TooLarge`, one shorter than a header `Truncated`).
pub fn decode_packet(datagram: &[u8]) -> Result<(Header, Vec<u8>), DecodeError> {
    if datagram.len() > MAX_PACKET {
        return Err(DecodeError::TooLarge {
            what: "Ventrilo packet bytes",
            value: datagram.len() as u64,
            limit: MAX_PACKET as u64,
        });
    }
    let mut r = Reader::new(datagram);
    let key = Key::from_bytes(r.array()?);
    let mut plain: [u8; HEADER_LEN - 2] = r.array()?;
    obfuscation::reveal(&HEADER_TABLE, HEADER_PERIOD, key, &mut plain);
    let mut h = Reader::new(&plain);
    let mut header = Header {
        key,
        zero: h.u16_be()?,
        cmd: h.u16_be()?,
        id: h.u16_be()?,
        total_len: h.u16_be()?,
        len: h.u16_be()?,
        total_parts: h.u16_be()?,
        part: h.u16_be()?,
        ..Header::default()
    };
    header.data_key = Key::from_bytes(h.array()?);
    header.crc = h.u16_be()?;
    let mut data = r.rest().to_vec();
    obfuscation::reveal(&DATA_TABLE, DATA_PERIOD, header.data_key, &mut data);
    Ok((header, data))
}

/// The keys a request is scrambled with (fresh per poll; fixed in tests and the fuzz target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keys {
    pub header: Key,
    pub data: Key,
}

/// Writes a request: `cmd` with `id` and an empty status password.
pub fn encode_request(cmd: u16, id: u16, keys: Keys, out: &mut Vec<u8>) {
    let data = [0u8; REQUEST_DATA_LEN];
    let header = Header {
        key: keys.header,
        zero: 0,
        cmd,
        id,
        total_len: REQUEST_DATA_LEN as u16,
        len: REQUEST_DATA_LEN as u16,
        total_parts: 1,
        part: 0,
        data_key: keys.data,
        crc: obfuscation::crc16(&data),
    };
    encode_packet(&header, &data, out);
}

/// One part of a reply, checked on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    pub header: Header,
    pub data: Vec<u8>,
}

/// Reads a part of the reply to request `id`. Not a reply to it (a `zero` field that is not
/// 0: not a status packet; another id: another request's) is [`DecodeError::Mismatch`]. A
/// length that is not the data's, a part number at or past the total, no parts, a total
/// length shorter than the part or longer than its parts can carry are `Invalid`/`Overrun`;
/// more than [`MAX_PARTS`] parts or [`MAX_PART_DATA`] bytes `TooLarge`.
pub fn decode_part(datagram: &[u8], id: u16) -> Result<Part, DecodeError> {
    let (header, data) = decode_packet(datagram)?;
    if header.zero != 0 {
        return Err(DecodeError::Mismatch(
            "Ventrilo packet with a non-zero zero field",
        ));
    }
    if header.id != id {
        return Err(DecodeError::Mismatch(
            "Ventrilo reply to another request id",
        ));
    }
    check_part(&header, data.len())?;
    Ok(Part { header, data })
}

fn check_part(h: &Header, arrived: usize) -> Result<(), DecodeError> {
    let len = usize::from(h.len);
    // A length past the data is a lie before it is a size: checked first.
    if len > arrived {
        return Err(DecodeError::Overrun {
            what: "Ventrilo part length",
            value: len as u64,
            fits: arrived as u64,
        });
    }
    if len < arrived {
        return Err(DecodeError::Invalid(
            "Ventrilo part length (shorter than the data that came)",
        ));
    }
    if len > MAX_PART_DATA {
        return Err(DecodeError::TooLarge {
            what: "Ventrilo part length",
            value: len as u64,
            limit: MAX_PART_DATA as u64,
        });
    }
    if h.total_parts == 0 {
        return Err(DecodeError::Invalid("Ventrilo total parts (0)"));
    }
    if h.total_parts > MAX_PARTS {
        return Err(DecodeError::TooLarge {
            what: "Ventrilo total parts",
            value: h.total_parts.into(),
            limit: MAX_PARTS.into(),
        });
    }
    if h.part >= h.total_parts {
        return Err(DecodeError::Invalid(
            "Ventrilo part number (at or past the total)",
        ));
    }
    let total = usize::from(h.total_len);
    if total < len {
        return Err(DecodeError::Invalid(
            "Ventrilo total length (shorter than one part)",
        ));
    }
    let can_carry = usize::from(h.total_parts) * MAX_PART_DATA;
    if total > can_carry {
        return Err(DecodeError::Overrun {
            what: "Ventrilo total length",
            value: total as u64,
            fits: can_carry as u64,
        });
    }
    Ok(())
}

/// A reply's parts as they arrive, in any order. The first part fixes the totals (parts,
/// length, checksum) every other must repeat; a part that came already is ignored if it is
/// the same bytes (the answer to a resent request) and refused if not.
#[derive(Debug, Clone)]
pub struct Parts {
    first: Option<Header>,
    got: Vec<Option<Vec<u8>>>,
    have: usize,
    bytes: usize,
    max_parts: u16,
    max_bytes: usize,
}

impl Parts {
    /// Reassembly of at most `max_parts` parts (within [`MAX_PARTS`]) and `max_bytes` of text
    /// (the target's `max_split_packets` and `max_reply_bytes`).
    pub fn new(max_parts: u8, max_bytes: usize) -> Parts {
        Parts {
            first: None,
            got: Vec::new(),
            have: 0,
            bytes: 0,
            max_parts: u16::from(max_parts).clamp(1, MAX_PARTS),
            max_bytes,
        }
    }

    /// Parts in so far.
    pub fn have(&self) -> usize {
        self.have
    }

    /// Adds a part; the whole text once every part is in (its length and checksum checked
    /// against the headers': `Overrun`/`Invalid` and `Checksum`).
    pub fn add(&mut self, part: Part) -> Result<Option<Vec<u8>>, DecodeError> {
        let h = part.header;
        match self.first {
            None => {
                if h.total_parts > self.max_parts {
                    return Err(DecodeError::TooLarge {
                        what: "Ventrilo total parts",
                        value: h.total_parts.into(),
                        limit: self.max_parts.into(),
                    });
                }
                if usize::from(h.total_len) > self.max_bytes {
                    return Err(DecodeError::TooLarge {
                        what: "Ventrilo reply bytes",
                        value: h.total_len.into(),
                        limit: self.max_bytes as u64,
                    });
                }
                self.first = Some(h);
                self.got = vec![None; usize::from(h.total_parts)];
            }
            Some(f) => {
                if (f.total_parts, f.total_len, f.crc) != (h.total_parts, h.total_len, h.crc) {
                    return Err(DecodeError::Invalid(
                        "Ventrilo parts (they disagree on the totals or checksum)",
                    ));
                }
            }
        }
        let total = usize::from(h.total_len);
        // `check_part` kept the number below the total, which every part repeats.
        let Some(slot) = self.got.get_mut(usize::from(h.part)) else {
            return Err(DecodeError::Invalid(
                "Ventrilo part number (at or past the total)",
            ));
        };
        if let Some(had) = slot {
            if *had != part.data {
                return Err(DecodeError::Invalid(
                    "Ventrilo parts (two different parts with one number)",
                ));
            }
            return Ok(None);
        }
        self.bytes += part.data.len();
        if self.bytes > total {
            return Err(DecodeError::Overrun {
                what: "Ventrilo parts' lengths",
                value: self.bytes as u64,
                fits: total as u64,
            });
        }
        *slot = Some(part.data);
        self.have += 1;
        if self.have < self.got.len() {
            return Ok(None);
        }
        if self.bytes != total {
            return Err(DecodeError::Invalid(
                "Ventrilo total length (more than the parts carry)",
            ));
        }
        let text: Vec<u8> = self.got.iter().flatten().flatten().copied().collect();
        let crc = obfuscation::crc16(&text);
        if crc != h.crc {
            return Err(DecodeError::Checksum {
                expected: h.crc.into(),
                actual: crc.into(),
            });
        }
        Ok(Some(text))
    }
}

/// The parts of a reply to `id` carrying `text` (server side): `part_len` data bytes each
/// (1..=[`MAX_PART_DATA`]), each with keys derived from `seed` and the part number, headers
/// as a server writes them (a simulator may alter them before [`encode_packet`]).
pub fn reply_parts(text: &[u8], id: u16, part_len: usize, seed: u8) -> Vec<(Header, &[u8])> {
    let part_len = part_len.clamp(1, MAX_PART_DATA);
    let chunks: Vec<&[u8]> = if text.is_empty() {
        vec![text]
    } else {
        text.chunks(part_len).collect()
    };
    let crc = obfuscation::crc16(text);
    let total_parts = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, chunk)| {
            let n = seed.wrapping_add(i as u8);
            let header = Header {
                key: Key::new(n.wrapping_mul(7), n | 1),
                zero: 0,
                cmd: CMD_REPLY,
                id,
                total_len: u16::try_from(text.len()).unwrap_or(u16::MAX),
                len: u16::try_from(chunk.len()).unwrap_or(u16::MAX),
                total_parts: u16::try_from(total_parts).unwrap_or(u16::MAX),
                part: i as u16,
                data_key: Key::new(n.wrapping_mul(13), n.wrapping_add(1) | 1),
                crc,
            };
            (header, chunk)
        })
        .collect()
}

/// [`reply_parts`], each written as a datagram.
pub fn encode_reply(text: &[u8], id: u16, part_len: usize, seed: u8) -> Vec<Vec<u8>> {
    reply_parts(text, id, part_len, seed)
        .into_iter()
        .map(|(header, data)| {
            let mut out = Vec::with_capacity(HEADER_LEN + data.len());
            encode_packet(&header, data, &mut out);
            out
        })
        .collect()
}
