//! Vice City Multiplayer (VC:MP 0.4) query: SA:MP's (`protocol::samp`) in another
//! [`Dialect`]. See `docs/protocols/vcmp.md`.
//!
//! # Format
//! ```text
//! request: "VCMP" | IPv4 octets (4) | port (u16 LE) | opcode
//! reply:   "MP04" | the same 7 bytes | body
//! i body:  version (12 bytes, NUL-padded) | password (u8) | players (u16 LE) | max (u16 LE)
//!          | hostname | gamemode | map          (each a u32 LE length + bytes)
//! c body:  count (u16 LE) | { name (u8 length + bytes) }
//! ```
//! VC:MP has no `r`, `d` or `o`, and its `c` entries carry no score (the VC:MP wiki's
//! "Query Mechanism" page; opengsq reads it so, gamedig 5.3.3 reads a score after each
//! name). The codec and the dialogue are SA:MP's: this module only names the differences.

pub mod spec;

pub use crate::protocol::samp::Dialect;

/// VC:MP's differences from SA:MP.
pub const DIALECT: Dialect = Dialect {
    request_magic: *b"VCMP",
    reply_magic: *b"MP04",
    info_version: 12,
    third_is_map: true,
    client_scores: false,
    extended: false,
    labels: [
        "VC:MP i", "VC:MP r", "VC:MP c", "VC:MP d", "VC:MP p", "VC:MP o",
    ],
};

#[cfg(test)]
mod tests;
