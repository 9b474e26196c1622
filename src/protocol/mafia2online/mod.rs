//! Mafia II Online's UDP query (the game port + 1): Mafia II Multiplayer's
//! (`protocol::mafia2mp`) in another [`Dialect`]. See `docs/protocols/mafia2online.md`.
//!
//! # Format
//! ```text
//! request: "M2Online"
//! reply:   "M2Online" | name | players | max | gamemode | password (u8)
//!          | { name | ping (decimal text) }   to the datagram's end
//! ```
//! Strings as Mafia II Multiplayer's (a length byte counting itself). The codec and the
//! dialogue are Mafia II Multiplayer's: this module only names the differences.

pub mod spec;

pub use crate::protocol::mafia2mp::Dialect;

/// Mafia II Online's differences: its magic, and a ping after each player's name.
pub const DIALECT: Dialect = Dialect {
    magic: b"M2Online",
    pings: true,
};

#[cfg(test)]
mod tests;
