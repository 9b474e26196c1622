//! Unreal Engine 2 query strings: a length in the engine's compact index, then either 8-bit
//! text or UCS-2.
//!
//! ```text
//! length:  the engine's compact index (FCompactIndex): first byte = sign (bit 7), "more"
//!          (bit 6) and the low 6 bits of the count; each further byte = "more" (bit 7) and
//!          the next 7 bits. One byte for counts below 64, so most strings look like a plain
//!          length byte (qstat and most readers stop there).
//! count > 0:  count bytes of Latin-1 (or UTF-8) text, the last one a NUL; 0 = empty
//! count < 0:  -count UCS-2 LE characters, the last one a NUL (2 bytes)
//! ```
//! A Killing Floor server named in 64 UCS-2 characters sends `C0 01` (gamedig issue #121's
//! capture, in `tests.rs`): read as one length byte, `C0` is 64 characters starting one byte
//! too early, every later field shifts, and the player count read `00 0B 'K' 'F'` =
//! 1,179,323,136.
//! The engine serializes an `FString` with its terminator, so the count includes the NUL,
//! and an empty string is the single byte `00` (qstat reads the info reply's empty IP that
//! way: its server name is at a fixed offset). Servers switch to UCS-2 when a string holds a
//! character the 8-bit form cannot carry.
//!
//! Colour codes are `1B` followed by three bytes (red, green, blue; each 1-255 so a colour
//! never contains a NUL). They are stripped before the text is decoded, at the unit the
//! string uses (bytes or UCS-2 units), so a colour byte can never merge with real text into
//! a multi-byte UTF-8 character.

use crate::protocol::{DecodeError, Reader};

/// The escape that starts a colour code.
pub const COLOUR: u8 = 0x1B;
/// Bit 7 of the length's first byte (its sign): the string is UCS-2.
const WIDE: u8 = 0x80;
/// Bit 6 of the length's first byte: another length byte follows.
const MORE_FIRST: u8 = 0x40;

/// Reads one string, colour codes and control characters removed. A missing terminator is
/// tolerated (the text is what the length says); a length past the end is an error.
pub fn read_string(r: &mut Reader<'_>) -> Result<String, DecodeError> {
    let (wide, count) = read_length(r)?;
    if wide {
        let bytes = counted(r, count, 2)?;
        Ok(decode_wide(bytes))
    } else {
        let bytes = counted(r, count, 1)?;
        Ok(decode_narrow(bytes))
    }
}

/// A compact index: whether the string is UCS-2 (negative), and its count of units.
fn read_length(r: &mut Reader<'_>) -> Result<(bool, usize), DecodeError> {
    let first = r.u8()?;
    let wide = first & WIDE != 0;
    let mut count = usize::from(first & 0x3F);
    let mut more = first & MORE_FIRST != 0;
    let mut shift = 6;
    // At most five bytes hold a 32-bit index; a longer run is not a length.
    while more {
        if shift > 27 {
            return Err(DecodeError::Invalid(
                "Unreal 2 string length (a compact index over 5 bytes)",
            ));
        }
        let b = r.u8()?;
        count |= usize::from(b & 0x7F) << shift;
        more = b & 0x80 != 0;
        shift += 7;
    }
    Ok((wide, count))
}

/// Writes a compact index of `count` units, UCS-2 when `wide`.
fn write_length(count: usize, wide: bool, out: &mut Vec<u8>) {
    let mut first = (count & 0x3F) as u8;
    if wide {
        first |= WIDE;
    }
    let mut rest = count >> 6;
    if rest != 0 {
        first |= MORE_FIRST;
    }
    out.push(first);
    while rest != 0 {
        let mut b = (rest & 0x7F) as u8;
        rest >>= 7;
        if rest != 0 {
            b |= 0x80;
        }
        out.push(b);
    }
}

/// `count` units of `unit` bytes, or an overrun naming what did arrive.
fn counted<'a>(r: &mut Reader<'a>, count: usize, unit: usize) -> Result<&'a [u8], DecodeError> {
    let needed = count * unit;
    if needed > r.remaining() {
        return Err(DecodeError::Overrun {
            what: "Unreal 2 string length",
            value: count as u64,
            fits: (r.remaining() / unit) as u64,
        });
    }
    r.bytes(needed)
}

/// 8-bit text: everything up to the first NUL, colours stripped, UTF-8 if it is valid UTF-8
/// and Latin-1 otherwise (what the engine sends for the Windows code page's first 256).
fn decode_narrow(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let mut plain = Vec::with_capacity(end);
    let mut i = 0;
    while i < end {
        match bytes[i] {
            COLOUR => i += 4,
            b if b < 0x20 || b == 0x7F => i += 1,
            b => {
                plain.push(b);
                i += 1;
            }
        }
    }
    match String::from_utf8(plain) {
        Ok(s) => s,
        Err(e) => e.into_bytes().iter().map(|&b| char::from(b)).collect(),
    }
}

/// UCS-2 LE text up to the first NUL unit, colours stripped; unpaired surrogates become
/// U+FFFD.
fn decode_wide(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .take_while(|&u| u != 0)
        .collect();
    let mut plain = Vec::with_capacity(units.len());
    let mut i = 0;
    while i < units.len() {
        match units[i] {
            u if u == u16::from(COLOUR) => i += 4,
            u if u < 0x20 || u == 0x7F => i += 1,
            u => {
                plain.push(u);
                i += 1;
            }
        }
    }
    char::decode_utf16(plain)
        .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
        .collect()
}

/// Writes `text`: 8-bit when it is ASCII and short enough, UCS-2 otherwise; a string too long
/// for its length byte is cut (126 bytes or UCS-2 units, plus the NUL). Servers also send
/// Latin-1 in the 8-bit form, but Latin-1 that happens to be valid UTF-8 would read back as
/// UTF-8, so our encoder leaves non-ASCII to UCS-2, which is exact. Text is written as is:
/// colour codes in it are kept.
pub fn write_string(text: &str, out: &mut Vec<u8>) {
    if text.is_empty() {
        out.push(0);
        return;
    }
    if text.is_ascii() && text.len() <= 126 {
        write_raw(text.as_bytes(), out);
        return;
    }
    let units: Vec<u16> = text.encode_utf16().take(126).collect();
    write_length(units.len() + 1, true, out);
    for u in units {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out.extend_from_slice(&[0, 0]);
}

/// Writes 8-bit bytes as they are (the simulator's colour-coded names): `bytes` must hold no
/// NUL and at most 126 bytes; more are cut.
pub fn write_raw(bytes: &[u8], out: &mut Vec<u8>) {
    let bytes = &bytes[..bytes.len().min(126)];
    write_length(bytes.len() + 1, false, out);
    out.extend_from_slice(bytes);
    out.push(0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn read(bytes: &[u8]) -> Result<(String, usize), DecodeError> {
        let mut r = Reader::new(bytes);
        let s = read_string(&mut r)?;
        Ok((s, r.position()))
    }

    /// The 8-bit form counts its NUL; an empty string is one zero byte.
    #[test]
    fn narrow() {
        assert_eq!(read(b"\x04abc\0rest"), Ok(("abc".into(), 5)));
        assert_eq!(read(b"\x00\x07"), Ok((String::new(), 1)));
        // Latin-1 when the bytes are not UTF-8: "Müller" from a German server.
        assert_eq!(read(b"\x07M\xfcller\0"), Ok(("Müller".into(), 8)));
        // UTF-8 when they are.
        assert_eq!(read(b"\x04\xc3\xa9!\0"), Ok(("é!".into(), 5)));
        // A missing NUL is tolerated.
        assert_eq!(read(b"\x02ab"), Ok(("ab".into(), 3)));
    }

    /// The wide form counts characters, NUL included: "Ab" is 3 units, 6 bytes.
    #[test]
    fn wide() {
        let bytes = [0x83, b'A', 0, 0x3A, 0x04, 0, 0, 0xFF];
        // U+043A is Cyrillic "к".
        assert_eq!(read(&bytes), Ok(("Aк".into(), 7)));
    }

    /// `1B R G B` is a colour in either form; other control characters go too.
    #[test]
    fn colours_stripped() {
        assert_eq!(
            read(b"\x0f\x1b\xff\x01\x01Red\x1b\x01\x01\xffB\tx\0"),
            Ok(("RedBx".into(), 16))
        );
        let mut wide = vec![0x80 | 7];
        for u in [0x1B, 0xFF, 0xFF, 0xFF, 0x20AC, u16::from(b'5'), 0x1B] {
            wide.extend_from_slice(&u16::to_le_bytes(u));
        }
        // "€" after a white colour; a colour cut short at the end eats what is there.
        assert_eq!(read(&wide).map(|x| x.0), Ok("€5".into()));
    }

    /// A length past the end is an overrun, for either form.
    #[test]
    fn overruns() {
        assert!(matches!(read(b"\x05ab"), Err(DecodeError::Overrun { .. })));
        assert!(matches!(
            read(&[0x82, 1, 0, 0]),
            Err(DecodeError::Overrun { .. })
        ));
        assert!(matches!(read(&[]), Err(DecodeError::Truncated { .. })));
    }

    /// What we write, we read back: 8-bit, wide and empty.
    #[test]
    fn writes() {
        let mut out = Vec::new();
        write_string("DM-Rankin", &mut out);
        assert_eq!(out, b"\x0aDM-Rankin\0");
        out.clear();
        write_string("Пётр", &mut out);
        assert_eq!(out[0], 0x85);
        assert_eq!(out.len(), 1 + 10);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic, and never read past what arrived.
        #[test]
        fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            if let Ok((_, used)) = read(&bytes) {
                prop_assert!(used <= bytes.len());
            }
        }

        /// Printable text without colours round-trips (cut to what a length byte holds).
        #[test]
        fn round_trip(text in "[^\\x00-\\x1f\\x7f]{0,40}") {
            let mut out = Vec::new();
            write_string(&text, &mut out);
            prop_assert_eq!(read(&out), Ok((text, out.len())));
        }
    }
}
