//! A response body written by a blocking renderer while hyper sends it.
//!
//! `/metrics` at 100,000 targets is 76 MB of text (5.5 MB gzipped). Rendered whole, the page
//! (or its gzip) plus the compressor sat in memory next to the daemon for every scrape; here
//! the renderer runs on a blocking thread and hands over [`CHUNK`]-sized pieces through a
//! queue [`QUEUE`] deep, so a scrape holds a few hundred kilobytes whatever the page's size,
//! and a slow client slows the renderer instead of piling up memory.
//!
//! A page that fits in its first chunk is answered whole, with a `Content-Length`, as before.
//!
//! A client that reads nothing for [`STALL`] loses the page: the renderer gives up and the
//! connection is closed without the body's end, so the client sees a truncated answer rather
//! than a short page that parses. The same happens if the renderer fails.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::mpsc as spare;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Bytes, Frame, SizeHint};
use tokio::runtime::Handle;
use tokio::sync::mpsc;

/// Bytes per piece handed to hyper.
pub const CHUNK: usize = 64 * 1024;
/// Pieces rendered ahead of what hyper has taken.
pub const QUEUE: usize = 2;
/// How long the renderer waits for the client to take a piece.
pub const STALL: Duration = Duration::from_secs(30);

/// What the renderer hands over.
enum Piece {
    More(Bytes),
    /// The page's last bytes: only after this does the body end cleanly.
    Last(Bytes),
}

/// How a rendered answer starts.
pub enum Answer {
    /// The page fitted in one chunk.
    Whole(Bytes),
    /// The page is still being rendered.
    Streamed(Streamed),
}

/// Runs `render` on a blocking thread, writing into a sink whose pieces become the body.
/// Resolves as soon as the first piece (or the whole page) is there; `Err` if the renderer
/// failed before that.
pub async fn render<F>(render: F) -> io::Result<Answer>
where
    F: FnOnce(&mut dyn Write) -> io::Result<()> + Send + 'static,
{
    let (tx, mut rx) = mpsc::channel(QUEUE);
    let handle = Handle::current();
    tokio::task::spawn_blocking(move || {
        let (back, spares) = spare::channel();
        let mut sink = Sink {
            buf: Vec::with_capacity(CHUNK),
            tx,
            handle,
            back,
            spares,
        };
        match render(&mut sink) {
            Ok(()) => {
                let last = Piece::Last(Bytes::from(std::mem::take(&mut sink.buf)));
                if let Err(e) = sink.send(last) {
                    tracing::debug!(error = %e, "page not delivered");
                }
            }
            // Dropping the sender without the last piece ends the body with an error.
            Err(e) => tracing::debug!(error = %e, "page rendering stopped"),
        }
    });
    match rx.recv().await {
        Some(Piece::Last(whole)) => Ok(Answer::Whole(whole)),
        Some(Piece::More(first)) => Ok(Answer::Streamed(Streamed {
            first: Some(first),
            rx,
            done: false,
        })),
        None => Err(io::Error::other("page rendering failed")),
    }
}

/// The renderer's side: collects writes into [`CHUNK`]s and queues them.
struct Sink {
    buf: Vec<u8>,
    tx: mpsc::Sender<Piece>,
    handle: Handle,
    /// Where a chunk's buffer comes back once hyper has written and dropped it, and where the
    /// next chunk takes its buffer from: a 76 MB page is then a handful of buffers reused
    /// instead of ~1,400 allocated on this thread and freed on a runtime worker.
    back: spare::Sender<Vec<u8>>,
    spares: spare::Receiver<Vec<u8>>,
}

/// A full chunk on its way to hyper: its buffer goes back to the renderer when dropped.
struct Recycled {
    buf: Vec<u8>,
    back: spare::Sender<Vec<u8>>,
}

impl AsRef<[u8]> for Recycled {
    fn as_ref(&self) -> &[u8] {
        &self.buf
    }
}

impl Drop for Recycled {
    fn drop(&mut self) {
        let mut buf = std::mem::take(&mut self.buf);
        buf.clear();
        // The renderer gone (the page done) just frees it.
        let _ = self.back.send(buf);
    }
}

impl Sink {
    /// Queues `piece`, waiting at most [`STALL`] for room.
    fn send(&self, piece: Piece) -> io::Result<()> {
        // A blocking-pool thread may wait on the runtime this way (it is not one of the
        // runtime's workers).
        let sent = self
            .handle
            .block_on(tokio::time::timeout(STALL, self.tx.send(piece)));
        match sent {
            Ok(Ok(())) => Ok(()),
            Ok(Err(_)) => Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the client went away",
            )),
            Err(_) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client took nothing for too long",
            )),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = CHUNK - self.buf.len();
        let n = data.len().min(room);
        self.buf.extend_from_slice(&data[..n]);
        if self.buf.len() == CHUNK {
            let next = self
                .spares
                .try_recv()
                .unwrap_or_else(|_| Vec::with_capacity(CHUNK));
            let full = Recycled {
                buf: std::mem::replace(&mut self.buf, next),
                back: self.back.clone(),
            };
            self.send(Piece::More(Bytes::from_owner(full)))?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The body of a page still being rendered.
pub struct Streamed {
    first: Option<Bytes>,
    rx: mpsc::Receiver<Piece>,
    done: bool,
}

impl Body for Streamed {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(Ok(Frame::data(first))));
        }
        if self.done {
            return Poll::Ready(None);
        }
        let piece = match self.rx.poll_recv(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(p) => p,
        };
        Poll::Ready(match piece {
            Some(Piece::More(b)) => Some(Ok(Frame::data(b))),
            Some(Piece::Last(b)) => {
                self.done = true;
                (!b.is_empty()).then(|| Ok(Frame::data(b)))
            }
            None => {
                self.done = true;
                Some(Err(io::Error::other("the page ended before its end")))
            }
        })
    }

    fn is_end_stream(&self) -> bool {
        self.done && self.first.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn page(lines: usize) -> Vec<u8> {
        (0..lines)
            .flat_map(|i| format!("gameserver_up{{target=\"t{i}\"}} 1\n").into_bytes())
            .collect()
    }

    /// A page written in odd-sized pieces arrives byte for byte: whole when it fits in one
    /// chunk, streamed in chunks otherwise.
    #[tokio::test]
    async fn same_bytes() {
        for lines in [0, 10, 2_000, 20_000] {
            let want = page(lines);
            let src = want.clone();
            let answer = render(move |sink| {
                for piece in src.chunks(777) {
                    sink.write_all(piece)?;
                }
                Ok(())
            })
            .await
            .unwrap();
            let got = match answer {
                Answer::Whole(b) => {
                    assert!(want.len() <= CHUNK, "{lines} lines came whole");
                    b.to_vec()
                }
                Answer::Streamed(s) => {
                    assert!(want.len() > CHUNK, "{lines} lines streamed");
                    s.collect().await.unwrap().to_bytes().to_vec()
                }
            };
            assert!(got == want, "{lines} lines differ");
        }
    }

    /// A renderer failing after its first chunk makes the body end in an error, not in a
    /// short page; failing before any chunk is an error at once.
    #[tokio::test]
    async fn failure_is_not_an_end() {
        let answer = render(|sink| {
            sink.write_all(&page(20_000))?;
            Err(io::Error::other("boom"))
        })
        .await
        .unwrap();
        let Answer::Streamed(s) = answer else {
            panic!("a page of several chunks streams")
        };
        assert!(s.collect().await.is_err());
        let early = render(|_| Err(io::Error::other("boom"))).await;
        assert!(early.is_err());
    }

    /// A client that takes nothing holds at most the queue and the chunk being filled: the
    /// renderer is blocked, not rendering ahead, and stops when the body is dropped.
    #[tokio::test]
    async fn backpressure() {
        let (written_tx, mut written_rx) = mpsc::unbounded_channel();
        let answer = render(move |sink| {
            let line = [b'x'; 1024];
            let mut total = 0usize;
            loop {
                sink.write_all(&line)?;
                total += line.len();
                let _ = written_tx.send(total);
            }
        })
        .await
        .unwrap();
        let Answer::Streamed(body) = answer else {
            panic!("an endless page streams")
        };
        // The first chunk went out, QUEUE more wait, and one is being filled: then the
        // renderer blocks.
        let mut most = 0;
        while most < (QUEUE + 1) * CHUNK {
            let next = tokio::time::timeout(Duration::from_secs(5), written_rx.recv()).await;
            most = next.ok().flatten().expect("the renderer fills the queue");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        while let Ok(n) = written_rx.try_recv() {
            most = n;
        }
        assert!(most <= (QUEUE + 2) * CHUNK, "{most} bytes rendered ahead");
        drop(body);
        // The renderer notices the dropped body at its next send and stops writing.
        let stopped = tokio::time::timeout(Duration::from_secs(5), async {
            while written_rx.recv().await.is_some() {}
        })
        .await;
        assert!(stopped.is_ok(), "the renderer kept writing");
    }

    /// A chunk's buffer comes back to the renderer, emptied and with its capacity, once the
    /// bytes made of it are dropped (clones included), and not before.
    #[test]
    fn chunk_buffer_comes_back() {
        let (back, spares) = spare::channel();
        let mut buf = Vec::with_capacity(CHUNK);
        buf.extend_from_slice(b"gameserver_up 1\n");
        let bytes = Bytes::from_owner(Recycled { buf, back });
        let copy = bytes.slice(0..4);
        assert_eq!(&bytes[..], b"gameserver_up 1\n");
        drop(bytes);
        assert!(spares.try_recv().is_err(), "still referenced by a slice");
        assert_eq!(&copy[..], b"game");
        drop(copy);
        let again = spares.try_recv().unwrap();
        assert!(again.is_empty());
        assert_eq!(again.capacity(), CHUNK);
    }
}
