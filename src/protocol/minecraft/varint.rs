//! VarInt and VarInt-framed packets (at most 5 bytes a VarInt).
//!
//! # Format
//! ```text
//! VarInt: 7 bits per byte, least significant group first, high bit = "more follows".
//!         An i32 in two's complement, so -1 is ff ff ff ff 0f. At most 5 bytes.
//! Frame:  VarInt length | VarInt packet id | data       (length counts id + data)
//! ```
//!
//! TCP delivers a packet in as many reads as it likes, so the frame decoder tells "partial,
//! read more" (`Ok(None)`) apart from "invalid" (`Err`): mini-redis and httparse do the same.

use crate::protocol::{DecodeError, Reader};

/// "VarInts are never longer than 5 bytes" (protocol notes): 5 x 7 bits hold 32.
pub const MAX_VARINT_LEN: usize = 5;

/// Appends `value` as a VarInt (negative values take all 5 bytes).
pub fn encode_varint(value: i32, out: &mut Vec<u8>) {
    let mut v = value as u32;
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Bytes [`encode_varint`] writes for `value`.
pub fn varint_len(value: i32) -> usize {
    let bits = 32 - (value as u32).leading_zeros() as usize;
    bits.div_ceil(7).max(1)
}

/// Decodes a VarInt at the start of `buf`.
///
/// # Returns
/// `Ok(Some((value, bytes used)))`, `Ok(None)` when `buf` ends inside the VarInt, or
/// `Err(Invalid)` when a sixth byte would be needed.
pub fn decode_varint(buf: &[u8]) -> Result<Option<(i32, usize)>, DecodeError> {
    let mut value: u32 = 0;
    for i in 0..MAX_VARINT_LEN {
        let Some(&byte) = buf.get(i) else {
            return Ok(None);
        };
        // The fifth byte carries bits 28..31; its upper bits fall off, as in the Java client.
        value |= u32::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Some((value as i32, i + 1)));
        }
    }
    Err(DecodeError::Invalid("VarInt longer than 5 bytes"))
}

/// Reads a VarInt from a packet already complete in memory: running out is `Truncated`.
pub fn read_varint(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
    let rest = r.rest();
    match decode_varint(rest)? {
        Some((v, used)) => {
            r.skip(used)?;
            Ok(v)
        }
        None => Err(DecodeError::Truncated {
            offset: r.position(),
            needed: rest.len() + 1,
            available: rest.len(),
        }),
    }
}

/// Reads a protocol string: a VarInt byte length, then that many bytes of UTF-8. The length is
/// checked against what the packet still holds before anything is copied; invalid UTF-8
/// becomes U+FFFD (servers send what their operators typed).
pub fn read_string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    Ok(String::from_utf8_lossy(read_string_bytes(r)?).into_owned())
}

/// Like [`read_string`], without copying or decoding the bytes.
pub fn read_string_bytes<'a>(r: &mut Reader<'a>) -> Result<&'a [u8], DecodeError> {
    let len = read_varint(r)?;
    let len = usize::try_from(len).map_err(|_| DecodeError::Invalid("negative string length"))?;
    if len > r.remaining() {
        return Err(DecodeError::Overrun {
            what: "string length",
            value: len as u64,
            fits: r.remaining() as u64,
        });
    }
    r.bytes(len)
}

/// Appends a protocol string (VarInt length + UTF-8).
pub fn encode_string(s: &str, out: &mut Vec<u8>) {
    encode_varint(i32::try_from(s.len()).unwrap_or(i32::MAX), out);
    out.extend_from_slice(s.as_bytes());
}

/// One packet: its id and the bytes after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub id: i32,
    pub body: Vec<u8>,
}

/// Appends a whole frame: length, id, body.
pub fn encode_frame(id: i32, body: &[u8], out: &mut Vec<u8>) {
    encode_frame_header(id, body.len(), out);
    out.extend_from_slice(body);
}

/// Appends a frame's length and packet id for a body of `body_len` bytes, which the caller
/// appends next: a frame encoded in place, with no body buffer.
pub fn encode_frame_header(id: i32, body_len: usize, out: &mut Vec<u8>) {
    let len = varint_len(id) + body_len;
    encode_varint(i32::try_from(len).unwrap_or(i32::MAX), out);
    encode_varint(id, out);
}

/// Decodes the frame at the start of `buf`, accepting a length of at most `max_len` bytes.
///
/// # Returns
/// - `Ok(Some((frame, consumed)))` once the whole frame has arrived;
/// - `Ok(None)` while it is partial;
/// - `Err(TooLarge)` as soon as the length says more than `max_len`, before anything is
///   allocated or waited for;
/// - `Err(Invalid)` for a length that is negative, zero (no room for the id) or a VarInt
///   longer than 5 bytes, and for an id that overruns its frame.
pub fn decode_frame(buf: &[u8], max_len: usize) -> Result<Option<(Frame, usize)>, DecodeError> {
    let Some((len, prefix)) = decode_varint(buf)? else {
        return Ok(None);
    };
    if len <= 0 {
        return Err(DecodeError::Invalid("frame length not positive"));
    }
    let len = len as usize;
    if len > max_len {
        return Err(DecodeError::TooLarge {
            what: "frame length",
            value: len as u64,
            limit: max_len as u64,
        });
    }
    let Some(packet) = buf.get(prefix..prefix + len) else {
        return Ok(None);
    };
    let mut r = Reader::new(packet);
    let id = read_varint(&mut r).map_err(|_| DecodeError::Invalid("packet id overruns frame"))?;
    Ok(Some((
        Frame {
            id,
            body: r.rest().to_vec(),
        },
        prefix + len,
    )))
}

#[cfg(test)]
mod tests {
    /// `varint_len` is the length `encode_varint` writes.
    #[test]
    fn varint_len_matches_encoding() {
        for v in [
            0,
            1,
            127,
            128,
            16_383,
            16_384,
            2_097_151,
            2_097_152,
            i32::MAX,
            -1,
            i32::MIN,
        ] {
            let mut out = Vec::new();
            encode_varint(v, &mut out);
            assert_eq!(varint_len(v), out.len(), "{v}");
        }
    }

    use super::*;
    use proptest::prelude::*;

    fn enc(v: i32) -> Vec<u8> {
        let mut out = Vec::new();
        encode_varint(v, &mut out);
        out
    }

    /// The edge values encode to the bytes the protocol defines and decode back.
    #[test]
    fn varint_edges() {
        let cases: [(i32, &[u8]); 8] = [
            (0, &[0x00]),
            (1, &[0x01]),
            (127, &[0x7f]),
            (128, &[0x80, 0x01]),
            (255, &[0xff, 0x01]),
            (25565, &[0xdd, 0xc7, 0x01]),
            (2_147_483_647, &[0xff, 0xff, 0xff, 0xff, 0x07]),
            (-1, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ];
        for (value, bytes) in cases {
            assert_eq!(enc(value), bytes, "{value}");
            assert_eq!(
                decode_varint(bytes),
                Ok(Some((value, bytes.len()))),
                "{value}"
            );
        }
        assert_eq!(enc(i32::MIN), [0x80, 0x80, 0x80, 0x80, 0x08]);
    }

    /// A five-byte VarInt is fine; a sixth continuation byte is an error, not a wait.
    #[test]
    fn varint_length_limit() {
        assert_eq!(
            decode_varint(&[0x80, 0x80, 0x80, 0x80, 0x01]),
            Ok(Some((1 << 28, 5)))
        );
        assert!(decode_varint(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01]).is_err());
        assert!(decode_varint(&[0xff; 6]).is_err());
        assert_eq!(decode_varint(&[0x80, 0x80]), Ok(None));
        assert_eq!(decode_varint(&[]), Ok(None));
    }

    /// Every proper prefix of a frame is "partial", and the whole frame decodes.
    #[test]
    fn frame_split_points() {
        let mut wire = Vec::new();
        encode_frame(0, &[7u8; 300], &mut wire);
        wire.extend_from_slice(&[0xaa, 0xbb]);
        let whole = wire.len() - 2;
        for cut in 0..whole {
            assert_eq!(decode_frame(&wire[..cut], 1024), Ok(None), "cut {cut}");
        }
        let (frame, used) = decode_frame(&wire, 1024).unwrap().unwrap();
        assert_eq!(used, whole);
        assert_eq!(
            frame,
            Frame {
                id: 0,
                body: vec![7; 300]
            }
        );
    }

    /// A length above the cap (a 2 GiB announcement) fails at once, before the body arrives.
    #[test]
    fn frame_too_large_before_body() {
        let mut wire = Vec::new();
        encode_varint(i32::MAX, &mut wire);
        assert!(matches!(
            decode_frame(&wire, 1 << 20),
            Err(DecodeError::TooLarge { .. })
        ));
    }

    /// Zero and negative lengths are invalid; an id that overruns its frame is invalid.
    #[test]
    fn frame_invalid_lengths() {
        assert!(matches!(
            decode_frame(&[0x00], 64),
            Err(DecodeError::Invalid(_))
        ));
        assert!(matches!(
            decode_frame(&[0xff, 0xff, 0xff, 0xff, 0x0f], 64),
            Err(DecodeError::Invalid(_))
        ));
        assert!(matches!(
            decode_frame(&[0x01, 0x80], 64),
            Err(DecodeError::Invalid(_))
        ));
    }

    /// A string length beyond the packet is rejected before copying, as a broken reply (a
    /// length past what arrived), not as one above a cap.
    #[test]
    fn string_length_checked() {
        let mut r = Reader::new(&[0x05, b'a', b'b']);
        assert!(matches!(
            read_string(&mut r),
            Err(DecodeError::Overrun { .. })
        ));
        let mut r = Reader::new(&[0x02, b'h', b'i', b'!']);
        assert_eq!(read_string(&mut r).as_deref(), Ok("hi"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Every i32 survives a round trip, in at most 5 bytes.
        #[test]
        fn varint_round_trip(v in any::<i32>()) {
            let bytes = enc(v);
            prop_assert!(bytes.len() <= MAX_VARINT_LEN);
            prop_assert_eq!(decode_varint(&bytes), Ok(Some((v, bytes.len()))));
        }

        /// Frames survive a round trip.
        #[test]
        fn frame_round_trip(id in any::<i32>(), body in proptest::collection::vec(any::<u8>(), 0..600)) {
            let mut wire = Vec::new();
            encode_frame(id, &body, &mut wire);
            let (frame, used) = decode_frame(&wire, 4096).unwrap().unwrap();
            prop_assert_eq!(used, wire.len());
            prop_assert_eq!(frame, Frame { id, body });
        }

        /// Arbitrary bytes never panic, and a decoded frame never claims more than arrived.
        #[test]
        fn frame_arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_varint(&bytes);
            if let Ok(Some((frame, used))) = decode_frame(&bytes, 32) {
                prop_assert!(used <= bytes.len());
                prop_assert!(frame.body.len() < used);
            }
        }
    }
}
