//! Nadeo's dedicated servers (Trackmania Forever, Trackmania 2 / ManiaPlanet, Shootmania):
//! their XML-RPC remote control, "GBXRemote 2", over TCP (port 5000 by default, the
//! `<xmlrpc_port>` of the server's dedicated config).
//!
//! # Framing
//! ```text
//! server, once:  u32 LE length, then that many bytes: "GBXRemote 2"
//! each call:     u32 LE length of the XML, u32 LE handle (bit 31 set), <methodCall> XML
//! each reply:    the same, with the call's handle, <methodResponse> XML
//! callbacks:     the same, with a handle below 2^31 (only after EnableCallbacks: skipped)
//! ```
//! Codec only: the framing here, XML-RPC values in [`xmlrpc`], the dialogue in [`exchange`];
//! what real servers do beyond the layout is in docs/protocols/nadeo.md.

pub mod exchange;
pub mod spec;
pub mod xmlrpc;

#[cfg(test)]
mod tests;

use crate::protocol::DecodeError;

/// The only handshake this client speaks; "GBXRemote 1" (TrackMania Original and Sunrise) has
/// no handles.
pub const HANDSHAKE: &str = "GBXRemote 2";
/// A handshake announcing more than this is not GBXRemote.
pub const MAX_HANDSHAKE: usize = 64;
/// Bit 31 of a handle: a reply to a call of ours (a callback's handle lacks it).
pub const CALL_BIT: u32 = 0x8000_0000;
/// Length and handle.
pub const HEADER: usize = 8;
/// The largest reply a server sends: ManiaPlanet caps a response at 4 MiB (and a call at
/// 1 MiB). The target's `max_reply_bytes` caps it further.
pub const MAX_FRAME: usize = 4 * 1024 * 1024;

/// One frame: its handle and its XML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub handle: u32,
    pub xml: Vec<u8>,
}

impl Frame {
    /// A reply to a call (bit 31 set), not a callback.
    pub fn is_reply(&self) -> bool {
        self.handle & CALL_BIT != 0
    }
}

fn u32_at(buf: &[u8], offset: usize) -> Option<u32> {
    let b = buf.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Writes the handshake a server sends (the simulator's side).
pub fn encode_handshake(text: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// The handshake at the stream's start: `Ok(None)` until it has all come, then its text and
/// the bytes it took. A length above [`MAX_HANDSHAKE`] is `TooLarge`; a text other than
/// [`HANDSHAKE`] is `Invalid` (GBXRemote 1, or not a Nadeo server at all).
pub fn decode_handshake(buf: &[u8]) -> Result<Option<((), usize)>, DecodeError> {
    let Some(len) = u32_at(buf, 0) else {
        return Ok(None);
    };
    let len = len as usize;
    if len > MAX_HANDSHAKE {
        return Err(DecodeError::TooLarge {
            what: "GBXRemote handshake length",
            value: len as u64,
            limit: MAX_HANDSHAKE as u64,
        });
    }
    let Some(text) = buf.get(4..4 + len) else {
        return Ok(None);
    };
    if text != HANDSHAKE.as_bytes() {
        return Err(DecodeError::Invalid(
            "GBXRemote handshake (not \"GBXRemote 2\")",
        ));
    }
    Ok(Some(((), 4 + len)))
}

/// Writes one frame: length, handle, XML.
pub fn encode_frame(handle: u32, xml: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(xml.len() as u32).to_le_bytes());
    out.extend_from_slice(&handle.to_le_bytes());
    out.extend_from_slice(xml);
}

/// The first frame of `buf`: `Ok(None)` while it has not all come, then the frame and the
/// bytes it took. A length above `cap` (and [`MAX_FRAME`]) is `TooLarge` as soon as the
/// header shows it, before anything is buffered for it; an empty frame is `Invalid`.
pub fn decode_frame(buf: &[u8], cap: usize) -> Result<Option<(Frame, usize)>, DecodeError> {
    let (Some(len), Some(handle)) = (u32_at(buf, 0), u32_at(buf, 4)) else {
        return Ok(None);
    };
    let len = len as usize;
    let limit = cap.min(MAX_FRAME).saturating_sub(HEADER);
    if len > limit {
        return Err(DecodeError::TooLarge {
            what: "GBXRemote frame length",
            value: len as u64,
            limit: limit as u64,
        });
    }
    if len == 0 {
        return Err(DecodeError::Invalid("GBXRemote frame without XML"));
    }
    let Some(xml) = buf.get(HEADER..HEADER + len) else {
        return Ok(None);
    };
    let frame = Frame {
        handle,
        xml: xml.to_vec(),
    };
    Ok(Some((frame, HEADER + len)))
}
