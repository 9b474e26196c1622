//! Text safe to paste anywhere: control characters and bidirectional overrides escaped,
//! notes cut to a bounded length. Used for everything a probe transcript writes.

/// Characters of one note (an error text, a label) kept.
pub const MAX_NOTE_CHARS: usize = 400;

/// Characters that must not reach a terminal or a bug tracker raw: control characters and the
/// bidirectional overrides that make text read differently from what it holds.
pub fn unsafe_char(c: char) -> bool {
    crate::text::hidden(c)
}

/// One line of text, unsafe characters (newlines included) escaped, at most
/// [`MAX_NOTE_CHARS`] characters kept.
pub fn safe_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_NOTE_CHARS));
    for (i, c) in s.chars().enumerate() {
        if i == MAX_NOTE_CHARS {
            out.push_str("...(cut)");
            break;
        }
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// A block of lines: newlines kept, every other unsafe character escaped. The exposition is
/// already free of them (server strings are cleaned when encoded); this keeps it so.
pub fn safe_block(s: &str) -> String {
    if !s.chars().any(|c| c != '\n' && unsafe_char(c)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c != '\n' && unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Control characters, newlines and bidirectional overrides are escaped in a line; a long
    /// line is cut.
    #[test]
    fn lines() {
        assert_eq!(
            safe_line("a\u{1b}[31mb\nc\u{202e}d\u{7f}\0"),
            "a\\u{1b}[31mb\\u{a}c\\u{202e}d\\u{7f}\\u{0}"
        );
        let long = "x".repeat(MAX_NOTE_CHARS + 1);
        assert_eq!(
            safe_line(&long),
            format!("{}...(cut)", "x".repeat(MAX_NOTE_CHARS))
        );
        assert_eq!(safe_line("plain ascii"), "plain ascii");
    }

    /// A block keeps its newlines and escapes the rest.
    #[test]
    fn blocks() {
        assert_eq!(safe_block("a\nb\u{1b}\r\n"), "a\nb\\u{1b}\\u{d}\n");
        assert_eq!(safe_block("up 1\n"), "up 1\n");
    }

    proptest::proptest! {
        /// Whatever goes in, nothing unsafe comes out, and lines stay one line.
        #[test]
        fn nothing_unsafe(s in ".*") {
            proptest::prop_assert!(!safe_line(&s).chars().any(unsafe_char));
            proptest::prop_assert!(!safe_block(&s).chars().any(|c| c != '\n' && unsafe_char(c)));
        }
    }
}
