use crate::status::Reason;

/// Why bytes did not decode. One type for every codec: the variants are structural (what was
/// wrong, where), and [`DecodeError::reason`] maps each onto the closed failure set.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ended before a field did.
    #[error("truncated: {needed} byte(s) needed at offset {offset}, {available} available")]
    Truncated {
        offset: usize,
        needed: usize,
        available: usize,
    },
    /// A NUL-terminated string ran to the end of the input.
    #[error("unterminated string at offset {offset}")]
    Unterminated { offset: usize },
    /// The packet type or magic was not the one this decoder reads.
    #[error("unexpected {what}: {found:#04x}")]
    UnexpectedType { what: &'static str, found: u32 },
    /// A count, length or size is above what we accept (or above what arrived).
    #[error("{what} is {value}, more than the limit of {limit}")]
    TooLarge {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    /// A field has a value the protocol does not allow.
    #[error("invalid {0}")]
    Invalid(&'static str),
    /// The reply does not echo the request (session id, header, ping payload).
    #[error("reply does not match the request: {0}")]
    Mismatch(&'static str),
    /// Decompressed data failed its checksum.
    #[error("checksum mismatch: expected {expected:#010x}, got {actual:#010x}")]
    Checksum { expected: u32, actual: u32 },
}

impl DecodeError {
    pub fn reason(&self) -> Reason {
        match self {
            DecodeError::TooLarge { .. } => Reason::TooLarge,
            DecodeError::Mismatch(_) => Reason::Mismatch,
            _ => Reason::Malformed,
        }
    }
}
