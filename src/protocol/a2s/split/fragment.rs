//! The three fragment layouts on the wire, and reading one fragment: what both the
//! reassembler and the encoder must agree on.

use super::super::{DecodeError, Reader, SINGLE_HEADER};
use super::Limits;

/// The id bit that marks a bzip2-compressed Source reply.
pub const COMPRESSED_BIT: u32 = 0x8000_0000;
/// How a bzip2 stream starts.
pub(super) const BZIP2_MAGIC: &[u8] = b"BZh";

/// The fragment layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Index and total packed in one byte; at most 15 fragments.
    GoldSrc,
    /// `size_field`: the u16 that Orange Box and later engines add.
    Source { size_field: bool },
}

/// One parsed fragment.
#[derive(Debug)]
pub(super) struct Fragment<'a> {
    pub(super) id: u32,
    pub(super) total: u8,
    pub(super) number: u8,
    /// Packet 0 of a compressed reply: (decompressed size, CRC32).
    pub(super) compressed: Option<(u32, u32)>,
    pub(super) payload: &'a [u8],
}

/// Recognizes a packet 0 and the layout it uses (see the module documentation).
pub(super) fn detect(d: &[u8]) -> Option<Format> {
    let at = |offset: usize, want: &[u8]| d.get(offset..offset + want.len()) == Some(want);
    let id = u32::from_le_bytes(d.get(4..8)?.try_into().ok()?);
    let packed = *d.get(8)?;
    if packed >> 4 == 0 && packed & 0x0F != 0 && at(9, &SINGLE_HEADER) {
        return Some(Format::GoldSrc);
    }
    if packed == 0 || *d.get(9)? != 0 {
        return None;
    }
    let (new, old) = if id & COMPRESSED_BIT != 0 {
        (at(20, BZIP2_MAGIC), at(18, BZIP2_MAGIC))
    } else {
        (at(12, &SINGLE_HEADER), at(10, &SINGLE_HEADER))
    };
    if new {
        Some(Format::Source { size_field: true })
    } else if old {
        Some(Format::Source { size_field: false })
    } else {
        None
    }
}

/// Reads one fragment in a known layout, refusing counts and sizes over `limits`.
pub(super) fn parse(d: &[u8], format: Format, limits: Limits) -> Result<Fragment<'_>, DecodeError> {
    let mut r = Reader::new(d);
    r.skip(4)?;
    let id = r.u32_le()?;
    let (total, number) = match format {
        Format::GoldSrc => {
            let b = r.u8()?;
            (b & 0x0F, b >> 4)
        }
        Format::Source { size_field } => {
            let total = r.u8()?;
            let number = r.u8()?;
            if size_field {
                r.u16_le()?;
            }
            (total, number)
        }
    };
    if total == 0 {
        return Err(DecodeError::Invalid("split total of zero"));
    }
    if total > limits.max_packets {
        return Err(DecodeError::TooLarge {
            what: "split packet count",
            value: total.into(),
            limit: limits.max_packets.into(),
        });
    }
    if number >= total {
        return Err(DecodeError::Invalid("split packet number beyond total"));
    }
    let compressed_reply = matches!(format, Format::Source { .. }) && id & COMPRESSED_BIT != 0;
    let compressed = if compressed_reply && number == 0 {
        let size = r.u32_le()?;
        let crc = r.u32_le()?;
        // Refuse before anything is allocated or inflated.
        if size as usize > limits.max_bytes {
            return Err(DecodeError::TooLarge {
                what: "decompressed size",
                value: size.into(),
                limit: limits.max_bytes as u64,
            });
        }
        Some((size, crc))
    } else {
        None
    };
    Ok(Fragment {
        id,
        total,
        number,
        compressed,
        payload: r.rest(),
    })
}
