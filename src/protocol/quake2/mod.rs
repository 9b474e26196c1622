//! Quake 2-engine `status` (Quake 2, Alien Arena, Daikatana, and the QuakeWorld/Quake 1
//! servers that answer the same way: `protocol::quake1` reuses the framing here). See
//! `docs/protocols/quake2.md`.
//!
//! # Format
//! ```text
//! request:  FF FF FF FF "status\n"
//! reply:    FF FF FF FF header infostring "\n" { player line "\n" } [NUL...]
//! header:   "print\n" (Quake 2)  |  "n" (QuakeWorld's A2C_PRINT)
//! infostring: { "\" key "\" value }
//! Quake 2 line:     frags " " ping " \"" name "\"" [" \"" address "\""]
//! QuakeWorld line:  userid frags time ping "name" "skin" top bottom
//! ```
//! A line is words and quoted strings; we split it the way the engines print it
//! ([`split_line`]) and leave the meaning of the words to each dialect.

pub mod exchange;
mod frame;
mod map;
pub mod spec;

pub use frame::{decode_frame, encode_frame, split_line, Frame, MAX_LINES};
pub use map::{decode_reply, encode_player_line, to_status, Player, Reply};

/// The "out of band" marker that starts every connectionless datagram.
pub const OOB: [u8; 4] = [0xFF; 4];

/// What a Quake 2 server's reply starts with after the marker.
pub const HEADER: &[u8] = b"print\n";

/// Writes the `status` request: the marker, the word, a newline (what qstat sends; Quake 2
/// and QuakeWorld servers read the first word and ignore the rest).
pub fn encode_request(out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(b"status\n");
}

/// Whether `datagram` is a `status` request (server side): the marker and the word `status`,
/// case-insensitive, ended by the datagram, a blank, a newline or a NUL (gamedig ends it
/// with a NUL, mvdsv's own flags follow a space).
pub fn is_request(datagram: &[u8]) -> bool {
    let Some(text) = datagram.strip_prefix(&OOB) else {
        return false;
    };
    let word_len = text
        .iter()
        .position(|&b| b == b' ' || b == b'\n' || b == 0)
        .unwrap_or(text.len());
    text[..word_len].eq_ignore_ascii_case(b"status")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(&mut out);
        assert_eq!(out, b"\xff\xff\xff\xffstatus\n");
        assert!(is_request(&out));
        assert!(is_request(b"\xff\xff\xff\xffstatus\0"));
        assert!(is_request(b"\xff\xff\xff\xffSTATUS 23\n"));
        assert!(is_request(b"\xff\xff\xff\xffstatus"));
        assert!(!is_request(b"\xff\xff\xff\xffstatusx\n"));
        assert!(!is_request(b"\xff\xff\xff\xffgetstatus\n"));
        assert!(!is_request(b"status\n"));
        assert!(!is_request(b"\xff\xff\xff"));
    }
}
