//! Reusable receive buffers for one receive at a time.
//!
//! A receive buffer must hold the largest datagram ([`MAX_DATAGRAM`] bytes) or the kernel
//! cuts the reply, yet a status reply is a few hundred bytes. Allocating and zeroing that
//! much per receive cost more CPU than the round trip itself, so buffers come from a small
//! process-wide free list. A buffer is taken only once a socket is readable and given back
//! as soon as the bytes are copied out at their size (`net::udp`, `net::tcp`): no poll holds
//! one while it waits, so however many polls are in flight, only the receives running at
//! that instant (one per thread) hold a buffer. Only bytes a receive just wrote are ever
//! read, so what a previous receive left in a buffer is never seen.

use std::ops::{Deref, DerefMut};
use std::sync::Mutex;

use crate::target::MAX_DATAGRAM;

/// Free buffers kept for reuse: more than the receives that run at one instant (one per
/// runtime thread); past this, buffers are freed, so the list holds at most this many times
/// [`MAX_DATAGRAM`] bytes.
const KEEP: usize = 8;

static FREE: Mutex<Vec<Box<[u8]>>> = Mutex::new(Vec::new());

/// A [`MAX_DATAGRAM`]-byte receive buffer, returned to the free list on drop.
pub struct RecvBuf {
    buf: Option<Box<[u8]>>,
}

impl RecvBuf {
    /// A buffer from the free list, or a new one.
    pub fn take() -> RecvBuf {
        let reused = FREE.lock().ok().and_then(|mut free| free.pop());
        let buf = reused.unwrap_or_else(|| vec![0u8; MAX_DATAGRAM].into_boxed_slice());
        RecvBuf { buf: Some(buf) }
    }
}

impl Deref for RecvBuf {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.buf.as_deref().unwrap_or(&[])
    }
}

impl DerefMut for RecvBuf {
    fn deref_mut(&mut self) -> &mut [u8] {
        self.buf.as_deref_mut().unwrap_or(&mut [])
    }
}

impl Drop for RecvBuf {
    fn drop(&mut self) {
        if let (Some(buf), Ok(mut free)) = (self.buf.take(), FREE.lock()) {
            if free.len() < KEEP {
                free.push(buf);
            }
        }
    }
}

impl std::fmt::Debug for RecvBuf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RecvBuf")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A buffer always has room for the largest datagram, and one given back is reused.
    #[test]
    fn full_size_and_reused() {
        let a = RecvBuf::take();
        assert_eq!(a.len(), MAX_DATAGRAM);
        let ptr = a.as_ptr();
        drop(a);
        // Other tests may take buffers concurrently, so look among a few.
        let held: Vec<RecvBuf> = (0..KEEP).map(|_| RecvBuf::take()).collect();
        assert!(held.iter().all(|b| b.len() == MAX_DATAGRAM));
        assert!(held.iter().any(|b| b.as_ptr() == ptr));
    }
}
