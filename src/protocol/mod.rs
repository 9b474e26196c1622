//! Sans-IO codecs for every supported query protocol.
//!
//! This module contains no networking code, reads no clock and never imports tokio: every
//! function maps bytes to values (`decode_*`) or values to bytes (`encode_*`), and multi-step
//! exchanges are small state machines that the caller feeds with datagrams and asks what to
//! send next. Time, sockets and retries belong to [`crate::query`] and [`crate::net`].
//!
//! Every byte handed to a decoder is hostile: lengths are checked against what arrived, counts
//! and sizes are capped before anything is allocated, and a bad input is a [`DecodeError`],
//! never a panic.

pub mod a2s;
pub mod bedrock;
mod error;
pub mod minecraft;
pub mod mumble;
mod reader;
pub mod samp;

pub use error::DecodeError;
pub use reader::Reader;

use serde::{Deserialize, Serialize};

/// The query protocols, by the ids used in the config and on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Protocol {
    /// Valve A2S (Source and GoldSrc), UDP.
    #[serde(rename = "a2s")]
    A2s,
    /// Minecraft Java server list ping (1.7+ with legacy fallbacks), TCP.
    #[serde(rename = "minecraft")]
    Minecraft,
    /// Minecraft Query (GameSpy4), UDP.
    #[serde(rename = "minecraft-query")]
    MinecraftQuery,
    /// SA:MP and open.mp query, UDP.
    #[serde(rename = "samp")]
    Samp,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::A2s,
        Protocol::Minecraft,
        Protocol::MinecraftQuery,
        Protocol::Samp,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::A2s => "a2s",
            Protocol::Minecraft => "minecraft",
            Protocol::MinecraftQuery => "minecraft-query",
            Protocol::Samp => "samp",
        }
    }

    /// The port used when an address names none (Minecraft tries SRV first).
    pub fn default_port(self) -> u16 {
        match self {
            Protocol::A2s => 27015,
            Protocol::Minecraft | Protocol::MinecraftQuery => 25565,
            Protocol::Samp => 7777,
        }
    }

    pub fn from_name(name: &str) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
