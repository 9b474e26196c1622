//! Exchanges: each protocol's dialogue as a runtime-free state machine, and the parts they
//! share. An exchange is told `now` (a plain [`std::time::Instant`] that the daemon's driver
//! reads from its own clock), fed what the link saw, and answers what to do next; it never
//! touches a socket, never reads a clock and reports its own [`Error`]. So it builds without
//! the `daemon` feature, and the fuzz targets drive it through arbitrary input sequences.
//!
//! - [`step`]: the [`Exchange`] trait, what it answers ([`Step`]) and is fed ([`Input`]), and
//!   the [`Params`] of one poll.
//! - [`error`]: [`Error`] (why a poll failed; [`Error::reason`] is the one mapping onto the
//!   published reasons) and [`LinkError`] (what the link did).
//! - [`ask`]: one request and the wait for its reply, the step every UDP dialogue is made of.
//! - [`oneshot`]: the whole exchange of a one-request/one-reply protocol.
//! - [`stream`]: a capped stream buffer and its framing loop.
//! - [`stream_once`]: the whole exchange of a TCP protocol that asks once and reads framed
//!   replies.
//! - [`tools`]: time shares, best-effort notes, challenge bounds, match keys.
//! - [`replay`]: drives an exchange through a scripted input sequence on a virtual clock
//!   (the fuzz targets' driver).
//!
//! Each protocol's own exchange lives in its folder (`protocol/<p>/exchange.rs`).

/// A debug log line in the daemon build; nothing without it (the fuzz build has no logger).
macro_rules! debug {
    ($($t:tt)*) => {
        #[cfg(feature = "daemon")]
        tracing::debug!($($t)*);
    };
}
pub(crate) use debug;

pub mod ask;
#[cfg(test)]
pub mod dialogue;
pub mod error;
pub mod oneshot;
pub mod replay;
pub mod step;
pub mod stream;
pub mod stream_once;
pub mod tools;

pub use error::{Error, LinkError};
pub use step::{Exchange, Input, Params, Step};
