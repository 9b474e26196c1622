//! The small seam between the driver and the network: one trait, four real transports (a
//! UDP channel on the shared mux, a connected UDP socket, a TCP stream, an HTTP(S) client
//! connection) and, in tests, an
//! in-memory fake. The driver is generic over it, so each poll's code is monomorphized and
//! nothing is boxed.

use std::borrow::Cow;
use std::net::SocketAddr;

use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::net::http::{HttpLink, Received};
use crate::net::udp::UdpChannel;
use crate::net::{tcp, NetError};
use crate::protocol::proxy_header;
use crate::target::ProxyProtocol;

/// What one receive produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recv {
    /// One datagram, or the next chunk of a stream, at its exact size: the transport owns no
    /// receive buffer while a poll waits, so a poll in flight costs only what has arrived.
    /// With when it was read where the transport knows better than a clock read once this
    /// poll runs again ([`Sent`] says why); `None`: read the clock.
    Bytes(Vec<u8>, Option<Instant>),
    /// The peer closed the stream.
    Closed,
    /// The instant passed with nothing received.
    Timeout,
}

/// What a send returns: when the request left, where the transport knows better than a clock
/// read after the send returns (`None`: read the clock). On the shared UDP socket a slot's
/// polls send in one `sendmmsg` and then run one after another, as they do again when their
/// replies have been read together; round trips timed from each poll's own turn would carry
/// its place in those lines, up to a millisecond for a slot of [`crate::scheduler::BATCH`]
/// polls.
pub type Sent = Option<Instant>;

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
    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<Sent, NetError>;

    /// Sends a request pipelined ahead of another ([`Step::SendAhead`]), then the other,
    /// back to back. A transport that can batch sends them together (the shared UDP socket:
    /// one `sendmmsg`, one wait for the flusher).
    ///
    /// [`Step::SendAhead`]: crate::protocol::exchange::Step::SendAhead
    async fn send_pair(
        &mut self,
        first: &[u8],
        then: &[u8],
        until: Instant,
    ) -> Result<Sent, NetError> {
        self.send(first, until).await?;
        self.send(then, until).await
    }

    /// Receives until `until`. Holds no buffer while it waits (see [`Recv::Bytes`]).
    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError>;

    /// The server's address, for transcripts; `None` where there is none (fakes).
    fn peer(&self) -> Option<SocketAddr> {
        None
    }

    /// Bytes the transport put on the wire itself, ahead of the request the last
    /// [`Transport::send`] wrote (a PROXY protocol header on a new connection), with a label:
    /// once, right after that send, so observers show them as sent. `None` otherwise.
    fn sent_preamble(&mut self) -> Option<(&'static str, &[u8])> {
        None
    }

    /// What observers (transcripts) are shown of a request this transport sent: the bytes
    /// themselves, unless the transport knows where secrets sit in them (HTTP: a token in the
    /// query, the `Authorization` header).
    fn shown<'a>(&self, sent: &'a [u8]) -> Cow<'a, [u8]> {
        Cow::Borrowed(sent)
    }

    /// Whether an unanswered request is sent again now: on datagram transports, unless
    /// the link has moved on to a stream ([`UdpThenHttp`]).
    fn resends(&self) -> bool {
        Self::DATAGRAMS
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

    async fn send(&mut self, bytes: &[u8], _until: Instant) -> Result<Sent, NetError> {
        UdpChannel::send_at(self, bytes).await.map(Some)
    }

    async fn send_pair(
        &mut self,
        first: &[u8],
        then: &[u8],
        _until: Instant,
    ) -> Result<Sent, NetError> {
        UdpChannel::send_pair(self, first, then).await.map(Some)
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match UdpChannel::recv_at(self, until).await {
            Ok((d, at)) => Ok(Recv::Bytes(d, Some(at))),
            Err(NetError::Timeout) => Ok(Recv::Timeout),
            Err(e) => Err(e),
        }
    }
}

/// TCP to one address; each [`Transport::connect`] opens a new connection (the legacy
/// Minecraft pings each need their own), and with a PROXY protocol version set, each
/// connection's first write starts with the header.
#[derive(Debug)]
pub struct TcpLink {
    addr: SocketAddr,
    stream: Option<TcpStream>,
    proxy: Option<ProxyProtocol>,
    /// The current connection's PROXY header (empty without one).
    header: Vec<u8>,
    header_state: HeaderState,
}

/// Where the current connection's PROXY header is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HeaderState {
    /// None to send, or already shown to the observer.
    Done,
    /// Goes out with the connection's first request.
    Due,
    /// Went out with the last request; the driver has not asked for it yet.
    Sent,
}

impl TcpLink {
    pub fn new(addr: SocketAddr) -> TcpLink {
        TcpLink {
            addr,
            stream: None,
            proxy: None,
            header: Vec::new(),
            header_state: HeaderState::Done,
        }
    }

    /// Starts every connection with a PROXY protocol header of `version` (`None`: no header).
    pub fn with_proxy_header(mut self, version: Option<ProxyProtocol>) -> TcpLink {
        self.proxy = version;
        self
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
        self.header_state = HeaderState::Done;
        let stream = tcp::connect(self.addr, until).await?;
        if let Some(version) = self.proxy {
            // v1 names our end of this very connection, so the header is made per connection.
            self.header.clear();
            proxy_header::encode(version, stream.local_addr()?, self.addr, &mut self.header);
            self.header_state = HeaderState::Due;
        }
        self.stream = Some(stream);
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<Sent, NetError> {
        if self.header_state != HeaderState::Due {
            tcp::write_all(self.stream()?, bytes, until).await?;
            return Ok(None);
        }
        // One write, header and request together: the spec asks that the header be sent at
        // once, and one segment gives the receiver the whole header in its first read.
        let mut first = Vec::with_capacity(self.header.len() + bytes.len());
        first.extend_from_slice(&self.header);
        first.extend_from_slice(bytes);
        tcp::write_all(self.stream()?, &first, until).await?;
        self.header_state = HeaderState::Sent;
        Ok(None)
    }

    fn sent_preamble(&mut self) -> Option<(&'static str, &[u8])> {
        if self.header_state != HeaderState::Sent {
            return None;
        }
        self.header_state = HeaderState::Done;
        let what = match self.proxy? {
            ProxyProtocol::V1 => "PROXY protocol v1 header",
            ProxyProtocol::V2 => "PROXY protocol v2 header (LOCAL)",
        };
        Some((what, &self.header))
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match tcp::read_chunk(self.stream()?, until).await {
            Ok(chunk) if chunk.is_empty() => Ok(Recv::Closed),
            Ok(chunk) => Ok(Recv::Bytes(chunk, None)),
            Err(NetError::Timeout) => Ok(Recv::Timeout),
            Err(e) => Err(e),
        }
    }
}

/// An HTTP API: each request the exchange writes goes out through hyper's client, and its
/// whole response comes back as one chunk (`protocol::http`'s message form).
impl Transport for HttpLink {
    const DATAGRAMS: bool = false;

    fn peer(&self) -> Option<SocketAddr> {
        Some(HttpLink::peer(self))
    }

    async fn connect(&mut self, until: Instant) -> Result<(), NetError> {
        HttpLink::connect(self, until).await
    }

    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<Sent, NetError> {
        HttpLink::send(self, bytes, until).await.map(|()| None)
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match HttpLink::recv(self, until).await? {
            Received::Response(bytes) => Ok(Recv::Bytes(bytes, None)),
            Received::Nothing => Ok(Recv::Closed),
            Received::Timeout => Ok(Recv::Timeout),
        }
    }

    fn shown<'a>(&self, sent: &'a [u8]) -> Cow<'a, [u8]> {
        Cow::Owned(crate::protocol::http::redact(sent))
    }
}

/// UDP first, then HTTP(S) to the same address once the exchange asks to connect
/// (`protocol::http::then::Then`): Satisfactory's HTTPS API after its Lightweight Query,
/// FiveM's `/players.json` after `getinfo`. Requests are resent only while on UDP.
#[derive(Debug)]
pub struct UdpThenHttp {
    udp: UdpChannel,
    http: HttpLink,
    on_http: bool,
}

impl UdpThenHttp {
    pub fn new(udp: UdpChannel, http: HttpLink) -> UdpThenHttp {
        UdpThenHttp {
            udp,
            http,
            on_http: false,
        }
    }
}

impl Transport for UdpThenHttp {
    const DATAGRAMS: bool = true;

    fn peer(&self) -> Option<SocketAddr> {
        Some(UdpChannel::peer(&self.udp))
    }

    async fn connect(&mut self, until: Instant) -> Result<(), NetError> {
        self.on_http = true;
        Transport::connect(&mut self.http, until).await
    }

    async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<Sent, NetError> {
        if self.on_http {
            Transport::send(&mut self.http, bytes, until).await
        } else {
            Transport::send(&mut self.udp, bytes, until).await
        }
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        if self.on_http {
            Transport::recv(&mut self.http, until).await
        } else {
            Transport::recv(&mut self.udp, until).await
        }
    }

    fn shown<'a>(&self, sent: &'a [u8]) -> Cow<'a, [u8]> {
        if self.on_http {
            self.http.shown(sent)
        } else {
            Cow::Borrowed(sent)
        }
    }

    fn resends(&self) -> bool {
        !self.on_http
    }
}
