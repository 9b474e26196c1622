//! TCP with deadlines and byte caps: connect, write, and read until a decoder says a frame is
//! complete.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::NetError;
use crate::protocol::DecodeError;

pub async fn connect(addr: SocketAddr, deadline: Instant) -> Result<TcpStream, NetError> {
    match tokio::time::timeout_at(deadline, TcpStream::connect(addr)).await {
        Ok(Ok(s)) => {
            // Requests are tiny and sent whole; do not let Nagle hold them back.
            let _ = s.set_nodelay(true);
            Ok(s)
        }
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(NetError::Timeout),
    }
}

pub async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    deadline: Instant,
) -> Result<(), NetError> {
    match tokio::time::timeout_at(deadline, stream.write_all(bytes)).await {
        Ok(r) => r.map_err(NetError::from),
        Err(_) => Err(NetError::Timeout),
    }
}

/// Reads into `buf` until `decode` returns a complete frame, the deadline passes, the peer
/// closes, or more than `max_bytes` have been buffered.
///
/// `decode` sees everything buffered so far and returns `Ok(Some((value, consumed)))` for a
/// complete frame, `Ok(None)` when more bytes are needed, or an error. Consumed bytes are
/// removed from `buf`; what follows stays for the next call.
///
/// # Returns
/// The decoded value, or a [`NetError`]: `Timeout`, `Closed` (early), `TooLarge`, or the
/// decoder's own error as `Decode`.
/// Bytes asked of the kernel per read. Reads go straight into the caller's buffer: a stack
/// array would live inside every poll's future (the scheduler keeps one per target in flight),
/// and copying out of it costs a pass over the bytes.
const READ_CHUNK: usize = 8 * 1024;

/// Reads at most `room` more bytes onto the end of `buf`. The buffer never keeps the zeroed
/// room, whatever the outcome, even when the deadline cancels the read.
async fn read_more(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    room: usize,
    deadline: Instant,
) -> Result<usize, NetError> {
    let old = buf.len();
    buf.resize(old + room.min(READ_CHUNK), 0);
    let read = tokio::time::timeout_at(deadline, stream.read(&mut buf[old..])).await;
    let n = match &read {
        Ok(Ok(n)) => *n,
        _ => 0,
    };
    buf.truncate(old + n);
    match read {
        Ok(Ok(n)) => Ok(n),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(NetError::Timeout),
    }
}

pub async fn read_frame<T>(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    deadline: Instant,
    max_bytes: usize,
    mut decode: impl FnMut(&[u8]) -> Result<Option<(T, usize)>, DecodeError>,
) -> Result<T, NetError> {
    loop {
        if let Some((value, used)) = decode(buf)? {
            buf.drain(..used.min(buf.len()));
            return Ok(value);
        }
        if buf.len() >= max_bytes {
            return Err(NetError::TooLarge { limit: max_bytes });
        }
        let n = read_more(stream, buf, max_bytes - buf.len(), deadline).await?;
        if n == 0 {
            return Err(NetError::Closed {
                received: buf.len(),
            });
        }
    }
}

/// Reads until the peer closes (legacy Minecraft replies are delimited by the close), up to
/// `max_bytes`. Returns what arrived.
pub async fn read_to_close(
    stream: &mut TcpStream,
    deadline: Instant,
    max_bytes: usize,
) -> Result<Vec<u8>, NetError> {
    let mut out = Vec::new();
    loop {
        // One byte past the cap tells a reply that is too large from one that just fits.
        let room = (max_bytes + 1).saturating_sub(out.len());
        let n = match read_more(stream, &mut out, room, deadline).await {
            Ok(n) => n,
            // A reset after the reply was sent is how some servers close.
            Err(NetError::Io(e))
                if !out.is_empty() && e.kind() == std::io::ErrorKind::ConnectionReset =>
            {
                return Ok(out)
            }
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(out);
        }
        if out.len() > max_bytes {
            return Err(NetError::TooLarge { limit: max_bytes });
        }
    }
}
