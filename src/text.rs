//! What text from a server may show: control characters and the Unicode formatting
//! characters that change how surrounding text reads (bidirectional overrides and isolates,
//! as in "Trojan Source") are hidden wherever a server's string is published, so a server
//! named `abc\u{202e}fed` cannot make its label value, player name or landing-page row read
//! as something it does not hold.

/// Whether `c` is dropped from a server-supplied string before it is published: control
/// characters (C0, DEL, C1) and the bidirectional marks, embeddings, overrides and isolates.
/// Callers that keep newlines (label values escape them) check for `'\n'` first.
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bidirectional formatting character and every control is hidden; letters of
    /// right-to-left scripts, zero-width joiners and ordinary punctuation are not.
    #[test]
    fn hides_controls_and_direction_formatting() {
        for c in ['\0', '\t', '\n', '\u{1b}', '\u{7f}', '\u{9b}'] {
            assert!(hidden(c), "{c:?}");
        }
        for c in [
            '\u{061c}', '\u{200e}', '\u{200f}', '\u{202a}', '\u{202b}', '\u{202c}', '\u{202d}',
            '\u{202e}', '\u{2066}', '\u{2067}', '\u{2068}', '\u{2069}',
        ] {
            assert!(hidden(c), "{c:?}");
        }
        for c in [
            'a', ' ', '§', 'ж', 'ש', 'ع', '中', '\u{200d}', '\u{2065}', '\u{2029}',
        ] {
            assert!(!hidden(c), "{c:?}");
        }
    }
}
