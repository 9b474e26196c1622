//! Quake's character set, as QuakeWorld servers send names and variables.

/// `text` in plain ASCII: the high bit (Quake's "red" copy of each character) cleared,
/// 16/17 (`[` `]` in gold) and 18-27 (gold digits) to their ASCII twins, and the remaining
/// control characters but newline dropped (they are pictures in Quake's font: arrows,
/// boxes, dots). The result is no longer than `text`.
pub fn plain(text: &[u8]) -> Vec<u8> {
    text.iter()
        .filter_map(|&b| {
            let c = b & 0x7F;
            match c {
                b'\n' => Some(b'\n'),
                16 => Some(b'['),
                17 => Some(b']'),
                18..=27 => Some(b'0' + (c - 18)),
                // Quake's dot characters: kept as a plain dot so names stay readable.
                5 | 14 | 15 | 28 => Some(b'.'),
                0..=31 | 127 => None,
                _ => Some(c),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quake_charset() {
        // "red" letters, gold brackets and digits, a dot, a box-drawing control.
        assert_eq!(plain(b"\xe1\xe2c"), b"abc");
        assert_eq!(plain(&[16, 18, 27, 17, 0x8e, b'x', 1, 0x7f]), b"[09].x");
        assert_eq!(plain(b"a\nb\0"), b"a\nb");
        // Backslash and quote keep their meaning after the mapping, as in the engine.
        assert_eq!(plain(&[0xdc, 0xa2]), b"\\\"");
    }
}
