use std::io;
use std::sync::Arc;

use crate::protocol::DecodeError;

/// Why talking to a server failed below the dialogue: the network, or bytes that did not
/// decode (wrapped, as hickory's `NetError` wraps its proto errors). `Clone` (the io error is
/// shared) so results can be cached. Structured, never a label: `query::Error::reason` is
/// the one place that turns it into a failure reason.
#[derive(Debug, Clone, thiserror::Error)]
pub enum NetError {
    #[error("timed out")]
    Timeout,
    #[error("connection refused")]
    Refused,
    #[error("name resolution failed for {name}: {detail}")]
    Dns { name: String, detail: String },
    #[error("connection closed after {received} byte(s), before the reply was complete")]
    Closed { received: usize },
    /// More bytes than the configured cap on a reply.
    #[error("reply exceeds {limit} bytes")]
    TooLarge { limit: usize },
    #[error("{0}")]
    Io(Arc<io::Error>),
    /// The bytes arrived but did not decode.
    #[error(transparent)]
    Decode(#[from] DecodeError),
}

impl From<io::Error> for NetError {
    fn from(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::ConnectionRefused => NetError::Refused,
            io::ErrorKind::TimedOut => NetError::Timeout,
            _ => NetError::Io(Arc::new(e)),
        }
    }
}
