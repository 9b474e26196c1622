//! Connected UDP: the kernel drops datagrams from any address but the peer's, so a reply from
//! a wrong source port never reaches a decoder.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::net::UdpSocket;
use tokio::time::Instant;

use super::NetError;

/// A UDP socket connected to one server for the length of one poll.
#[derive(Debug)]
pub struct UdpChannel {
    socket: UdpSocket,
    peer: SocketAddr,
}

impl UdpChannel {
    pub async fn connect(peer: SocketAddr) -> Result<UdpChannel, NetError> {
        let local: SocketAddr = match peer {
            SocketAddr::V4(_) => (Ipv4Addr::UNSPECIFIED, 0).into(),
            SocketAddr::V6(_) => (Ipv6Addr::UNSPECIFIED, 0).into(),
        };
        let socket = UdpSocket::bind(local).await?;
        socket.connect(peer).await?;
        Ok(UdpChannel { socket, peer })
    }

    /// Like [`UdpChannel::connect`], but first tries to bind `local_port` again, falling back
    /// to any port when it is taken. Minecraft Query servers key their tokens by the client's
    /// address and port, so a remembered token only works from the same port.
    pub async fn connect_from(
        peer: SocketAddr,
        local_port: Option<u16>,
    ) -> Result<UdpChannel, NetError> {
        let ip: std::net::IpAddr = match peer {
            SocketAddr::V4(_) => Ipv4Addr::UNSPECIFIED.into(),
            SocketAddr::V6(_) => Ipv6Addr::UNSPECIFIED.into(),
        };
        let socket = match local_port {
            Some(port) => match UdpSocket::bind((ip, port)).await {
                Ok(s) => s,
                Err(_) => UdpSocket::bind((ip, 0)).await?,
            },
            None => UdpSocket::bind((ip, 0)).await?,
        };
        socket.connect(peer).await?;
        Ok(UdpChannel { socket, peer })
    }

    /// The local port, to ask for again with [`UdpChannel::connect_from`].
    pub fn local_port(&self) -> Option<u16> {
        self.socket.local_addr().ok().map(|a| a.port())
    }

    pub fn peer(&self) -> SocketAddr {
        self.peer
    }

    pub async fn send(&self, datagram: &[u8]) -> Result<(), NetError> {
        self.socket.send(datagram).await?;
        Ok(())
    }

    /// Waits for the next datagram from the peer until `deadline`. `buf` should hold
    /// [`super::MAX_DATAGRAM`] bytes; a longer datagram is cut by the kernel, and decoders see
    /// the truncation.
    pub async fn recv(&self, buf: &mut [u8], deadline: Instant) -> Result<usize, NetError> {
        match tokio::time::timeout_at(deadline, self.socket.recv(buf)).await {
            Ok(Ok(n)) => Ok(n),
            Ok(Err(e)) => Err(e.into()),
            Err(_) => Err(NetError::Timeout),
        }
    }
}
