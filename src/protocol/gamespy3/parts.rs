//! The parts of a split reply: their 16-byte header, and reassembly in any order.
//!
//! ```text
//! 00 | session (4) | "splitnum" 00 | flags: index (bits 0-6), last (bit 7) | section | body
//! ```
//! `section` is the section the body starts in (0 key/values, 1 players, 2 teams); the
//! body reader tracks sections itself and uses it only for a part that starts mid-way.

use super::{check_head_in, DecodeError, Flavor, TYPE_QUERY};

/// Length of a part's header, body excluded.
pub const HEADER_LEN: usize = 16;
const SPLITNUM: &[u8; 9] = b"splitnum\0";
const LAST: u8 = 0x80;
/// Parts we accept in one reply. Battlefield 2 with 64 players and every key sends 4 or 5;
/// the index field allows 128.
pub const MAX_PARTS: u8 = 32;
/// Body bytes we accept in one reply, over all its parts.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// One part of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part<'a> {
    pub index: u8,
    /// Whether this is the last part; its index + 1 is then the number of parts.
    pub last: bool,
    pub section: u8,
    pub body: &'a [u8],
}

/// Decodes a part of the reply to `session` (as the server echoes it). Another type byte or
/// session id is [`DecodeError::Mismatch`]: not our answer, keep waiting.
pub fn decode_part(datagram: &[u8], session: i32) -> Result<Part<'_>, DecodeError> {
    decode_part_in(&Flavor::GAMESPY3, datagram, session)
}

/// [`decode_part`] in `flavor`. A single-part flavor's header is skipped by length, whatever
/// its 11 bytes after the session id say, and its part is the first and last.
pub fn decode_part_in<'a>(
    flavor: &Flavor,
    datagram: &'a [u8],
    session: i32,
) -> Result<Part<'a>, DecodeError> {
    let mut r = check_head_in(flavor, datagram, TYPE_QUERY, session)?;
    if flavor.single_part {
        // What follows the type byte and session id, up to the body.
        r.skip(HEADER_LEN - r.position())?;
        return Ok(Part {
            index: 0,
            last: true,
            section: 0,
            body: r.rest(),
        });
    }
    if r.bytes(SPLITNUM.len())? != SPLITNUM {
        return Err(DecodeError::Invalid("GameSpy3 splitnum marker"));
    }
    let flags = r.u8()?;
    let section = r.u8()?;
    Ok(Part {
        index: flags & !LAST,
        last: flags & LAST != 0,
        section,
        body: r.rest(),
    })
}

/// Writes a part (server side). `index` is kept to its 7 bits.
pub fn encode_part(session: i32, part: &Part<'_>, out: &mut Vec<u8>) {
    out.push(TYPE_QUERY);
    out.extend_from_slice(&session.to_be_bytes());
    out.extend_from_slice(SPLITNUM);
    out.push((part.index & !LAST) | if part.last { LAST } else { 0 });
    out.push(part.section);
    out.extend_from_slice(part.body);
}

/// The parts of one reply as they arrive, in any order, duplicates ignored.
#[derive(Debug, Clone)]
pub struct Parts {
    /// (index, section, body), kept sorted by index.
    got: Vec<(u8, u8, Vec<u8>)>,
    /// Number of parts, once the last one came.
    total: Option<u8>,
    bytes: usize,
    /// Caps: parts in one reply (at most [`MAX_PARTS`]), body bytes over all of them.
    max_parts: u8,
    max_bytes: usize,
}

impl Default for Parts {
    fn default() -> Self {
        Parts::new()
    }
}

impl Parts {
    /// Reassembly under the default caps, [`MAX_PARTS`] and [`MAX_REPLY_BYTES`].
    pub fn new() -> Parts {
        Parts::with_caps(MAX_PARTS, MAX_REPLY_BYTES)
    }

    /// Reassembly under the target's caps (`Limits::max_split_packets`, `max_reply_bytes`);
    /// the part count stays within [`MAX_PARTS`].
    pub fn with_caps(max_parts: u8, max_bytes: usize) -> Parts {
        Parts {
            got: Vec::new(),
            total: None,
            bytes: 0,
            max_parts: max_parts.clamp(1, MAX_PARTS),
            max_bytes,
        }
    }

    /// Adds a part; `Ok(true)` once every part is in. A part whose index is at or above the
    /// part cap, or bodies adding up past the byte cap, are [`DecodeError::TooLarge`];
    /// two different "last" parts, or a part beyond the last, are [`DecodeError::Invalid`].
    pub fn add(&mut self, part: &Part<'_>) -> Result<bool, DecodeError> {
        if part.index >= self.max_parts {
            return Err(DecodeError::TooLarge {
                what: "GameSpy3 part index",
                value: part.index.into(),
                limit: u64::from(self.max_parts) - 1,
            });
        }
        if part.last {
            let total = part.index + 1;
            match self.total {
                Some(t) if t != total => {
                    return Err(DecodeError::Invalid("GameSpy3 parts (two last parts)"))
                }
                _ => self.total = Some(total),
            }
        }
        let total = self.total.unwrap_or(self.max_parts);
        if part.index >= total || self.got.iter().any(|(i, _, _)| *i >= total) {
            return Err(DecodeError::Invalid(
                "GameSpy3 parts (a part after the last)",
            ));
        }
        match self.got.binary_search_by_key(&part.index, |(i, _, _)| *i) {
            // A resent or duplicated part: the first copy stays.
            Ok(_) => {}
            Err(at) => {
                self.bytes = self.bytes.saturating_add(part.body.len());
                if self.bytes > self.max_bytes {
                    return Err(DecodeError::TooLarge {
                        what: "GameSpy3 reply bytes",
                        value: self.bytes as u64,
                        limit: self.max_bytes as u64,
                    });
                }
                self.got
                    .insert(at, (part.index, part.section, part.body.to_vec()));
            }
        }
        Ok(self.complete())
    }

    /// Whether `part` is a whole reply by itself (index 0 and the last, nothing in yet), so
    /// its body can be read where it lies instead of being added; past the byte cap it is
    /// [`DecodeError::TooLarge`], as [`Parts::add`] would say.
    pub fn alone(&self, part: &Part<'_>) -> Result<bool, DecodeError> {
        if !(self.got.is_empty() && part.last && part.index == 0) {
            return Ok(false);
        }
        if part.body.len() > self.max_bytes {
            return Err(DecodeError::TooLarge {
                what: "GameSpy3 reply bytes",
                value: part.body.len() as u64,
                limit: self.max_bytes as u64,
            });
        }
        Ok(true)
    }

    pub fn complete(&self) -> bool {
        self.total.is_some_and(|t| self.got.len() == usize::from(t))
    }

    /// Parts in so far.
    pub fn have(&self) -> usize {
        self.got.len()
    }

    /// Number of parts, once the last one came.
    pub fn total(&self) -> Option<u8> {
        self.total
    }

    /// (section, body) of every part in, in index order.
    pub fn bodies(&self) -> impl Iterator<Item = (u8, &[u8])> {
        self.got.iter().map(|(_, s, b)| (*s, b.as_slice()))
    }
}
