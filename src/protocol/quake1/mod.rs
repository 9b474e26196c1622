//! QuakeWorld `status` (mvdsv, ezQuake's server, FTE, and the QuakeWorld-derived
//! HexenWorld): the Quake 2 frame (`protocol::quake2`) with QuakeWorld's one-byte header
//! and its own player lines. See `docs/protocols/quake1.md`.
//!
//! # Format
//! ```text
//! request:  FF FF FF FF "status\n"
//! reply:    FF FF FF FF "n" infostring "\n" { userid frags time ping "name" "skin" top bottom "\n" } NUL
//! ```
//! The real mvdsv 0.35 on 127.0.0.1 sent (no player connected):
//! `FF FF FF FF n \*gamedir\ktx\maxfps\77\...\hostname\...\*version\MVDSV 0.35\...\map\start\status\Standby \n 00`.
//! Text is Quake's character set: bytes 128-255 are the coloured copy of 0-127 and 16-27
//! are brackets and digits; [`plain`] maps them to ASCII before anything reads them.

mod chars;
pub mod exchange;
mod map;
pub mod spec;

pub use chars::plain;
pub use map::{decode_reply, encode_player_line, to_status, Player, Reply};

pub use super::quake2::encode_request;

/// What a QuakeWorld server's reply starts with after the marker: `A2C_PRINT`.
pub const HEADER: &[u8] = b"n";
