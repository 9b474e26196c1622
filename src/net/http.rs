//! The HTTP(S) client link: hyper's HTTP/1.1 client connection over a TCP stream or
//! tokio-rustls, one connection per poll, every wait under the caller's deadline, the body
//! capped while it streams, redirects never followed (a 3xx is handed over like any answer).
//!
//! It speaks the message form of `protocol::http`: a request written there is read back
//! ([`decode_request`]), sent with `Host` and `Content-Length` added, and the response is
//! handed over as one chunk in the same form (status line, headers, de-chunked body). What the
//! bytes mean is the exchange's.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::client::conn::http1::{self, SendRequest};
use hyper_util::rt::TokioIo;
use rustls::pki_types::ServerName;
use tokio::task::AbortHandle;
use tokio::time::Instant;

use super::{tcp, tls, NetError};
use crate::protocol::http::{decode_request, encode_response};
use crate::protocol::DecodeError;
use crate::target::Tls;

type Pending = Pin<Box<dyn Future<Output = Result<Vec<u8>, NetError>> + Send>>;

/// One server's HTTP API, over one connection per poll.
pub struct HttpLink {
    addr: SocketAddr,
    /// The host name as configured: `Host` header and TLS server name.
    host: Arc<str>,
    tls: Tls,
    /// Bytes a response body may take.
    cap: usize,
    sender: Option<SendRequest<Full<Bytes>>>,
    /// The task driving the connection; aborted with the link.
    conn: Option<AbortHandle>,
    /// The response to the last request, until it has been handed over.
    pending: Option<Pending>,
}

impl std::fmt::Debug for HttpLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpLink")
            .field("addr", &self.addr)
            .field("tls", &self.tls.enabled())
            .finish_non_exhaustive()
    }
}

impl HttpLink {
    pub fn new(addr: SocketAddr, host: Arc<str>, tls: Tls, cap: usize) -> HttpLink {
        HttpLink {
            addr,
            host,
            tls,
            cap,
            sender: None,
            conn: None,
            pending: None,
        }
    }

    pub fn peer(&self) -> SocketAddr {
        self.addr
    }

    /// Opens the connection (TCP, TLS if configured, HTTP/1.1), giving up at `until`.
    pub async fn connect(&mut self, until: Instant) -> Result<(), NetError> {
        self.close();
        let stream = tcp::connect(self.addr, until).await?;
        // Response heads share the reply cap; hyper wants at least 8 KiB of buffer.
        let mut builder = http1::Builder::new();
        builder.max_buf_size(self.cap.clamp(8192, 1 << 20));
        let (sender, conn) = match tls::client_config(&self.tls) {
            None => {
                let (sender, conn) = within(until, builder.handshake(TokioIo::new(stream)))
                    .await?
                    .map_err(hyper_error)?;
                (sender, tokio::spawn(async move { drop(conn.await) }))
            }
            Some(config) => {
                let name = server_name(&self.host)?;
                let connector = tokio_rustls::TlsConnector::from(config);
                let stream = within(until, connector.connect(name, stream)).await??;
                let (sender, conn) = within(until, builder.handshake(TokioIo::new(stream)))
                    .await?
                    .map_err(hyper_error)?;
                (sender, tokio::spawn(async move { drop(conn.await) }))
            }
        };
        self.sender = Some(sender);
        self.conn = Some(conn.abort_handle());
        Ok(())
    }

    /// Sends a request written by `protocol::http::encode_request`; its response is
    /// awaited by [`HttpLink::recv`]. Reconnects once if the server closed the connection
    /// after the last answer.
    pub async fn send(&mut self, bytes: &[u8], until: Instant) -> Result<(), NetError> {
        let head = decode_request(bytes)?;
        let mut req = hyper::Request::builder()
            .method(head.method)
            .uri(head.target)
            .header(
                hyper::header::HOST,
                host_header(&self.host, self.addr.port()),
            );
        for (name, value) in &head.headers {
            req = req.header(*name, *value);
        }
        let req = req
            .body(Full::new(Bytes::copy_from_slice(head.body)))
            .map_err(|_| DecodeError::Invalid("HTTP request"))?;
        if self.sender.as_ref().is_none_or(SendRequest::is_closed) {
            self.connect(until).await?;
        }
        let sender = self
            .sender
            .as_mut()
            .ok_or(NetError::Closed { received: 0 })?;
        within(until, sender.ready()).await?.map_err(hyper_error)?;
        let response = sender.send_request(req);
        let cap = self.cap;
        self.pending = Some(Box::pin(async move {
            let response = response.await.map_err(hyper_error)?;
            read_capped(response, cap).await
        }));
        Ok(())
    }

    /// The whole response to the last request, waiting until `until` (see [`Received`]).
    pub async fn recv(&mut self, until: Instant) -> Result<Received, NetError> {
        let Some(pending) = self.pending.as_mut() else {
            return Ok(Received::Nothing);
        };
        match tokio::time::timeout_at(until, pending).await {
            Ok(result) => {
                self.pending = None;
                result.map(Received::Response)
            }
            Err(_) => Ok(Received::Timeout),
        }
    }

    fn close(&mut self) {
        self.sender = None;
        self.pending = None;
        if let Some(conn) = self.conn.take() {
            conn.abort();
        }
    }
}

/// What [`HttpLink::recv`] produced.
#[derive(Debug)]
pub enum Received {
    /// The whole response, in `protocol::http`'s message form.
    Response(Vec<u8>),
    /// No request is waiting for an answer.
    Nothing,
    /// The instant passed first; the response is still awaited.
    Timeout,
}

impl Drop for HttpLink {
    fn drop(&mut self) {
        self.close();
    }
}

/// Reads the body under `cap` (a `Content-Length` above it is refused before a byte of the
/// body is read) and writes the response in message form.
async fn read_capped(response: hyper::Response<Incoming>, cap: usize) -> Result<Vec<u8>, NetError> {
    let (parts, mut body) = response.into_parts();
    let announced = parts
        .headers
        .get(hyper::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if announced.is_some_and(|n| n > cap as u64) {
        return Err(NetError::TooLarge { limit: cap });
    }
    let mut data = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(chunk) = frame.map_err(|e| body_error(e, data.len()))?.into_data() else {
            continue; // trailers
        };
        if data.len() + chunk.len() > cap {
            return Err(NetError::TooLarge { limit: cap });
        }
        data.extend_from_slice(&chunk);
    }
    let mut out = Vec::with_capacity(data.len() + 256);
    let headers = parts
        .headers
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()));
    encode_response(parts.status.as_u16(), headers, &data, &mut out);
    Ok(out)
}

/// `fut`, or a timeout at `until`.
async fn within<T>(until: Instant, fut: impl Future<Output = T>) -> Result<T, NetError> {
    tokio::time::timeout_at(until, fut)
        .await
        .map_err(|_| NetError::Timeout)
}

/// hyper's errors as link errors: a connection ended mid-answer is `Closed`; the rest keep
/// hyper's text (which never holds the request).
fn hyper_error(e: hyper::Error) -> NetError {
    if e.is_incomplete_message() || e.is_canceled() {
        return NetError::Closed { received: 0 };
    }
    if e.is_timeout() {
        return NetError::Timeout;
    }
    if e.is_parse() || e.is_parse_status() {
        return NetError::Decode(DecodeError::Invalid("HTTP response"));
    }
    NetError::Io(Arc::new(io::Error::other(e.to_string())))
}

/// An error while the body streams: the connection ending before the body did (a
/// `Content-Length` larger than what came, a chunked body cut off) is `Closed` with what had
/// come, as an answer cut short before its body is; anything else as [`hyper_error`].
fn body_error(e: hyper::Error, received: usize) -> NetError {
    let mut source = std::error::Error::source(&e);
    while let Some(s) = source {
        if s.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::UnexpectedEof)
        {
            return NetError::Closed { received };
        }
        source = s.source();
    }
    hyper_error(e)
}

/// The TLS server name: the configured host (an IP literal as itself).
fn server_name(host: &str) -> Result<ServerName<'static>, NetError> {
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return Ok(ServerName::IpAddress(ip.into()));
    }
    ServerName::try_from(host.to_string())
        .map_err(|_| NetError::Decode(DecodeError::Invalid("TLS server name")))
}

/// `Host: name:port` (IPv6 literals in brackets).
fn host_header(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
