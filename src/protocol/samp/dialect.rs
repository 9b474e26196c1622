//! What differs between SA:MP's query and the servers that copied it: the header's magic
//! words, a version string in front of `i`, which opcodes exist, and the `c` entries' shape.
//! SA:MP and open.mp are [`Dialect::SAMP`]; another game's protocol folder (VC:MP) defines
//! its own and drives this module's codec and exchange with it.

/// One dialect of the SA:MP query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dialect {
    /// The first four bytes of every request.
    pub request_magic: [u8; 4],
    /// The first four bytes of every reply (SA:MP echoes the request's).
    pub reply_magic: [u8; 4],
    /// Bytes of a NUL-padded version string between `i`'s header and its password flag (0:
    /// none).
    pub info_version: usize,
    /// `i`'s third string is the map (otherwise: the language).
    pub third_is_map: bool,
    /// `c` entries carry a score (i32) after the name.
    pub client_scores: bool,
    /// The server has `o`, `r`, `d` and `p` besides `i` and `c`.
    pub extended: bool,
    /// The transcript's name of each request, in [`super::Opcode::ALL`]'s order.
    pub labels: [&'static str; 6],
}

impl Dialect {
    /// SA:MP 0.3.x and open.mp.
    pub const SAMP: Dialect = Dialect {
        request_magic: *b"SAMP",
        reply_magic: *b"SAMP",
        info_version: 0,
        third_is_map: false,
        client_scores: true,
        extended: true,
        labels: [
            "SA:MP i", "SA:MP r", "SA:MP c", "SA:MP d", "SA:MP p", "SA:MP o",
        ],
    };

    /// The label of a request for `opcode`.
    pub fn label(&self, opcode: super::Opcode) -> &'static str {
        let i = super::Opcode::ALL
            .iter()
            .position(|o| *o == opcode)
            .unwrap_or(0);
        self.labels[i]
    }
}

impl Default for Dialect {
    fn default() -> Self {
        Dialect::SAMP
    }
}
