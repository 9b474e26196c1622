//! Sans-IO codecs for every supported query protocol.
//!
//! This module contains no networking code, reads no clock and never imports tokio: every
//! function maps bytes to values (`decode_*`) or values to bytes (`encode_*`), and multi-step
//! exchanges are small state machines that the caller feeds with datagrams and asks what to
//! send next. Time, sockets and retries belong to [`crate::query`] and [`crate::net`].
//!
//! Every byte handed to a decoder is hostile: lengths are checked against what arrived, counts
//! and sizes are capped before anything is allocated, and a bad input is a [`DecodeError`],
//! never a panic.

pub mod a2s;
pub mod bedrock;
mod error;
pub mod gamespy1;
pub mod gamespy2;
pub mod minecraft;
pub mod mumble;
pub mod proxy_header;
pub mod quake3;
mod reader;
pub mod samp;
pub mod teeworlds;

pub use error::DecodeError;
pub use reader::Reader;
