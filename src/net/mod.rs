//! The thin async layer between the pure codecs and the operating system: UDP channels
//! (connected sockets, or the daemon's shared socket multiplexer), framed TCP reads with byte
//! caps, and name/SRV resolution. Every wait here takes a deadline; nothing waits forever.

mod address;
pub mod buffer;
mod error;
pub mod resolve;
pub mod srv;
pub mod tcp;
pub mod udp;

pub use address::{Address, AddressError};
pub use error::NetError;

/// The largest UDP payload: unsplit replies can be far larger than 1400 bytes (Rust sends up
/// to 64 KiB), so every receive buffer is this big.
pub const MAX_DATAGRAM: usize = 65_536;
