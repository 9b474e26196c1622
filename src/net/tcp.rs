//! TCP with deadlines and byte caps: connect, write, read what has arrived, read to the close.

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::buffer::RecvBuf;
use super::NetError;

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

/// Writes all of `bytes` by `deadline`.
///
/// A request is small and the socket's buffer empty, so the first write nearly always takes
/// it whole: that write is tried before any timer is made (a `timeout_at` costs a timer
/// entry, a runtime handle and its drop, on every request of every TCP poll); only what is
/// left waits, with the deadline.
pub async fn write_all(
    stream: &mut TcpStream,
    bytes: &[u8],
    deadline: Instant,
) -> Result<(), NetError> {
    let bytes = match stream.try_write(bytes) {
        Ok(n) if n >= bytes.len() => return Ok(()),
        Ok(n) => &bytes[n..],
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => bytes,
        Err(e) => return Err(e.into()),
    };
    match tokio::time::timeout_at(deadline, stream.write_all(bytes)).await {
        Ok(r) => r.map_err(NetError::from),
        Err(_) => Err(NetError::Timeout),
    }
}

/// Reads what has arrived, waiting until `deadline` for something; an empty chunk means the
/// peer closed. Framing is the caller's: the dialogue buffers and decodes (see
/// `query::stream`).
///
/// Like a UDP receive, a wait holds no buffer: a pooled one is taken once the stream is
/// readable, for the read alone, and the chunk is copied out at its size. One read takes up
/// to a receive buffer's [`crate::target::MAX_DATAGRAM`] bytes, so even a large status (a
/// Minecraft favicon) comes in a read or two.
pub async fn read_chunk(stream: &mut TcpStream, deadline: Instant) -> Result<Vec<u8>, NetError> {
    let read = async {
        loop {
            stream.readable().await?;
            let mut buf = RecvBuf::take();
            match stream.try_read(&mut buf) {
                Ok(n) => return Ok(buf[..n.min(buf.len())].to_vec()),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) => return Err(e),
            }
        }
    };
    match tokio::time::timeout_at(deadline, read).await {
        Ok(Ok(chunk)) => Ok(chunk),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(NetError::Timeout),
    }
}

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
