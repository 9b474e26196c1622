//! The reply's frame, shared by Quake 2 and QuakeWorld: marker, header, infostring line,
//! player lines.

use super::OOB;
use crate::protocol::quake3::{decode_vars, encode_vars, Vars};
use crate::protocol::DecodeError;

/// Player lines kept per reply; later ones are counted, not split. Quake 2 allows 256
/// clients (`MAX_CLIENTS`), QuakeWorld 32, so no real server reaches this.
pub const MAX_LINES: usize = 256;

/// Words kept per player line: QuakeWorld's longest line has 9 (with the team), so more is
/// noise.
const MAX_WORDS: usize = 12;

/// A reply cut into its parts; player lines are left as bytes for the dialect to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Frame<'a> {
    pub vars: Vars,
    /// The first [`MAX_LINES`] non-blank player lines, without their newline.
    pub lines: Vec<&'a [u8]>,
    /// Every non-blank player line, kept or not.
    pub total: usize,
}

/// Cuts a reply whose header (after the marker) is `header`.
///
/// No marker or another header is [`DecodeError::Mismatch`] (someone else's datagram: keep
/// waiting). Trailing NUL bytes are dropped (mvdsv sends one). The infostring must start
/// with `\` (QuakeWorld also prints rejections and messages with the same `n` header: those
/// are mismatches) and end in a newline, as must every player line: a missing newline is a
/// cut datagram ([`DecodeError::Truncated`]).
pub fn decode_frame<'a>(datagram: &'a [u8], header: &[u8]) -> Result<Frame<'a>, DecodeError> {
    let text = datagram
        .strip_prefix(&OOB)
        .ok_or(DecodeError::Mismatch("out-of-band marker"))?;
    let end = text.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let text = &text[..end];
    let Some(body) = text.strip_prefix(header) else {
        if !text.is_empty() && header.starts_with(text) {
            return Err(truncated(OOB.len(), text.len()));
        }
        return Err(DecodeError::Mismatch("status reply header"));
    };
    let at = OOB.len() + header.len();
    if body.first().is_some_and(|&b| b != b'\\' && b != b'\n') {
        return Err(DecodeError::Mismatch("a printed message, not a status"));
    }
    let Some(nl) = body.iter().position(|&b| b == b'\n') else {
        return Err(truncated(at, body.len()));
    };
    let vars = decode_vars(&body[..nl])?;
    let mut frame = Frame {
        vars,
        lines: Vec::new(),
        total: 0,
    };
    let mut rest = &body[nl + 1..];
    let mut offset = at + nl + 1;
    while !rest.is_empty() {
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            return Err(truncated(offset, rest.len()));
        };
        let line = &rest[..end];
        if !line.iter().all(u8::is_ascii_whitespace) {
            frame.total += 1;
            if frame.lines.len() < MAX_LINES {
                frame.lines.push(line);
            }
        }
        rest = &rest[end + 1..];
        offset += end + 1;
    }
    Ok(frame)
}

fn truncated(offset: usize, available: usize) -> DecodeError {
    DecodeError::Truncated {
        offset,
        needed: available + 1,
        available,
    }
}

/// Writes a reply (server side): marker, header, infostring, newline, then `lines` as given
/// (each must end in its newline).
pub fn encode_frame(header: &[u8], vars: &[(String, String)], lines: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(header);
    encode_vars(vars, out);
    out.push(b'\n');
    out.extend_from_slice(lines);
}

/// A player line's words: a quoted string is one word (quotes removed, empty kept), and
/// outside quotes blanks separate words. An unclosed quote runs to the end of the line. At
/// most 12 words are kept.
pub fn split_line(line: &[u8]) -> Vec<&[u8]> {
    let mut words = Vec::new();
    let mut rest = line;
    while words.len() < MAX_WORDS {
        let start = rest.iter().position(|b| !b.is_ascii_whitespace());
        let Some(start) = start else { break };
        rest = &rest[start..];
        if let Some(quoted) = rest.strip_prefix(b"\"") {
            let end = quoted.iter().position(|&b| b == b'"');
            let end = end.unwrap_or(quoted.len());
            words.push(&quoted[..end]);
            rest = quoted.get(end + 1..).unwrap_or(&[]);
        } else {
            let end = rest
                .iter()
                .position(|&b| b.is_ascii_whitespace() || b == b'"')
                .unwrap_or(rest.len());
            words.push(&rest[..end]);
            rest = &rest[end..];
        }
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn frame_parts() {
        let d = b"\xff\xff\xff\xffprint\n\\hostname\\Q2\\maxclients\\8\n3 50 \"alice\"\n\n0 0 \"bot\"\n\0";
        let f = decode_frame(d, b"print\n").unwrap();
        assert_eq!(f.vars.get("hostname"), Some("Q2"));
        assert_eq!(f.lines, vec![&b"3 50 \"alice\""[..], &b"0 0 \"bot\""[..]]);
        assert_eq!(f.total, 2);
    }

    #[test]
    fn frame_refusals() {
        fn m(d: &[u8]) -> Result<Frame<'_>, DecodeError> {
            decode_frame(d, b"print\n")
        }
        assert!(matches!(
            m(b"print\n\\a\\b\n"),
            Err(DecodeError::Mismatch(_))
        ));
        assert!(matches!(
            m(b"\xff\xff\xff\xffinfo\n"),
            Err(DecodeError::Mismatch(_))
        ));
        assert!(matches!(
            m(b"\xff\xff\xff\xffprint\nBanned.\n"),
            Err(DecodeError::Mismatch(_))
        ));
        assert_eq!(
            m(b"\xff\xff\xff\xffpri"),
            Err(DecodeError::Truncated {
                offset: 4,
                needed: 4,
                available: 3
            })
        );
        assert_eq!(
            m(b"\xff\xff\xff\xffprint\n\\a\\b"),
            Err(DecodeError::Truncated {
                offset: 10,
                needed: 5,
                available: 4
            })
        );
        assert_eq!(
            m(b"\xff\xff\xff\xffprint\n\\a\\b\n1 2 \"x"),
            Err(DecodeError::Truncated {
                offset: 15,
                needed: 7,
                available: 6
            })
        );
        // An empty status (header only) has no variables and no players.
        let f = m(b"\xff\xff\xff\xffprint\n\n").unwrap();
        assert_eq!((f.vars.pairs.len(), f.total), (0, 0));
    }

    #[test]
    fn lines_past_the_cap_are_counted() {
        let mut d = b"\xff\xff\xff\xffn\\a\\b\n".to_vec();
        for _ in 0..MAX_LINES + 5 {
            d.extend_from_slice(b"1 2 3 4 \"x\" \"base\" 0 0\n");
        }
        let f = decode_frame(&d, b"n").unwrap();
        assert_eq!((f.lines.len(), f.total), (MAX_LINES, MAX_LINES + 5));
    }

    #[test]
    fn words() {
        let w = split_line(b"12 7 \"my name\" \"\" 4  5");
        assert_eq!(w, vec![&b"12"[..], b"7", b"my name", b"", b"4", b"5"]);
        assert_eq!(split_line(b"1 2 \"open"), vec![&b"1"[..], b"2", b"open"]);
        assert_eq!(split_line(b"a\"b\""), vec![&b"a"[..], b"b"]);
        assert_eq!(split_line(&[b'x'; 2][..]).len(), 1);
        assert_eq!(split_line(&b"1 ".repeat(100)).len(), 12);
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic the frame decoder or the line splitter.
        #[test]
        fn survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..512), oob in any::<bool>()) {
            let mut d = if oob { b"\xff\xff\xff\xffprint\n".to_vec() } else { Vec::new() };
            d.extend_from_slice(&bytes);
            if let Ok(f) = decode_frame(&d, b"print\n") {
                for l in f.lines {
                    prop_assert!(split_line(l).len() <= MAX_WORDS);
                }
            }
            let _ = split_line(&bytes);
        }
    }
}
