use std::io;
use std::sync::Arc;

use crate::status::Reason;

/// A network-level failure. `Clone` (the io error is shared) so results can be cached.
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
    #[error("reply exceeds {limit} bytes")]
    TooLarge { limit: usize },
    #[error("{0}")]
    Io(Arc<io::Error>),
}

impl NetError {
    pub fn reason(&self) -> Reason {
        match self {
            NetError::Timeout => Reason::Timeout,
            NetError::Refused => Reason::Refused,
            NetError::Dns { .. } => Reason::Dns,
            NetError::Closed { .. } => Reason::Incomplete,
            NetError::TooLarge { .. } => Reason::TooLarge,
            NetError::Io(_) => Reason::Network,
        }
    }
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
