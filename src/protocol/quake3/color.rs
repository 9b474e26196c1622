//! Colour codes, stripped from every string a Quake 3-engine server sends.
//!
//! Engines disagree on what follows the `^` escape:
//! - id's Quake 3 (1.32) treats `^` plus any byte but `^` and NUL as a colour;
//! - ioquake3 and OpenArena take `^` plus an ASCII letter or digit (`^0`-`^9`, and the
//!   letters some mods use for extra colours);
//! - DarkPlaces (Nexuiz, Xonotic) takes `^0`-`^9`, `^xRGB` with three hex digits, and writes a
//!   literal caret as `^^`.
//!
//! We strip the union that cannot eat real text: `^` + ASCII alphanumeric, `^xRGB`, and `^^`
//! becomes one `^`. A `^` followed by punctuation or a space is left alone, so "^_^" survives
//! (id's engine would eat `^_`; names like that are rare, and keeping them readable wins).
//! ASCII control characters are dropped too: they are never printable and would only reach
//! label values.

/// `text` without colour codes or control characters. Allocates only the result.
pub fn strip_colors(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    // Runs of plain text are copied whole (a character at a time cost every poll more than
    // the decoder). Every byte we match or skip is ASCII, so `start` and `i` sit on
    // character boundaries whenever a run is cut: a continuation byte of a non-ASCII
    // character is never `^` nor a control character.
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let (skip, keep_caret) = match (b, bytes.get(i + 1)) {
            (b'^', Some(b'^')) => (2, true),
            (b'^', Some(b'x')) if is_hex3(bytes.get(i + 2..i + 5)) => (5, false),
            (b'^', Some(c)) if c.is_ascii_alphanumeric() => (2, false),
            _ if b.is_ascii_control() => (1, false),
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_str(&text[start..i]);
        if keep_caret {
            out.push('^');
        }
        i += skip;
        start = i;
    }
    out.push_str(&text[start..]);
    out
}

fn is_hex3(digits: Option<&[u8]>) -> bool {
    digits.is_some_and(|d| d.iter().all(u8::is_ascii_hexdigit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The forms each engine draws in colour disappear; the text between them stays.
    #[test]
    fn engines_colour_forms() {
        assert_eq!(strip_colors("^1Red^7 Test"), "Red Test");
        // DarkPlaces 12-bit colour, as captured from the OpenArena test server's hostname.
        assert_eq!(strip_colors("^1Red^7 Test ^x00fServer"), "Red Test Server");
        assert_eq!(strip_colors("^xF0aLime^xfffWhite"), "LimeWhite");
        // OSP/CPMA letter colours.
        assert_eq!(strip_colors("^aA^zZ^ZX"), "AZX");
        // A DarkPlaces literal caret.
        assert_eq!(strip_colors("2^^3 = 8"), "2^3 = 8");
    }

    /// What is not a colour code stays: carets before punctuation or at the end, `^x`
    /// without three hex digits (stripped as `^x`, the ioquake3 reading), non-ASCII text.
    #[test]
    fn not_colours() {
        assert_eq!(strip_colors("^_^"), "^_^");
        assert_eq!(strip_colors("end^"), "end^");
        assert_eq!(strip_colors("^xZZtop"), "ZZtop");
        assert_eq!(strip_colors("^3Jörg ^5日本"), "Jörg 日本");
        assert_eq!(strip_colors(""), "");
    }

    /// Control characters never reach a label.
    #[test]
    fn controls_dropped() {
        assert_eq!(strip_colors("a\tb\r\nc\0d\x1b[31m"), "abcd[31m");
    }

    /// The walk before runs were copied whole: one character at a time.
    fn by_characters(text: &str) -> String {
        let bytes = text.as_bytes();
        let mut out = String::new();
        let mut i = 0;
        while i < bytes.len() {
            let b = bytes[i];
            if b == b'^' {
                match bytes.get(i + 1) {
                    Some(b'^') => {
                        out.push('^');
                        i += 2;
                        continue;
                    }
                    Some(b'x') if is_hex3(bytes.get(i + 2..i + 5)) => {
                        i += 5;
                        continue;
                    }
                    Some(c) if c.is_ascii_alphanumeric() => {
                        i += 2;
                        continue;
                    }
                    _ => {}
                }
            }
            if b.is_ascii_control() {
                i += 1;
                continue;
            }
            let ch = text[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any text: no panic, never longer than the input, no control character left.
        #[test]
        fn soup_survives(s in "[\\^x0-9a-fA-F\\x00-\\x1f é日]{0,64}", t in any::<String>()) {
            for input in [&s, &t] {
                let out = strip_colors(input);
                prop_assert!(out.len() <= input.len());
                prop_assert!(!out.chars().any(|c| c.is_ascii_control()));
            }
        }

        /// The run-copying walk gives what the character-at-a-time walk it replaced gave.
        #[test]
        fn same_as_the_character_walk(s in "[\\^x0-9a-fA-F\\x00-\\x1f é日]{0,64}", t in any::<String>()) {
            for input in [&s, &t] {
                prop_assert_eq!(strip_colors(input), by_characters(input));
            }
        }

        /// Text without carets or controls passes unchanged.
        #[test]
        fn plain_text_unchanged(s in "[a-zA-Z0-9 _.,:()é日-]{0,64}") {
            prop_assert_eq!(strip_colors(&s), s);
        }
    }
}
