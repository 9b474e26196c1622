//! Batched sends on a shared UDP socket ([`super::udp::UdpMux`]): polls queue their datagram
//! here and one flusher task sends everything queued with `sendmmsg`, one system call per
//! batch instead of one `sendto` per poll.
//!
//! Why it batches: the poller runs on a current-thread runtime, and the metronome wakes all
//! targets of a slot together, so their sends land in the queue within one pass of the run
//! queue. The first datagram queued wakes the flusher; tokio's current-thread run queue is
//! FIFO, so the flusher runs after the targets woken before it and finds their datagrams
//! queued too.
//!
//! A sender waits until its datagram has been handed to the kernel and gets that send's
//! error, as with `send_to`, or the instant the flush ended: the driver times the round trip
//! and resends from it rather than from when the sender ran again (a slot's senders, about
//! [`crate::scheduler::BATCH`] of them, resume one after another), and a failed send fails
//! its own poll. The queue holds at most two datagrams per poll in flight (a sender waits for
//! its own; two when a request is pipelined ahead of another, `send_all`), so it is bounded
//! by twice `max_concurrent_polls`.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::IoSlice;
use std::net::SocketAddr;
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use nix::sys::socket::{sendmmsg, ControlMessage, MsgFlags, MultiHeaders, SockaddrStorage};
use tokio::io::Interest;
use tokio::net::UdpSocket;
use tokio::sync::Notify;
use tokio::time::Instant;

use crate::sync::lock;

/// Datagrams one `sendmmsg` call sends at most.
const SEND_BATCH: usize = 32;

/// Send errors kept for senders to pick up. A sender whose poll was dropped before it looked
/// never does; past this many, the oldest are forgotten.
const KEPT_ERRORS: usize = 256;

thread_local! {
    /// nix's headers hold raw pointers, so they are not `Send` and cannot live in the flusher
    /// task across an await; one set per thread, reused.
    static HEADERS: RefCell<Option<MultiHeaders<SockaddrStorage>>> = const { RefCell::new(None) };
}

/// Datagrams waiting for the flusher, and what became of those it has sent.
#[derive(Debug, Default)]
pub(super) struct Outbox {
    queue: Mutex<Queue>,
    /// Wakes the flusher: notified by the first datagram queued into an empty queue.
    wake: Notify,
    /// Wakes the senders of a batch once it has been sent.
    sent: Notify,
    /// Set when the mux is dropped and the flusher stopped: nothing will send any more.
    closed: AtomicBool,
}

#[derive(Debug, Default)]
struct Queue {
    /// The queued datagrams back to back; `items` says where each ends and where it goes.
    bytes: Vec<u8>,
    items: Vec<Item>,
    /// The ticket the next datagram queued gets (tickets count datagrams from 0).
    next_ticket: u64,
    /// Every ticket below this has been sent or has failed.
    done: u64,
    /// Tickets whose send failed, with the error, until their sender picks it up.
    failed: VecDeque<(u64, std::io::Error)>,
    /// When the latest flush ended (what its senders report as their send's instant).
    flushed_at: Option<Instant>,
}

#[derive(Debug, Clone, Copy)]
struct Item {
    end: usize,
    to: SocketAddr,
}

impl Outbox {
    /// Queues `datagram` for `to` and waits until the flusher has sent it: when that flush
    /// ended, or its error if the kernel refused it.
    pub(super) async fn send(&self, datagram: &[u8], to: SocketAddr) -> std::io::Result<Instant> {
        self.send_all(&[datagram], to).await
    }

    /// Queues `datagrams` for `to` back to back (so they leave in the same `sendmmsg`) and
    /// waits until the flusher has sent them all; when that flush ended, or the first error
    /// the kernel gave. A pipelined request and the request it goes ahead of cost one wait,
    /// not two.
    ///
    /// The instant is the flush's, not the sender's wake-up: a slot's senders are woken one
    /// after another once their batch is out, and a round trip timed from each one's own
    /// wake-up would come out short by its place in that line.
    pub(super) async fn send_all(
        &self,
        datagrams: &[&[u8]],
        to: SocketAddr,
    ) -> std::io::Result<Instant> {
        // Created before queuing: a flush finishing any time after this wakes it.
        let sent = self.sent.notified();
        tokio::pin!(sent);
        let (first, end) = {
            let mut q = lock(&self.queue);
            if self.closed.load(Ordering::Acquire) {
                return Err(closed());
            }
            let first = q.next_ticket;
            let was_empty = q.items.is_empty();
            for datagram in datagrams {
                q.next_ticket += 1;
                q.bytes.extend_from_slice(datagram);
                let end = q.bytes.len();
                q.items.push(Item { end, to });
            }
            if was_empty && !q.items.is_empty() {
                self.wake.notify_one();
            }
            (first, q.next_ticket)
        };
        loop {
            {
                let mut q = lock(&self.queue);
                if end <= q.done {
                    let mut result = Ok(q.flushed_at.unwrap_or_else(Instant::now));
                    while let Some(i) = q.failed.iter().position(|(t, _)| (first..end).contains(t))
                    {
                        let e = q
                            .failed
                            .remove(i)
                            .map_or_else(|| std::io::ErrorKind::Other.into(), |(_, e)| e);
                        if result.is_ok() {
                            result = Err(e);
                        }
                    }
                    return result;
                }
                if self.closed.load(Ordering::Acquire) {
                    return Err(closed());
                }
            }
            sent.as_mut().await;
            sent.set(self.sent.notified());
        }
    }

    /// Tells every sender still waiting, and any to come, that nothing will be sent: the
    /// flusher has been stopped (the mux was dropped). Without this they would wait forever,
    /// as sends take no deadline.
    pub(super) fn close(&self) {
        let _q = lock(&self.queue);
        self.closed.store(true, Ordering::Release);
        self.sent.notify_waiters();
    }

    /// The flusher: sends whatever is queued whenever something is, forever.
    pub(super) async fn run(&self, socket: &UdpSocket) {
        let mut bytes = Vec::new();
        let mut items: Vec<Item> = Vec::new();
        let mut failed = Vec::new();
        loop {
            self.wake.notified().await;
            let first = {
                let mut q = lock(&self.queue);
                std::mem::swap(&mut q.bytes, &mut bytes);
                std::mem::swap(&mut q.items, &mut items);
                q.done
            };
            let mut i = 0;
            while i < items.len() {
                match send_some(socket, &bytes, &items, i) {
                    Ok(n) => i += n.max(1),
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        // The socket's send buffer is full: wait for room, as send_to would.
                        if let Err(e) = socket.writable().await {
                            failed.push((first + i as u64, e));
                            i += 1;
                        }
                    }
                    // The datagram at `i` was refused; the ones after it are tried again.
                    Err(e) => {
                        failed.push((first + i as u64, e));
                        i += 1;
                    }
                }
            }
            {
                let mut q = lock(&self.queue);
                q.done = first + items.len() as u64;
                q.flushed_at = Some(Instant::now());
                q.failed.extend(failed.drain(..));
                while q.failed.len() > KEPT_ERRORS {
                    q.failed.pop_front();
                }
            }
            bytes.clear();
            items.clear();
            self.sent.notify_waiters();
        }
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::NotConnected, "udp mux stopped")
}

/// One `sendmmsg` of up to [`SEND_BATCH`] datagrams from `items[from..]`; how many the
/// kernel took (at least one), or the error of the datagram at `from`.
fn send_some(
    socket: &UdpSocket,
    bytes: &[u8],
    items: &[Item],
    from: usize,
) -> std::io::Result<usize> {
    let batch = &items[from..items.len().min(from + SEND_BATCH)];
    let mut start = from.checked_sub(1).map_or(0, |p| items[p].end);
    let mut iovs: [[IoSlice<'_>; 1]; SEND_BATCH] = std::array::from_fn(|_| [IoSlice::new(&[])]);
    let mut addrs: [Option<SockaddrStorage>; SEND_BATCH] = [None; SEND_BATCH];
    for (k, item) in batch.iter().enumerate() {
        iovs[k] = [IoSlice::new(bytes.get(start..item.end).unwrap_or_default())];
        addrs[k] = Some(SockaddrStorage::from(item.to));
        start = item.end;
    }
    socket.try_io(Interest::WRITABLE, || {
        HEADERS.with_borrow_mut(|headers| {
            let headers =
                headers.get_or_insert_with(|| MultiHeaders::preallocate(SEND_BATCH, None));
            let no_cmsgs: [ControlMessage<'_>; 0] = [];
            let sent = sendmmsg(
                socket.as_raw_fd(),
                headers,
                &iovs[..batch.len()],
                &addrs[..batch.len()],
                no_cmsgs,
                MsgFlags::empty(),
            )?;
            Ok(sent.count())
        })
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;

    async fn bound() -> (UdpSocket, SocketAddr) {
        let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let a = s.local_addr().unwrap();
        (s, a)
    }

    /// An outbox with its flusher running on `socket`.
    fn start(socket: UdpSocket) -> (Arc<(Outbox, UdpSocket)>, tokio::task::JoinHandle<()>) {
        let both = Arc::new((Outbox::default(), socket));
        let flusher = {
            let both = both.clone();
            tokio::spawn(async move { both.0.run(&both.1).await })
        };
        (both, flusher)
    }

    async fn recv(s: &UdpSocket) -> (Vec<u8>, SocketAddr) {
        let mut buf = [0u8; 256];
        let (n, from) = tokio::time::timeout(Duration::from_secs(2), s.recv_from(&mut buf))
            .await
            .expect("datagram did not arrive")
            .unwrap();
        (buf[..n].to_vec(), from)
    }

    /// A queued send reaches its peer, from the shared socket's address.
    #[tokio::test]
    async fn queued_send_reaches_peer() {
        let (shared, shared_addr) = bound().await;
        let (peer, peer_addr) = bound().await;
        let (outbox, flusher) = start(shared);
        outbox.0.send(b"hello", peer_addr).await.unwrap();
        assert_eq!(recv(&peer).await, (b"hello".to_vec(), shared_addr));
        flusher.abort();
    }

    /// Sends from many tasks in one pass of the run queue go out together, each to its own
    /// peer with its own bytes, more of them than one sendmmsg takes; every sender returns
    /// only once its datagram is out, with the instant the flush ended.
    #[tokio::test]
    async fn batch_reaches_every_peer() {
        const N: usize = SEND_BATCH * 2 + 3;
        let (shared, _) = bound().await;
        let (outbox, flusher) = start(shared);
        let mut peers = Vec::new();
        for _ in 0..N {
            peers.push(bound().await);
        }
        let senders: Vec<_> = peers
            .iter()
            .enumerate()
            .map(|(i, (_, addr))| {
                let (outbox, addr) = (outbox.clone(), *addr);
                tokio::spawn(async move { outbox.0.send(&[i as u8; 3], addr).await })
            })
            .collect();
        let mut flushed = Vec::new();
        for s in senders {
            flushed.push(s.await.unwrap().unwrap());
        }
        // One flush, so one instant for every sender: the flush's, not each one's own clock
        // read when it ran again (what a round trip would otherwise count from).
        assert!(flushed.windows(2).all(|w| w[0] == w[1]), "{flushed:?}");
        assert!(flushed[0] <= Instant::now());
        for (i, (peer, _)) in peers.iter().enumerate() {
            assert_eq!(recv(peer).await.0, vec![i as u8; 3], "peer {i}");
        }
        let q = lock(&outbox.0.queue);
        assert_eq!((q.done, q.next_ticket), (N as u64, N as u64));
        assert!(q.items.is_empty() && q.failed.is_empty());
        drop(q);
        flusher.abort();
    }

    /// Datagrams queued together leave in order, in one flush, and their sender returns
    /// once both are out.
    #[tokio::test]
    async fn send_all_sends_in_order() {
        let (shared, shared_addr) = bound().await;
        let (peer, peer_addr) = bound().await;
        let (outbox, flusher) = start(shared);
        outbox
            .0
            .send_all(&[b"ahead", b"request"], peer_addr)
            .await
            .unwrap();
        assert_eq!(recv(&peer).await, (b"ahead".to_vec(), shared_addr));
        assert_eq!(recv(&peer).await, (b"request".to_vec(), shared_addr));
        let q = lock(&outbox.0.queue);
        assert_eq!((q.done, q.next_ticket), (2, 2));
        drop(q);
        flusher.abort();
    }

    /// A sender waiting when the flusher is stopped, and one coming after, get an error
    /// instead of waiting forever.
    #[tokio::test]
    async fn close_fails_waiting_and_later_senders() {
        let outbox = Arc::new(Outbox::default());
        let to: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let waiting = {
            let outbox = outbox.clone();
            tokio::spawn(async move { outbox.send(b"never", to).await })
        };
        // No flusher runs: let the sender queue its datagram and wait.
        while lock(&outbox.queue).items.is_empty() {
            tokio::task::yield_now().await;
        }
        outbox.close();
        let err = tokio::time::timeout(Duration::from_secs(2), waiting)
            .await
            .expect("sender still waiting after close")
            .unwrap()
            .unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotConnected);
        let err = outbox.send(b"late", to).await.unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotConnected);
    }

    /// A datagram the kernel refuses (port 0 is not a destination) fails its own sender only;
    /// the datagrams queued after it in the same batch still go out.
    #[tokio::test]
    async fn refused_send_fails_its_sender_only() {
        let (shared, _) = bound().await;
        let (outbox, flusher) = start(shared);
        let (peer, peer_addr) = bound().await;
        let bad: SocketAddr = "127.0.0.1:0".parse().unwrap();
        let sends = [(b"one", peer_addr), (b"bad", bad), (b"two", peer_addr)].map(|(d, to)| {
            let outbox = outbox.clone();
            tokio::spawn(async move { outbox.0.send(d, to).await })
        });
        let mut results = Vec::new();
        for s in sends {
            results.push(s.await.unwrap());
        }
        assert!(results[0].is_ok() && results[2].is_ok(), "{results:?}");
        assert!(results[1].is_err());
        assert_eq!(recv(&peer).await.0, b"one");
        assert_eq!(recv(&peer).await.0, b"two");
        assert!(lock(&outbox.0.queue).failed.is_empty());
        flusher.abort();
    }
}
