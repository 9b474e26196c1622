//! The small seam between the driver and the network: one trait, three real transports (a
//! UDP channel on the shared mux, a connected UDP socket, a TCP stream) and, in tests, an
//! in-memory fake. The driver is generic over it, so each poll's code is monomorphized and
//! nothing is boxed.

use std::net::SocketAddr;

use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::net::udp::UdpChannel;
use crate::net::{tcp, NetError};

/// What one receive produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recv {
    /// One datagram, or the next chunk of a stream, at its exact size: the transport owns no
    /// receive buffer while a poll waits, so a poll in flight costs only what has arrived.
    Bytes(Vec<u8>),
    /// The peer closed the stream.
    Closed,
    /// The instant passed with nothing received.
    Timeout,
}

/// A way of talking to one server, as the driver sees it.
#[allow(async_fn_in_trait)] // used only by the generic driver, never as a trait object
pub trait Transport {
    /// Datagrams may be lost, so an unanswered request is sent again; a stream delivers or
    /// fails, so it never is.
    const DATAGRAMS: bool;

    /// Opens a new connection (streams), giving up at `until`. Datagram transports are ready
    /// from the start and accept this as a no-op.
    async fn connect(&mut self, until: Instant) -> Result<(), NetError>;

    /// Sends one request (a datagram, or bytes on the stream), giving up at `until`.
    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<(), NetError>;

    /// Receives until `until`. Holds no buffer while it waits (see [`Recv::Bytes`]).
    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError>;

    /// The server's address, for transcripts; `None` where there is none (fakes).
    fn peer(&self) -> Option<SocketAddr> {
        None
    }
}

/// A UDP channel: a registration on the shared mux or a connected socket of its own.
impl Transport for UdpChannel {
    const DATAGRAMS: bool = true;

    fn peer(&self) -> Option<SocketAddr> {
        Some(UdpChannel::peer(self))
    }

    async fn connect(&mut self, _until: Instant) -> Result<(), NetError> {
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8], _until: Instant) -> Result<(), NetError> {
        UdpChannel::send(self, bytes).await
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match UdpChannel::recv(self, until).await {
            Ok(d) => Ok(Recv::Bytes(d)),
            Err(NetError::Timeout) => Ok(Recv::Timeout),
            Err(e) => Err(e),
        }
    }
}

/// TCP to one address; each [`Transport::connect`] opens a new connection (the legacy
/// Minecraft pings each need their own).
#[derive(Debug)]
pub struct TcpLink {
    addr: SocketAddr,
    stream: Option<TcpStream>,
}

impl TcpLink {
    pub fn new(addr: SocketAddr) -> TcpLink {
        TcpLink { addr, stream: None }
    }

    fn stream(&mut self) -> Result<&mut TcpStream, NetError> {
        self.stream.as_mut().ok_or(NetError::Closed { received: 0 })
    }
}

impl Transport for TcpLink {
    const DATAGRAMS: bool = false;

    fn peer(&self) -> Option<SocketAddr> {
        Some(self.addr)
    }

    async fn connect(&mut self, until: Instant) -> Result<(), NetError> {
        self.stream = None;
        self.stream = Some(tcp::connect(self.addr, until).await?);
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<(), NetError> {
        tcp::write_all(self.stream()?, bytes, until).await
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match tcp::read_chunk(self.stream()?, until).await {
            Ok(chunk) if chunk.is_empty() => Ok(Recv::Closed),
            Ok(chunk) => Ok(Recv::Bytes(chunk)),
            Err(NetError::Timeout) => Ok(Recv::Timeout),
            Err(e) => Err(e),
        }
    }
}
