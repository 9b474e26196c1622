//! Quake 3-engine query (`getstatus` / `getinfo`): ioquake3, OpenArena, Urban Terror,
//! Wolfenstein: ET and RtCW, Call of Duty 1-4, Jedi Knight II/JA, Tremulous, and the
//! DarkPlaces games (Nexuiz, Xonotic). See `docs/protocols/quake3.md`.
//!
//! # Format
//! Every datagram, both ways, starts with four `FF` bytes ("out of band"), then text:
//! ```text
//! request:  FF FF FF FF "getstatus" [" " challenge] "\n"
//!           FF FF FF FF "getinfo"   [" " challenge] "\n"
//! status:   FF FF FF FF "statusResponse\n" infostring "\n" { score " " ping [" " team] " \"" name "\"\n" }
//! info:     FF FF FF FF "infoResponse\n" infostring
//! infostring: { "\" key "\" value }
//! ```
//! The server echoes the challenge as the `challenge` variable (ioquake3 and DarkPlaces do;
//! engines that do not are accepted, the address being all we can match then).
//!
//! # Driving a poll
//! Send [`encode_request`] `getstatus` with a fresh [`challenge`], feed datagrams to
//! [`decode_status`] (a [`DecodeError::Mismatch`] is someone else's reply: keep waiting), and
//! map the reply with [`to_status`]. Space every request to one server, resends included, by
//! [`MIN_GAP`]: servers drop fast repeats from one address. `getinfo` ([`decode_info`]) adds
//! ioquake3's `g_humanplayers`; [`to_status`] takes it when the caller has one.

mod color;
pub mod exchange;
mod infostring;
mod map;
mod players;
mod reply;
pub mod spec;

pub use color::strip_colors;
pub use infostring::{decode_vars, encode_vars, Vars, MAX_VARS};
pub use map::{to_status, BotSource, Want};
pub use players::{encode_line as encode_player_line, PlayerLine, Players, MAX_PLAYERS};
pub use reply::{
    decode_info, decode_reply, decode_status, encode_info_reply, encode_status_reply, Kind, Reply,
};

use std::time::Duration;

use super::DecodeError;

/// The "out of band" marker that starts every connectionless datagram.
pub const OOB: [u8; 4] = [0xFF; 4];

/// The gap we keep between two requests to one server, resends included.
///
/// DarkPlaces drops any `getstatus` or `getinfo` arriving within
/// `net_getstatusfloodblockingtimeout` (default 1 s, measured in server frames) of the last
/// one it accepted from the same IP address, and both commands share that one timer.
/// ioquake3 allows a burst of 10 per address, refilled at one per second. One second plus a
/// server frame's worth of slack satisfies both.
pub const MIN_GAP: Duration = Duration::from_millis(1100);

/// The longest challenge ioquake3 answers (longer ones are ignored, not truncated).
pub const MAX_CHALLENGE: usize = 128;

/// The two queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    /// `getstatus`: every server variable and one line per player.
    Status,
    /// `getinfo`: a short summary; ioquake3 adds `g_humanplayers` and `clients` here.
    Info,
}

impl Command {
    pub fn word(self) -> &'static str {
        match self {
            Command::Status => "getstatus",
            Command::Info => "getinfo",
        }
    }
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub command: Command,
    /// The argument after the command, if any.
    pub challenge: Option<String>,
}

/// Writes a request. `challenge` should be 1 to [`MAX_CHALLENGE`] ASCII letters or digits: a
/// server copies it into its infostring, where `\`, `"` and `;` are not allowed. An empty one
/// is left out.
pub fn encode_request(command: Command, challenge: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&OOB);
    out.extend_from_slice(command.word().as_bytes());
    if !challenge.is_empty() {
        out.push(b' ');
        out.extend_from_slice(challenge.as_bytes());
    }
    out.push(b'\n');
}

/// A challenge from a number the caller drew (this module has no randomness of its own).
pub fn challenge(nonce: u32) -> String {
    format!("{nonce:08x}")
}

/// Decodes a request (server side): the marker, a command word (case-insensitive, as
/// ioquake3 compares it), and an optional argument up to the end of the line.
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    let text = datagram
        .strip_prefix(&OOB)
        .ok_or(DecodeError::Invalid("out-of-band marker"))?;
    let line = text.split(|&b| b == b'\n' || b == 0).next().unwrap_or(text);
    let line = String::from_utf8_lossy(line);
    let mut words = line.trim().splitn(2, ' ');
    let word = words.next().unwrap_or("");
    let command = [Command::Status, Command::Info]
        .into_iter()
        .find(|c| c.word().eq_ignore_ascii_case(word))
        .ok_or(DecodeError::Invalid("Quake 3 query command"))?;
    let challenge = words
        .next()
        .map(|c| c.trim().to_string())
        .filter(|c| !c.is_empty());
    Ok(Request { command, challenge })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The requests are the marker, the word, a space and the challenge, and a newline:
    /// byte for byte what our loopback capture script sent the real OpenArena server.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(Command::Status, "abc123", &mut out);
        assert_eq!(out, b"\xff\xff\xff\xffgetstatus abc123\n");
        out.clear();
        encode_request(Command::Info, "", &mut out);
        assert_eq!(out, b"\xff\xff\xff\xffgetinfo\n");
        assert_eq!(challenge(0xdead_beef), "deadbeef");
        assert_eq!(challenge(7), "00000007");
    }

    /// The simulator reads back what we send, and what other clients send (no newline,
    /// upper case, DarkPlaces' long challenge).
    #[test]
    fn request_decoding() {
        let mut out = Vec::new();
        encode_request(Command::Status, "deadbeef", &mut out);
        assert_eq!(
            decode_request(&out),
            Ok(Request {
                command: Command::Status,
                challenge: Some("deadbeef".into())
            })
        );
        assert_eq!(
            decode_request(b"\xff\xff\xff\xffGETINFO"),
            Ok(Request {
                command: Command::Info,
                challenge: None
            })
        );
        assert_eq!(
            decode_request(b"\xff\xff\xff\xffgetstatus  \n"),
            Ok(Request {
                command: Command::Status,
                challenge: None
            })
        );
        assert!(decode_request(b"getstatus\n").is_err());
        assert!(decode_request(b"\xff\xff\xff\xffrcon secret status\n").is_err());
        assert!(decode_request(b"\xff\xff\xff").is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic the request decoder.
        #[test]
        fn request_decoder_survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..64), oob in any::<bool>()) {
            let mut d = if oob { OOB.to_vec() } else { Vec::new() };
            d.extend_from_slice(&bytes);
            let _ = decode_request(&d);
        }

        /// Every challenge we generate round-trips.
        #[test]
        fn request_round_trip(nonce in any::<u32>(), info in any::<bool>()) {
            let command = if info { Command::Info } else { Command::Status };
            let mut out = Vec::new();
            encode_request(command, &challenge(nonce), &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request { command, challenge: Some(challenge(nonce)) }));
        }
    }
}
