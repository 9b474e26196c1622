/// Why bytes did not decode. One type for every codec: the variants are structural (what was
/// wrong, where). Which failure reason each becomes is decided once, in `query::Error::reason`;
/// this module knows nothing of labels.
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
    /// A count, length or size is above a cap we set (split packets, reply bytes, frame size).
    #[error("{what} is {value}, more than the limit of {limit}")]
    TooLarge {
        what: &'static str,
        value: u64,
        limit: u64,
    },
    /// A length or count field points past the data that arrived: the reply is broken, not
    /// too large (no cap of ours was hit).
    #[error("{what} is {value}, but the rest of the input holds at most {fits}")]
    Overrun {
        what: &'static str,
        value: u64,
        fits: u64,
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
    /// The byte offset where the input went wrong, for the variants that know it: shown in
    /// `/probe?debug=true` transcripts next to the bytes.
    pub fn offset(&self) -> Option<usize> {
        match self {
            DecodeError::Truncated { offset, .. } | DecodeError::Unterminated { offset } => {
                Some(*offset)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Truncation and unterminated strings name their offset; the rest have none.
    #[test]
    fn offsets() {
        let t = DecodeError::Truncated {
            offset: 7,
            needed: 2,
            available: 1,
        };
        assert_eq!(t.offset(), Some(7));
        assert_eq!(DecodeError::Unterminated { offset: 3 }.offset(), Some(3));
        assert_eq!(DecodeError::Invalid("x").offset(), None);
    }
}
