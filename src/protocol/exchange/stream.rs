//! The bytes of a stream reply gathered so far, under a cap, and the framing loop every TCP
//! dialogue shares: decode what is buffered; if a frame is complete, take it; if not and the
//! cap is reached, the reply is too large; else wait for more.

use super::error::LinkError;
use crate::protocol::DecodeError;

#[derive(Debug, Default)]
pub struct StreamBuf {
    buf: Vec<u8>,
    cap: usize,
}

impl StreamBuf {
    pub fn new(cap: usize) -> StreamBuf {
        StreamBuf {
            buf: Vec::new(),
            cap,
        }
    }

    /// A new cap for the next frame; what is buffered stays.
    pub fn set_cap(&mut self, cap: usize) {
        self.cap = cap;
    }

    /// Forgets everything (a new connection).
    pub fn clear(&mut self) {
        self.buf.clear();
    }

    pub fn len(&self) -> usize {
        self.buf.len()
    }

    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Appends a chunk; bytes past the cap are dropped (the next [`StreamBuf::frame`] then
    /// reports the reply as too large, unless a frame completes within the cap).
    pub fn push(&mut self, chunk: &[u8]) {
        let room = self.cap.saturating_sub(self.buf.len());
        self.buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
    }

    /// The next complete frame, removed from the buffer (what follows it stays); `None` while
    /// more bytes are needed.
    ///
    /// `decode` sees everything buffered and returns `Ok(Some((value, consumed)))` for a
    /// complete frame, `Ok(None)` when it needs more, or an error.
    pub fn frame<T>(
        &mut self,
        decode: impl FnOnce(&[u8]) -> Result<Option<(T, usize)>, DecodeError>,
    ) -> Result<Option<T>, LinkError> {
        if let Some((value, used)) = decode(&self.buf)? {
            self.buf.drain(..used.min(self.buf.len()));
            return Ok(Some(value));
        }
        if self.buf.len() >= self.cap {
            return Err(LinkError::TooLarge { limit: self.cap });
        }
        Ok(None)
    }

    /// Why the stream ended early: it closed after this many bytes.
    pub fn closed(&self) -> LinkError {
        LinkError::Closed {
            received: self.buf.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_byte_frames(b: &[u8]) -> Result<Option<(Vec<u8>, usize)>, DecodeError> {
        Ok((b.len() >= 2).then(|| (b[..2].to_vec(), 2)))
    }

    /// Frames come out as they complete, leftovers stay, and the cap makes an unfinished
    /// frame too large instead of growing the buffer.
    #[test]
    fn frames_and_cap() {
        let mut s = StreamBuf::new(3);
        s.push(b"a");
        assert_eq!(s.frame(two_byte_frames).unwrap(), None);
        s.push(b"bcdef");
        assert_eq!(s.len(), 3);
        assert_eq!(s.frame(two_byte_frames).unwrap(), Some(b"ab".to_vec()));
        assert_eq!(s.len(), 1);
        let mut s = StreamBuf::new(1);
        s.push(b"xyz");
        assert!(matches!(
            s.frame(two_byte_frames),
            Err(LinkError::TooLarge { limit: 1 })
        ));
    }
}
