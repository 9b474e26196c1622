//! Teeworlds 0.7 packed integers (the engine's "variable int"), used by the 0.7 info reply.
//!
//! # Format
//! ```text
//! first byte:  E S D D D D D D   E = another byte follows, S = sign, D = 6 low bits
//! next bytes:  E D D D D D D D   7 more bits each, least significant first; 5 bytes at most
//! ```
//! A negative number is stored as its bitwise complement with the sign bit set, so -1 is
//! `0x40` (the real 0.7.5 server sends country -1, "none", exactly so).

use crate::protocol::{DecodeError, Reader};

/// The most bytes a packed int takes: 6 + 4 × 7 = 34 bits cover any i32.
pub const MAX_LEN: usize = 5;

/// Appends `value` packed.
pub fn encode_int(value: i32, out: &mut Vec<u8>) {
    let mut first = 0u8;
    let mut v = value as u32;
    if value < 0 {
        first = 0x40;
        v = !v;
    }
    first |= (v & 0x3f) as u8;
    v >>= 6;
    let mut byte = first;
    while v != 0 {
        out.push(byte | 0x80);
        byte = (v & 0x7f) as u8;
        v >>= 7;
    }
    out.push(byte);
}

/// Reads one packed int. A fifth byte that still says "more follows" is invalid: no encoder
/// writes one, and accepting it would mean reading unbounded runs of `0x80`.
pub fn decode_int(r: &mut Reader<'_>) -> Result<i32, DecodeError> {
    let first = r.u8()?;
    let negative = first & 0x40 != 0;
    let mut value = u32::from(first & 0x3f);
    let mut more = first & 0x80 != 0;
    let mut shift = 6;
    let mut used = 1;
    while more {
        if used == MAX_LEN {
            return Err(DecodeError::Invalid("packed int longer than 5 bytes"));
        }
        let b = r.u8()?;
        used += 1;
        // Bits past 32 (possible only in the fifth byte) are dropped, as the engine does.
        value |= u32::from(b & 0x7f).checked_shl(shift).unwrap_or(0);
        shift += 7;
        more = b & 0x80 != 0;
    }
    if negative {
        value = !value;
    }
    Ok(value as i32)
}

/// A packed int that must be a count or size: negative is [`DecodeError::Invalid`].
pub fn decode_count(r: &mut Reader<'_>, what: &'static str) -> Result<u32, DecodeError> {
    u32::try_from(decode_int(r)?).map_err(|_| DecodeError::Invalid(what))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn packed(v: i32) -> Vec<u8> {
        let mut out = Vec::new();
        encode_int(v, &mut out);
        out
    }

    /// Known encodings, among them the ones the real 0.7.5 server sent.
    #[test]
    fn known_values() {
        assert_eq!(packed(0), [0x00]);
        assert_eq!(packed(1), [0x01]);
        assert_eq!(packed(12), [0x0c]); // max clients 12
        assert_eq!(packed(63), [0x3f]);
        assert_eq!(packed(64), [0x80, 0x01]); // DDNet's 0.7 reply: max clients 64
        assert_eq!(packed(1000), [0xa8, 0x0f]); // our browse token, echoed
        assert_eq!(packed(-1), [0x40]); // country "none"
        assert_eq!(packed(-64), [0x7f]);
        assert_eq!(packed(-65), [0xc0, 0x01]);
        assert_eq!(packed(i32::MAX), [0xbf, 0xff, 0xff, 0xff, 0x0f]);
        assert_eq!(packed(i32::MIN), [0xff, 0xff, 0xff, 0xff, 0x0f]);
    }

    /// Cut packed ints are truncation; a sixth byte is refused, not read.
    #[test]
    fn malformed() {
        assert!(matches!(
            decode_int(&mut Reader::new(&[0x80])),
            Err(DecodeError::Truncated { .. })
        ));
        assert!(matches!(
            decode_int(&mut Reader::new(&[0xff; 6])),
            Err(DecodeError::Invalid(_))
        ));
        assert_eq!(
            decode_count(&mut Reader::new(&[0x40]), "count"),
            Err(DecodeError::Invalid("count"))
        );
    }

    proptest! {
        /// decode(encode(v)) == v and consumes exactly what was written, at most 5 bytes.
        #[test]
        fn round_trip(v in any::<i32>()) {
            let bytes = packed(v);
            prop_assert!(bytes.len() <= MAX_LEN);
            let mut r = Reader::new(&bytes);
            prop_assert_eq!(decode_int(&mut r), Ok(v));
            prop_assert!(r.is_empty());
        }

        /// Arbitrary bytes never panic and never consume more than 5 bytes per int.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..16)) {
            let mut r = Reader::new(&bytes);
            let before = r.remaining();
            if decode_int(&mut r).is_ok() {
                prop_assert!(before - r.remaining() <= MAX_LEN);
            }
        }
    }
}
