//! The thin async layer between the pure codecs and the operating system: UDP channels
//! (connected sockets, or the daemon's shared socket multiplexer), TCP connect/write/read,
//! the HTTP(S) client link (hyper over TCP or rustls), and name/SRV resolution. Every wait here takes a deadline; nothing waits forever.
//! Failures are [`NetError`] values (a reply that did not decode is wrapped in it); which
//! failure reason they become is decided above, in `query`.

mod addr_hash;
pub mod buffer;
mod error;
pub mod http;
mod outbox;
pub mod resolve;
pub mod srv;
pub mod tcp;
pub mod tls;
pub mod udp;

pub use error::NetError;
