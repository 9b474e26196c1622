//! The thin async layer between the pure codecs and the operating system: UDP channels
//! (connected sockets, or the daemon's shared socket multiplexer), framed TCP reads with byte
//! caps, and name/SRV resolution. Every wait here takes a deadline; nothing waits forever.

pub mod buffer;
mod error;
pub mod resolve;
pub mod srv;
pub mod tcp;
pub mod udp;

pub use error::NetError;

// Old paths of target vocabulary, kept while udp.rs, tcp.rs and query/ (being rewritten on
// another branch) still name them here.
pub use crate::target::{Address, MAX_DATAGRAM};
