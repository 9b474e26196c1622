//! UDP channels for one poll: either a socket connected to the server for the length of the
//! poll, or a registration on a shared [`UdpMux`] socket.
//!
//! - A connected socket: the kernel drops datagrams from any address but the peer's, so a
//!   reply from a wrong source port never reaches a decoder, and an ICMP port unreachable is
//!   reported (`refused`). It costs socket, bind, connect, epoll register/deregister and close
//!   per poll.
//! - The mux: a few long-lived unconnected sockets whose dispatcher task hands each datagram
//!   to the poll registered for its exact source address and drops the rest, so the same
//!   filtering holds without a socket per poll. Unconnected sockets get no ICMP errors, so a
//!   server going down shows `timeout` instead of `refused`: callers use the mux only for a
//!   target whose previous poll succeeded (see `query::Session::udp_shared_ok`).
//!   Datagrams cross it in batches: the dispatcher reads with `recvmmsg`, and sends go
//!   through the family's outbox (`net::outbox`), flushed with `sendmmsg`.

use std::cell::RefCell;
use std::collections::hash_map::Entry;
use std::collections::{HashMap, VecDeque};
use std::io::IoSliceMut;
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use nix::sys::socket::{recvmmsg, setsockopt, sockopt, MsgFlags, MultiHeaders, SockaddrStorage};
use tokio::io::Interest;
use tokio::net::UdpSocket;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::addr_hash::AddrHash;
use super::buffer::RecvBuf;
use super::outbox::Outbox;
use super::NetError;
use crate::sync::lock;
use crate::target::MAX_DATAGRAM;

/// Datagrams queued for one poll that has not read them yet; more are dropped, so a peer
/// flooding us costs at most this much memory per poll (a dialogue needs one to a few).
pub const MUX_QUEUE: usize = 16;

/// Whether sends on the shared sockets go through the outbox (`sendmmsg` per batch) or out
/// one `send_to` each. Always on in the daemon; see [`set_coalesced_sends`].
static COALESCE: AtomicBool = AtomicBool::new(true);

/// Turns the outbox off (process-wide) so the load bench can measure what coalesced sends
/// buy (`--no-coalesce`). Not a configuration key: the daemon always coalesces.
#[doc(hidden)]
pub fn set_coalesced_sends(on: bool) {
    COALESCE.store(on, Ordering::Relaxed);
}

/// A UDP socket for one poll, talking to one server. Plain send and receive: resending an
/// unanswered request is the query driver's (`query::driver`), which sees every copy.
#[derive(Debug)]
pub struct UdpChannel {
    peer: SocketAddr,
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    Own(UdpSocket),
    Shared(Registration),
}

impl UdpChannel {
    pub async fn connect(peer: SocketAddr) -> Result<UdpChannel, NetError> {
        let socket = UdpSocket::bind(unspecified(peer, 0)).await?;
        socket.connect(peer).await?;
        Ok(UdpChannel::new(peer, Inner::Own(socket)))
    }

    fn new(peer: SocketAddr, inner: Inner) -> UdpChannel {
        UdpChannel { peer, inner }
    }

    /// A registration for `peer` on `mux` when there is one and it can take it (no other poll
    /// of the same address in flight, socket bound), else a connected socket of its own.
    pub async fn open(peer: SocketAddr, mux: Option<&UdpMux>) -> Result<UdpChannel, NetError> {
        if let Some(reg) = mux.and_then(|m| m.register(peer)) {
            return Ok(UdpChannel::new(peer, Inner::Shared(reg)));
        }
        UdpChannel::connect(peer).await
    }

    /// The local port. On the mux it is the family's one port, read once when it was bound
    /// (stable while the process runs: servers that tie a token to the client's address and
    /// port, Minecraft Query, keep honouring it); on a socket of its own, asked of the
    /// kernel.
    pub fn local_port(&self) -> Option<u16> {
        match &self.inner {
            Inner::Own(s) => s.local_addr().ok().map(|a| a.port()),
            Inner::Shared(r) => r.family.local_port,
        }
    }

    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    /// Whether this channel rides on a shared [`UdpMux`] socket.
    pub fn is_shared(&self) -> bool {
        matches!(self.inner, Inner::Shared(_))
    }

    /// Sends one datagram to the peer.
    pub async fn send(&self, datagram: &[u8]) -> Result<(), NetError> {
        self.send_at(datagram).await.map(drop)
    }

    /// Sends one datagram to the peer; when it went: on the shared socket the end of the
    /// `sendmmsg` that carried it (see [`super::outbox::Outbox::send_all`]).
    pub async fn send_at(&self, datagram: &[u8]) -> Result<Instant, NetError> {
        match &self.inner {
            Inner::Own(s) => {
                s.send(datagram).await?;
            }
            Inner::Shared(r) if COALESCE.load(Ordering::Relaxed) => {
                return Ok(r.family.outbox.send(datagram, self.peer).await?);
            }
            Inner::Shared(r) => {
                r.family.socket.send_to(datagram, self.peer).await?;
            }
        }
        Ok(Instant::now())
    }

    /// Sends two datagrams to the peer back to back: on the shared socket they are queued
    /// together and leave in the same `sendmmsg` (one wait for the flusher, not two). When
    /// the second went, as [`UdpChannel::send_at`].
    pub async fn send_pair(&self, first: &[u8], then: &[u8]) -> Result<Instant, NetError> {
        match &self.inner {
            Inner::Shared(r) if COALESCE.load(Ordering::Relaxed) => {
                Ok(r.family.outbox.send_all(&[first, then], self.peer).await?)
            }
            _ => {
                self.send_at(first).await?;
                self.send_at(then).await
            }
        }
    }

    /// Waits for the next datagram from the peer until `deadline`; returns it at its exact
    /// size.
    ///
    /// A poll waiting here holds no receive buffer: on the mux the dispatcher hands over the
    /// datagram it already copied out, and a socket of its own takes a [`MAX_DATAGRAM`]
    /// buffer only once it is readable, for the one receive. (Every poll in flight used to
    /// pin such a buffer for its whole dialogue: hundreds of polls on a slow network,
    /// thousands waiting on silent servers.)
    pub async fn recv(&self, deadline: Instant) -> Result<Vec<u8>, NetError> {
        self.recv_at(deadline).await.map(|(d, _)| d)
    }

    /// [`UdpChannel::recv`], with when the datagram was taken from the socket: on the shared
    /// socket, when the dispatcher read it, which can be well before this poll runs again (a
    /// slot's replies are read together, then their polls run one after another), so a round
    /// trip timed to it leaves out the time spent on the polls ahead in that line.
    pub async fn recv_at(&self, deadline: Instant) -> Result<(Vec<u8>, Instant), NetError> {
        let result = match &self.inner {
            Inner::Own(s) => tokio::time::timeout_at(deadline, recv_own(s))
                .await
                .map(|r| r.map(|d| (d, Instant::now()))),
            Inner::Shared(r) => tokio::time::timeout_at(deadline, r.slot.recv())
                .await
                .map(Ok),
        };
        match result {
            Ok(Ok(d)) => Ok(d),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(NetError::Timeout),
        }
    }
}

/// One datagram from a connected socket: readiness first, then a pooled buffer for the
/// receive alone, and an exact-size copy out of it.
///
/// The wait includes error readiness, as tokio's own `recv` does: an ICMP port unreachable
/// sets only that (no datagram), and is what makes a closed port `refused` instead of a
/// timeout.
async fn recv_own(socket: &UdpSocket) -> std::io::Result<Vec<u8>> {
    loop {
        let ready = socket.ready(Interest::READABLE | Interest::ERROR).await?;
        if !ready.is_readable() {
            // Only an error is pending. A zero-length peek returns it (and clears it); if it
            // is gone already, the peek's own wait clears the readiness instead of letting
            // this loop spin.
            socket.peek(&mut []).await?;
            continue;
        }
        let mut buf = RecvBuf::take();
        match socket.try_recv(&mut buf) {
            Ok(n) => return Ok(buf[..n.min(buf.len())].to_vec()),
            // Readiness can be stale; the buffer goes back to the pool while we wait.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e),
        }
    }
}

fn unspecified(peer: SocketAddr, port: u16) -> SocketAddr {
    match peer {
        SocketAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, port).into(),
        SocketAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, port).into(),
    }
}

/// The map key for a source address: flow labels vary per packet and mean nothing here.
fn key(addr: SocketAddr) -> SocketAddr {
    match addr {
        SocketAddr::V6(mut v6) => {
            v6.set_flowinfo(0);
            SocketAddr::V6(v6)
        }
        v4 => v4,
    }
}

/// Shared unconnected UDP sockets, one per address family, bound on first use, each with a
/// dispatcher task routing datagrams to the poll registered for their source address.
///
/// Dropping the mux stops its dispatchers; channels still registered then time out.
#[derive(Debug, Default)]
pub struct UdpMux {
    v4: Mutex<Option<Dispatch>>,
    v6: Mutex<Option<Dispatch>>,
    shared: AtomicU64,
}

#[derive(Debug)]
struct Dispatch {
    family: Arc<Family>,
    /// The dispatcher (receives) and the flusher (sends).
    tasks: [JoinHandle<()>; 2],
}

/// One shared socket, the polls waiting on it and the datagrams waiting to be sent on it.
#[derive(Debug)]
struct Family {
    socket: UdpSocket,
    /// The socket's local port, read when it was bound.
    local_port: Option<u16>,
    /// Keyed by [`AddrHash`]: SipHash was ~4 % of a poll here (see `addr_hash`).
    waiters: Mutex<HashMap<SocketAddr, Arc<Slot>, AddrHash>>,
    outbox: Outbox,
}

/// What one registered poll has received and not read yet.
#[derive(Debug, Default)]
struct Slot {
    queue: Mutex<Queue>,
    ready: Notify,
}

/// Almost every poll receives exactly one datagram: it waits in `first`, and the deque (which
/// allocates on first use) only holds what comes while it is unread. Each with when the
/// dispatcher read it.
#[derive(Debug, Default)]
struct Queue {
    first: Option<(Vec<u8>, Instant)>,
    rest: VecDeque<(Vec<u8>, Instant)>,
}

impl Queue {
    fn len(&self) -> usize {
        usize::from(self.first.is_some()) + self.rest.len()
    }

    fn push(&mut self, datagram: (Vec<u8>, Instant)) {
        if self.first.is_none() && self.rest.is_empty() {
            self.first = Some(datagram);
        } else {
            self.rest.push_back(datagram);
        }
    }

    fn pop(&mut self) -> Option<(Vec<u8>, Instant)> {
        self.first.take().or_else(|| self.rest.pop_front())
    }
}

impl Slot {
    /// Queues a copy of `datagram`, read `at`, unless the queue is full; true when it was
    /// queued (the caller then wakes the poll).
    fn queue(&self, datagram: &[u8], at: Instant) -> bool {
        let mut q = lock(&self.queue);
        if q.len() >= MUX_QUEUE {
            return false;
        }
        q.push((datagram.to_vec(), at));
        true
    }

    /// The next datagram, as the dispatcher queued it (already exact-size: no copy), and
    /// when it was read.
    async fn recv(&self) -> (Vec<u8>, Instant) {
        loop {
            let next = lock(&self.queue).pop();
            if let Some(d) = next {
                return d;
            }
            // notify_one keeps a permit when nobody waits, so a push between the check above
            // and this await is not lost.
            self.ready.notified().await;
        }
    }
}

/// A poll's claim on its peer's datagrams; released on drop.
#[derive(Debug)]
struct Registration {
    family: Arc<Family>,
    slot: Arc<Slot>,
    key: SocketAddr,
}

impl Drop for Registration {
    fn drop(&mut self) {
        // One hash: the entry is looked up once, and removed only if it is still ours.
        if let Entry::Occupied(e) = lock(&self.family.waiters).entry(self.key) {
            if Arc::ptr_eq(e.get(), &self.slot) {
                e.remove();
            }
        }
    }
}

impl UdpMux {
    pub fn new() -> UdpMux {
        UdpMux::default()
    }

    /// Claims `peer`'s datagrams, or `None` when another poll holds that address or the
    /// shared socket cannot be bound: the caller then uses a socket of its own.
    fn register(&self, peer: SocketAddr) -> Option<Registration> {
        let family = self.family(peer)?;
        let key = key(peer);
        let slot = Arc::new(Slot::default());
        {
            match lock(&family.waiters).entry(key) {
                Entry::Occupied(_) => return None,
                Entry::Vacant(v) => v.insert(slot.clone()),
            };
        }
        self.shared.fetch_add(1, Ordering::Relaxed);
        Some(Registration { family, slot, key })
    }

    /// How many channels have been opened on the shared sockets so far.
    pub fn shared_polls(&self) -> u64 {
        self.shared.load(Ordering::Relaxed)
    }

    /// The shared socket for `peer`'s family, bound (and its dispatcher started) on first use.
    /// Must run inside a tokio runtime.
    fn family(&self, peer: SocketAddr) -> Option<Arc<Family>> {
        let cell = match peer {
            SocketAddr::V4(_) => &self.v4,
            SocketAddr::V6(_) => &self.v6,
        };
        let mut cell = lock(cell);
        if let Some(d) = cell.as_ref() {
            return Some(d.family.clone());
        }
        let socket = match bind_shared(peer) {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!(error = %e, "udp mux: cannot bind a shared socket; polls use their own");
                return None;
            }
        };
        let local_port = socket.local_addr().ok().map(|a| a.port());
        let family = Arc::new(Family {
            socket,
            local_port,
            waiters: Mutex::new(HashMap::default()),
            outbox: Outbox::default(),
        });
        let dispatcher = tokio::spawn(dispatch(family.clone()));
        let flusher = {
            let family = family.clone();
            tokio::spawn(async move { family.outbox.run(&family.socket).await })
        };
        *cell = Some(Dispatch {
            family: family.clone(),
            tasks: [dispatcher, flusher],
        });
        Some(family)
    }

    #[cfg(test)]
    fn families(&self) -> Vec<std::sync::Weak<Family>> {
        [&self.v4, &self.v6]
            .iter()
            .filter_map(|c| {
                c.lock()
                    .unwrap()
                    .as_ref()
                    .map(|d| Arc::downgrade(&d.family))
            })
            .collect()
    }
}

impl Drop for UdpMux {
    fn drop(&mut self) {
        for cell in [&self.v4, &self.v6] {
            if let Some(d) = lock(cell).take() {
                d.tasks.iter().for_each(JoinHandle::abort);
                d.family.outbox.close();
            }
        }
    }
}

fn bind_shared(peer: SocketAddr) -> std::io::Result<UdpSocket> {
    let socket = std::net::UdpSocket::bind(unspecified(peer, 0))?;
    socket.set_nonblocking(true)?;
    // Best effort: the kernel caps the request at net.core.rmem_max and only a privileged
    // process could go past it, which this one should not need to be.
    let _ = setsockopt(&socket, sockopt::RcvBuf, &SHARED_RECV_BUFFER);
    UdpSocket::from_std(socket)
}

/// Receive buffer asked for on a shared socket: one start slot's polls (about
/// [`crate::scheduler::BATCH`], more on very busy configs) send together, and servers on one LAN reply together while the poller
/// may still be busy with the slot. The default 208 KiB holds about 90 full-size datagrams;
/// the kernel grants this only up to `net.core.rmem_max` (docs/operations.md).
const SHARED_RECV_BUFFER: usize = 4 << 20;

/// Datagrams one dispatcher pass takes before waking their polls and looking again.
const BATCH: usize = 256;

/// Datagrams one `recvmmsg` call takes at most (a start slot holds about
/// [`crate::scheduler::BATCH`] polls: a few calls). Each gets a [`MAX_DATAGRAM`] buffer: this
/// many of them in address space per family, of which the kernel only touches (and so the OS
/// only maps) the pages the datagrams fill.
const RECV_BATCH: usize = 32;

thread_local! {
    /// nix's `recvmmsg` headers hold raw pointers, so they are not `Send` and cannot live in
    /// the dispatcher task across an await; one set per thread, reused by every dispatcher
    /// running on it, saves two allocations per wake-up.
    static HEADERS: RefCell<Option<MultiHeaders<SockaddrStorage>>> = const { RefCell::new(None) };
}

/// Receives on the shared socket forever, handing each datagram to the poll registered for
/// its source; datagrams from anyone else are dropped, as a connected socket would.
///
/// Everything that has arrived is queued before any poll is woken, so the polls of a batch
/// are scheduled together (waking each as its datagram came cost extra worker wake-ups).
/// Datagrams are read with `recvmmsg`, up to [`RECV_BATCH`] per system call.
async fn dispatch(family: Arc<Family>) {
    let mut bufs = vec![0u8; RECV_BATCH * MAX_DATAGRAM];
    let mut woken: Vec<Arc<Slot>> = Vec::new();
    loop {
        if let Err(e) = family.socket.readable().await {
            tracing::warn!(error = %e, "udp mux: waiting for datagrams failed");
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            continue;
        }
        let mut failed = false;
        let mut taken = 0;
        while taken < BATCH {
            match receive_batch(&family, &mut bufs, &mut woken) {
                // A short batch: the socket's queue was empty (and readiness is cleared).
                Ok(n) if n < RECV_BATCH => break,
                Ok(n) => taken += n,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                // Some stacks report an earlier send's ICMP error on a later receive.
                Err(e) if is_transient(&e) => taken += 1,
                Err(e) => {
                    tracing::warn!(error = %e, "udp mux: receive failed");
                    failed = true;
                    break;
                }
            }
        }
        for slot in woken.drain(..) {
            slot.ready.notify_one();
        }
        if failed {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }
}

/// One `recvmmsg` without waiting: queues each datagram for the poll registered for its
/// source (collecting the slots to wake in `woken`) and returns how many arrived.
///
/// A batch shorter than [`RECV_BATCH`] means the socket's queue was empty when the call
/// returned, so it is reported to tokio as "would block", which clears the socket's
/// readiness: the next pass then waits for the next datagram instead of making one more call
/// that could only fail with `EAGAIN`. A datagram arriving after the call raises a new
/// readiness event (tokio only clears readiness it has not seen change since).
fn receive_batch(
    family: &Family,
    bufs: &mut [u8],
    woken: &mut Vec<Arc<Slot>>,
) -> std::io::Result<usize> {
    let mut got = 0;
    let result = family.socket.try_io(Interest::READABLE, || {
        got = HEADERS.with_borrow_mut(|headers| {
            let headers =
                headers.get_or_insert_with(|| MultiHeaders::preallocate(RECV_BATCH, None));
            let mut chunks = bufs.chunks_exact_mut(MAX_DATAGRAM);
            let mut iovs: [[IoSliceMut<'_>; 1]; RECV_BATCH] =
                std::array::from_fn(|_| [IoSliceMut::new(chunks.next().unwrap_or_default())]);
            let received = recvmmsg(
                family.socket.as_raw_fd(),
                headers,
                iovs.iter_mut(),
                MsgFlags::MSG_DONTWAIT,
                None,
            )?;
            let mut n = 0;
            // One clock read per system call: the datagrams of one call arrived before it.
            let at = Instant::now();
            let waiters = lock(&family.waiters);
            for msg in received {
                n += 1;
                let Some(from) = msg.address.as_ref().and_then(std_addr) else {
                    continue;
                };
                let datagram = msg.iovs().next().unwrap_or_default();
                match waiters.get(&key(from)) {
                    Some(slot) => {
                        if slot.queue(datagram, at) {
                            woken.push(slot.clone());
                        }
                    }
                    None => {
                        tracing::trace!(%from, "udp mux: dropping a datagram nobody waits for")
                    }
                }
            }
            Ok::<usize, std::io::Error>(n)
        })?;
        if got < RECV_BATCH {
            return Err(std::io::ErrorKind::WouldBlock.into());
        }
        Ok(())
    });
    match result {
        Ok(()) => Ok(got),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && got > 0 => Ok(got),
        Err(e) => Err(e),
    }
}

/// A source address as std has it; `None` for a family the shared sockets never use.
fn std_addr(addr: &SockaddrStorage) -> Option<SocketAddr> {
    if let Some(v4) = addr.as_sockaddr_in() {
        return Some(SocketAddr::from(*v4));
    }
    addr.as_sockaddr_in6().map(|v6| SocketAddr::from(*v6))
}

fn is_transient(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(e.kind(), ConnectionRefused | ConnectionReset | Interrupted)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    async fn server() -> (UdpSocket, SocketAddr) {
        let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let a = s.local_addr().unwrap();
        (s, a)
    }

    fn soon(ms: u64) -> Instant {
        Instant::now() + Duration::from_millis(ms)
    }

    /// The next datagram as a `Vec` (the one place to adapt if `recv`'s signature changes).
    async fn recv_vec(chan: &UdpChannel, until: Instant) -> Result<Vec<u8>, NetError> {
        chan.recv(until).await
    }

    /// Answers one datagram with `reply`; returns where it came from.
    async fn answer(s: &UdpSocket, reply: &[u8]) -> SocketAddr {
        let mut buf = [0u8; 64];
        let (_, from) = s.recv_from(&mut buf).await.unwrap();
        s.send_to(reply, from).await.unwrap();
        from
    }

    /// A shared socket asks for a receive buffer beyond the kernel's default, as far as
    /// `net.core.rmem_max` allows (the kernel reports twice what it grants); where rmem_max is
    /// the default 208 KiB this still doubles the default buffer.
    #[tokio::test]
    async fn shared_socket_widens_its_receive_buffer() {
        let max: usize = std::fs::read_to_string("/proc/sys/net/core/rmem_max")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(212_992);
        let s = bind_shared("127.0.0.1:9".parse().unwrap()).unwrap();
        let got = nix::sys::socket::getsockopt(&s, sockopt::RcvBuf).unwrap();
        assert!(
            got >= 2 * SHARED_RECV_BUFFER.min(max),
            "{got} with rmem_max {max}"
        );
    }

    /// Two polls in flight at once to different peers on one shared socket each get their own
    /// peer's reply, whatever order the replies come in.
    #[tokio::test]
    async fn replies_routed_to_their_waiter() {
        let mux = UdpMux::new();
        let (a, a_addr) = server().await;
        let (b, b_addr) = server().await;
        let ca = UdpChannel::open(a_addr, Some(&mux)).await.unwrap();
        let cb = UdpChannel::open(b_addr, Some(&mux)).await.unwrap();
        assert!(ca.is_shared() && cb.is_shared());
        assert_eq!(ca.local_port(), cb.local_port());
        ca.send(b"to a").await.unwrap();
        cb.send(b"to b").await.unwrap();
        answer(&b, b"from b").await;
        answer(&a, b"from a").await;
        assert_eq!(cb.recv(soon(1000)).await.unwrap(), b"from b");
        assert_eq!(ca.recv(soon(1000)).await.unwrap(), b"from a");
    }

    /// A pipelined pair: both requests reach the server in order, and both replies, sent
    /// back to back (so usually read in one `recvmmsg` batch), reach the poll; neither
    /// overwrites the other. On the shared socket and on one of its own.
    #[tokio::test]
    async fn pair_out_both_replies_in() {
        let mux = UdpMux::new();
        for shared in [true, false] {
            let (peer, peer_addr) = server().await;
            let chan = UdpChannel::open(peer_addr, shared.then_some(&mux))
                .await
                .unwrap();
            assert_eq!(chan.is_shared(), shared);
            chan.send_pair(b"players", b"info").await.unwrap();
            let mut buf = [0u8; 64];
            let (n, from) = peer.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"players");
            let (n, _) = peer.recv_from(&mut buf).await.unwrap();
            assert_eq!(&buf[..n], b"info");
            peer.send_to(b"player list", from).await.unwrap();
            peer.send_to(b"info reply", from).await.unwrap();
            assert_eq!(chan.recv(soon(1000)).await.unwrap(), b"player list");
            assert_eq!(chan.recv(soon(1000)).await.unwrap(), b"info reply");
        }
    }

    /// A datagram from a source nobody registered (here: the right host, another port) is
    /// dropped; the real reply still arrives, and nothing else does.
    #[tokio::test]
    async fn unregistered_source_dropped() {
        let mux = UdpMux::new();
        let (real, real_addr) = server().await;
        let (decoy, _) = server().await;
        let chan = UdpChannel::open(real_addr, Some(&mux)).await.unwrap();
        chan.send(b"hello").await.unwrap();
        let mut buf = [0u8; 64];
        let (_, from) = real.recv_from(&mut buf).await.unwrap();
        decoy.send_to(b"decoy", from).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        real.send_to(b"real", from).await.unwrap();
        assert_eq!(chan.recv(soon(1000)).await.unwrap(), b"real");
        assert!(matches!(chan.recv(soon(100)).await, Err(NetError::Timeout)));
    }

    /// Replies from more sources than one `recvmmsg` batch takes, all queued on the shared
    /// socket before the dispatcher runs, each reach their own poll and only theirs.
    #[tokio::test]
    async fn batch_from_many_sources_reaches_each_slot() {
        const N: usize = RECV_BATCH * 2 + 7;
        let mux = UdpMux::new();
        let mut servers = Vec::new();
        let mut chans = Vec::new();
        for _ in 0..N {
            let (s, a) = server().await;
            chans.push(UdpChannel::open(a, Some(&mux)).await.unwrap());
            servers.push(s);
        }
        assert!(chans.iter().all(UdpChannel::is_shared));
        for (i, c) in chans.iter().enumerate() {
            c.send(&(i as u32).to_be_bytes()).await.unwrap();
        }
        // Each server answers with its own index, echoing what it got after it.
        for (i, s) in servers.iter().enumerate() {
            let mut buf = [0u8; 16];
            let (n, from) = s.recv_from(&mut buf).await.unwrap();
            let mut reply = (i as u32).to_be_bytes().to_vec();
            reply.extend_from_slice(&buf[..n]);
            s.send_to(&reply, from).await.unwrap();
        }
        for (i, c) in chans.iter().enumerate() {
            let mut want = (i as u32).to_be_bytes().to_vec();
            want.extend_from_slice(&(i as u32).to_be_bytes());
            assert_eq!(recv_vec(c, soon(2000)).await.unwrap(), want, "poll {i}");
        }
        for c in &chans {
            assert!(matches!(
                recv_vec(c, soon(50)).await,
                Err(NetError::Timeout)
            ));
        }
    }

    /// An empty datagram is a datagram: it reaches its poll as zero bytes.
    #[tokio::test]
    async fn empty_datagram_delivered() {
        let mux = UdpMux::new();
        let (peer, peer_addr) = server().await;
        let chan = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        chan.send(b"x").await.unwrap();
        answer(&peer, b"").await;
        assert_eq!(recv_vec(&chan, soon(1000)).await.unwrap(), b"");
    }

    /// On the shared socket a datagram carries the instant the dispatcher read it, not the
    /// later one when its poll gets to it (a slot's polls run one after another once their
    /// replies are read); on a socket of its own, the read is the poll's own.
    #[tokio::test]
    async fn read_instant_is_the_dispatchers() {
        let mux = UdpMux::new();
        let (peer, peer_addr) = server().await;
        let chan = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        assert!(chan.is_shared());
        let sent = chan.send_at(b"x").await.unwrap();
        answer(&peer, b"reply").await;
        // The dispatcher reads it while this poll is busy elsewhere.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let asked = Instant::now();
        let (d, read) = chan.recv_at(soon(1000)).await.unwrap();
        assert_eq!(d, b"reply");
        assert!(sent <= read, "{sent:?} {read:?}");
        assert!(
            read + Duration::from_millis(150) <= asked,
            "{read:?} {asked:?}"
        );

        let own = UdpChannel::open(peer_addr, None).await.unwrap();
        assert!(!own.is_shared());
        own.send_at(b"y").await.unwrap();
        answer(&peer, b"own").await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        let asked = Instant::now();
        let (d, read) = own.recv_at(soon(1000)).await.unwrap();
        assert_eq!(d, b"own");
        assert!(read >= asked);
    }

    /// Datagrams come out in arrival order, with the instant each was read, whether the
    /// first is still unread or not.
    #[test]
    fn queue_keeps_order() {
        let t = Instant::now();
        let at = |n: u8| (vec![n], t + Duration::from_millis(u64::from(n)));
        let mut q = Queue::default();
        q.push(at(1));
        q.push(at(2));
        assert_eq!(q.len(), 2);
        assert_eq!(q.pop(), Some(at(1)));
        q.push(at(3));
        assert_eq!(q.pop(), Some(at(2)));
        assert_eq!(q.pop(), Some(at(3)));
        assert_eq!(q.pop(), None);
        q.push(at(4));
        assert_eq!(q.pop(), Some(at(4)));
        assert_eq!(q.len(), 0);
    }

    /// A peer flooding a poll gets at most MUX_QUEUE datagrams queued for it.
    #[tokio::test]
    async fn queue_bounded_under_flood() {
        let mux = UdpMux::new();
        let (peer, peer_addr) = server().await;
        let chan = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        // A second poll on the same shared socket, whose server speaks once the flood is
        // out: the dispatcher routes in arrival order, so when that datagram has reached
        // its poll, every flooded one has been queued or dropped (no sleep and hope).
        let (marker, marker_addr) = server().await;
        let after = UdpChannel::open(marker_addr, Some(&mux)).await.unwrap();
        assert!(chan.is_shared() && after.is_shared());
        chan.send(b"go").await.unwrap();
        let mut buf = [0u8; 64];
        let (_, from) = peer.recv_from(&mut buf).await.unwrap();
        for i in 0..(MUX_QUEUE as u32 * 4) {
            peer.send_to(&i.to_be_bytes(), from).await.unwrap();
        }
        marker.send_to(b"done", from).await.unwrap();
        assert_eq!(after.recv(soon(10_000)).await.unwrap(), b"done");
        // A deadline already due takes what is queued and never waits.
        let mut got = Vec::new();
        while let Ok(d) = chan.recv(Instant::now()).await {
            got.push(d);
        }
        // The first MUX_QUEUE, in order, each at its own size.
        let expected: Vec<Vec<u8>> = (0..MUX_QUEUE as u32)
            .map(|i| i.to_be_bytes().to_vec())
            .collect();
        assert_eq!(got, expected);
    }

    /// A second poll of an address already registered gets a connected socket of its own;
    /// once the first ends, the address can be shared again.
    #[tokio::test]
    async fn same_peer_twice_falls_back() {
        let mux = UdpMux::new();
        let (_peer, peer_addr) = server().await;
        let first = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        let second = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        assert!(first.is_shared());
        assert!(!second.is_shared());
        drop(first);
        let third = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        assert!(third.is_shared());
        assert!(!UdpChannel::open(peer_addr, None).await.unwrap().is_shared());
    }

    /// Dropping the mux stops its dispatcher, which releases the shared socket.
    #[tokio::test]
    async fn dispatcher_stops_on_drop() {
        let mux = UdpMux::new();
        let (_peer, peer_addr) = server().await;
        drop(UdpChannel::open(peer_addr, Some(&mux)).await.unwrap());
        let families = mux.families();
        assert_eq!(families.len(), 1);
        assert!(families[0].upgrade().is_some());
        drop(mux);
        for _ in 0..100 {
            if families[0].upgrade().is_none() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        panic!("dispatcher still holds the shared socket after the mux was dropped");
    }

    /// A channel that outlives its mux fails its sends instead of waiting for a flusher
    /// that is gone.
    #[tokio::test]
    async fn send_after_mux_dropped_fails() {
        let mux = UdpMux::new();
        let (_peer, peer_addr) = server().await;
        let chan = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        assert!(chan.is_shared());
        drop(mux);
        let sent = tokio::time::timeout(Duration::from_secs(2), chan.send(b"x"))
            .await
            .expect("send waited for a stopped flusher");
        assert!(sent.is_err());
    }

    /// IPv6 peers get a shared socket of their own family.
    #[tokio::test]
    async fn ipv6_peer() {
        let Ok(peer) = UdpSocket::bind("[::1]:0").await else {
            return; // no IPv6 loopback on this host
        };
        let peer_addr = peer.local_addr().unwrap();
        let mux = UdpMux::new();
        let chan = UdpChannel::open(peer_addr, Some(&mux)).await.unwrap();
        assert!(chan.is_shared());
        chan.send(b"six").await.unwrap();
        answer(&peer, b"back").await;
        assert_eq!(chan.recv(soon(1000)).await.unwrap(), b"back");
    }

    /// A socket of its own returns each datagram whole and at its size, from a few bytes to
    /// the largest IPv4 allows, with no buffer bigger than the datagram left behind.
    #[tokio::test]
    async fn own_socket_exact_size() {
        let (peer, peer_addr) = server().await;
        let chan = UdpChannel::connect(peer_addr).await.unwrap();
        assert!(!chan.is_shared());
        chan.send(b"hi").await.unwrap();
        let from = answer(&peer, b"tiny").await;
        let got = chan.recv(soon(1000)).await.unwrap();
        assert_eq!(got, b"tiny");
        assert_eq!(got.capacity(), 4);
        let big: Vec<u8> = (0..65_507u32).map(|i| (i % 251) as u8).collect();
        peer.send_to(&big, from).await.unwrap();
        let got = chan.recv(soon(1000)).await.unwrap();
        assert_eq!(got, big);
        assert_eq!(got.capacity(), big.len());
        assert!(matches!(chan.recv(soon(50)).await, Err(NetError::Timeout)));
    }

    /// A closed port on a socket of its own is reported as such (the ICMP error arrives
    /// through the readiness wait, as it did through a plain receive).
    #[tokio::test]
    async fn own_socket_refused() {
        let (gone, addr) = server().await;
        drop(gone);
        let chan = UdpChannel::connect(addr).await.unwrap();
        chan.send(b"anyone?").await.unwrap();
        let e = chan.recv(soon(1000)).await.unwrap_err();
        assert!(matches!(e, NetError::Refused), "{e:?}");
    }
}
