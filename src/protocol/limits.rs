//! What one poll may read and how legacy text decodes unless a target says otherwise: the
//! caps every exchange obeys. Part of the target vocabulary (`target` re-exports them), kept
//! here so that the codecs, below `target`, can read them.

/// Caps on what one poll may read from a server. Defaults suit every real server seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes a whole reply may take: a TCP stream, a reassembled or decompressed split reply.
    /// (`u32`: the config caps it well below `u32::MAX` (`config::validate`'s
    /// `MAX_REPLY_BYTES_CAP`, asserted there at compile time), and the field's 8 bytes less
    /// keep `Arc<Target>` in a smaller allocation; read it as a size with [`Limits::reply_cap`].)
    pub max_reply_bytes: u32,
    /// Fragments a split UDP reply may announce.
    pub max_split_packets: u8,
    /// Challenges an A2S server may issue in a row before the poll fails with `challenge`.
    pub max_challenges: u8,
}

impl Limits {
    /// [`Limits::max_reply_bytes`] as a size.
    pub fn reply_cap(&self) -> usize {
        self.max_reply_bytes as usize
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_reply_bytes: 1024 * 1024,
            max_split_packets: 32,
            max_challenges: 3,
        }
    }
}

/// Code page for protocols that send legacy text (SA:MP) unless a target names another:
/// what Western servers use, and a superset of Latin-1, so nothing fails to decode.
pub const DEFAULT_ENCODING: &encoding_rs::Encoding = encoding_rs::WINDOWS_1252;
