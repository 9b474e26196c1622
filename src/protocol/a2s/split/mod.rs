//! Split replies: reassembly of `-2` fragments into one message, as a sans-IO state machine.
//!
//! # Format
//! ```text
//! GoldSrc         FE FF FF FF  id i32  (number << 4 | total) u8       payload
//! Source          FE FF FF FF  id i32  total u8  number u8  size u16  payload
//! Source (~2006)  FE FF FF FF  id i32  total u8  number u8            payload
//! compressed (Source, id high bit set): packet 0's payload starts with
//!                 decompressed size u32, CRC32 u32, then the bzip2 stream
//! ```
//! The concatenated payloads (decompressed, if so) form one message starting `FF FF FF FF`.
//!
//! Nothing in a fragment says which of the three layouts it uses, but packet 0 does: its
//! payload starts `FF FF FF FF` (or `BZh` when compressed) at an offset that only one layout
//! explains. Fragments that arrive before any packet 0 are kept raw (bounded) until it comes;
//! from then on the layout is fixed for this reassembler, i.e. for one server.
//!
//! # Driving it
//! Feed every datagram to [`Reassembler::handle_datagram`]. `Ok(Some(msg))` is a complete
//! message (an unsplit datagram is one at once); `Ok(None)` means keep waiting; an error is
//! about this datagram only (the caller decides whether to keep waiting), except that a
//! [`DecodeError::TooLarge`] means the reply broke a cap. [`Reassembler::is_pending`] tells a
//! caller whose deadline passed whether a split reply was under way (`incomplete`) or nothing
//! came (`timeout`).
//!
//! # Files
//! `fragment` holds the layouts and reads one fragment, `reassemble` the client's state
//! machine and its caps, `encode` the server side (simulator, tests, seed corpus).

mod encode;
mod fragment;
mod reassemble;

pub use encode::{compress, encode_fragment, encode_split, SplitOptions};
pub use fragment::{Format, COMPRESSED_BIT};
pub use reassemble::{Limits, Reassembler, MAX_IN_FLIGHT};
