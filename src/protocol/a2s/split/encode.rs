//! The server side: splitting (and compressing) a reply into fragments, for the simulator,
//! the tests and the seed corpus.

use std::io::Write;

use super::super::crc32::crc32;
use super::super::SPLIT_HEADER;
use super::fragment::{Format, COMPRESSED_BIT};

/// bzip2-compresses `data` (server side).
pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    // Writing into a Vec cannot fail.
    enc.write_all(data).expect("write to Vec");
    enc.finish().expect("finish into Vec")
}

/// How a server splits a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SplitOptions {
    pub format: Format,
    /// Payload bytes per fragment (the last one may be shorter). Raised when the layout's
    /// fragment count (15 GoldSrc, 255 Source) would not fit.
    pub fragment_size: usize,
    /// bzip2 (Source layouts only).
    pub compress: bool,
}

/// Writes one fragment. `compressed` is packet 0's (size, CRC32) of a compressed reply; the
/// caller sets [`COMPRESSED_BIT`] in `id` for those.
pub fn encode_fragment(
    format: Format,
    id: u32,
    total: u8,
    number: u8,
    compressed: Option<(u32, u32)>,
    payload: &[u8],
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(&SPLIT_HEADER);
    out.extend_from_slice(&id.to_le_bytes());
    match format {
        Format::GoldSrc => out.push((number << 4) | (total & 0x0F)),
        Format::Source { size_field } => {
            out.extend_from_slice(&[total, number]);
            if size_field {
                out.extend_from_slice(&1248u16.to_le_bytes());
            }
            if let Some((size, crc)) = compressed {
                out.extend_from_slice(&size.to_le_bytes());
                out.extend_from_slice(&crc.to_le_bytes());
            }
        }
    }
    out.extend_from_slice(payload);
}

/// Splits `message` (which starts `FF FF FF FF`) into fragments, in order.
pub fn encode_split(message: &[u8], id: u32, opts: SplitOptions) -> Vec<Vec<u8>> {
    let compressing = opts.compress && matches!(opts.format, Format::Source { .. });
    let (data, id, header) = if compressing {
        let header = (message.len() as u32, crc32(message));
        (compress(message), id | COMPRESSED_BIT, Some(header))
    } else {
        (message.to_vec(), id & !COMPRESSED_BIT, None)
    };
    let max_total = match opts.format {
        Format::GoldSrc => 15,
        Format::Source { .. } => 255,
    };
    let size = opts
        .fragment_size
        .max(data.len().div_ceil(max_total))
        .max(1);
    let chunks: Vec<&[u8]> = if data.is_empty() {
        vec![&[]]
    } else {
        data.chunks(size).collect()
    };
    let total = chunks.len() as u8;
    chunks
        .iter()
        .enumerate()
        .map(|(n, chunk)| {
            let mut out = Vec::new();
            let head = if n == 0 { header } else { None };
            encode_fragment(opts.format, id, total, n as u8, head, chunk, &mut out);
            out
        })
        .collect()
}
