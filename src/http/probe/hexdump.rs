//! Hex dumps for probe transcripts: offset, 16 bytes in hex, then the same bytes as ASCII with
//! everything outside printable ASCII shown as `.`. The output is pure ASCII whatever the
//! input, so hostile bytes cannot reach a terminal or a bug tracker as control characters.
//!
//! # Format
//! ```text
//! 0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|
//! 0010  6e 65 20 51 75 65 72 79  00                       |ne Query.|
//! ```

use std::fmt::Write;

/// Bytes per dump line.
pub const PER_LINE: usize = 16;

/// Appends the first `limit` bytes of `bytes` as dump lines, each starting with `indent`.
/// Offsets count from the start of `bytes`.
pub fn dump(out: &mut String, bytes: &[u8], limit: usize, indent: &str) {
    let shown = &bytes[..bytes.len().min(limit)];
    for (i, line) in shown.chunks(PER_LINE).enumerate() {
        out.push_str(indent);
        let _ = write!(out, "{:04x} ", i * PER_LINE);
        for col in 0..PER_LINE {
            if col == PER_LINE / 2 {
                out.push(' ');
            }
            match line.get(col) {
                Some(b) => {
                    let _ = write!(out, " {b:02x}");
                }
                None => out.push_str("   "),
            }
        }
        out.push_str("  |");
        out.extend(line.iter().map(|&b| printable(b)));
        out.push_str("|\n");
    }
}

/// The byte as itself when it is printable ASCII, else `.`.
fn printable(b: u8) -> char {
    if (0x20..0x7f).contains(&b) {
        char::from(b)
    } else {
        '.'
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Characters one dump line takes at most, indent and newline excluded.
    const LINE_CHARS: usize = 6 + PER_LINE * 3 + 1 + 2 + PER_LINE + 1;

    /// A full line and a short one: offsets, the gap after eight bytes, padding before the
    /// ASCII column, and non-printable bytes as dots.
    #[test]
    fn two_lines() {
        let mut out = String::new();
        dump(
            &mut out,
            b"\xff\xff\xff\xffTSource Engine Query\0",
            64,
            "> ",
        );
        assert_eq!(
            out,
            "> 0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|\n\
             > 0010  6e 65 20 51 75 65 72 79  00                       |ne Query.|\n"
        );
        assert!(out.lines().all(|l| l.len() <= 2 + LINE_CHARS));
    }

    /// The limit cuts the dump; nothing at all for an empty input.
    #[test]
    fn limit_and_empty() {
        let mut out = String::new();
        dump(&mut out, &[0x41; 100], 20, "");
        assert_eq!(out.lines().count(), 2);
        assert!(out.ends_with("|AAAA|\n"), "{out}");
        let mut out = String::new();
        dump(&mut out, &[], 20, "");
        assert_eq!(out, "");
    }

    proptest::proptest! {
        /// Any bytes give pure printable ASCII lines of bounded length, one per 16 bytes.
        #[test]
        fn any_bytes_safe(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..300), limit in 0usize..400) {
            let mut out = String::new();
            dump(&mut out, &bytes, limit, "");
            let shown = bytes.len().min(limit);
            proptest::prop_assert_eq!(out.lines().count(), shown.div_ceil(PER_LINE));
            proptest::prop_assert!(out.chars().all(|c| c == '\n' || (' '..='~').contains(&c)));
            proptest::prop_assert!(out.lines().all(|l| l.len() <= LINE_CHARS));
        }
    }
}
