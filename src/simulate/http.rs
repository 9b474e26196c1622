//! A small HTTP/1.1 server for the simulated REST APIs (TShock, Palworld): keep-alive,
//! `Content-Length` bodies, optional TLS, and the misbehaviours real APIs and the proxies in
//! front of them show (a body dripped a byte at a time, a wrong content type, a huge body,
//! junk instead of JSON, refusals and rate limits are the handlers' to choose).
//!
//! Written by hand rather than on hyper's server so that a reply can be broken in ways a
//! correct server library would not allow.

use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;

use super::hostile::{Hostile, Start};
use super::tcp::serve_on;
use super::SimServer;

/// Bytes a request head may take before the connection is dropped.
const MAX_HEAD: usize = 16 * 1024;
/// Requests one connection may make.
const MAX_REQUESTS: usize = 16;

/// One request, as a handler sees it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimRequest {
    pub method: String,
    pub path: String,
    /// Query parameters, still percent-encoded.
    pub query: Vec<(String, String)>,
    /// The `Authorization` header's value.
    pub authorization: Option<String>,
    /// The body (at most the head's cap; the APIs taking one read a small JSON object).
    pub body: Vec<u8>,
}

impl SimRequest {
    /// The first value of query parameter `name`, percent-decoded.
    pub fn param(&self, name: &str) -> Option<String> {
        let raw = self.query.iter().find(|(k, _)| k == name)?.1.as_str();
        Some(percent_decode(raw))
    }
}

/// What to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimReply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Writes the body one byte per interval.
    pub drip: Option<Duration>,
    /// Extra header lines (`Retry-After: 10`, `WWW-Authenticate: Basic`).
    pub headers: Vec<String>,
    /// How the body is framed: honestly, or in the ways a broken server frames it.
    pub framing: Framing,
}

/// How a reply's body is delimited on the wire.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Framing {
    /// `Content-Length` is the body's length.
    #[default]
    Exact,
    /// `Content-Length` claims this many bytes more than the body has; the connection is
    /// closed after the body (a server that miscounts, or dies mid-answer).
    ClaimsMore(usize),
    /// Chunked, and the body repeated for ever: a page that never ends.
    Endless,
}

impl SimReply {
    pub fn json(body: impl Into<Vec<u8>>) -> SimReply {
        SimReply {
            status: 200,
            content_type: "application/json; charset=utf-8",
            body: body.into(),
            drip: None,
            headers: Vec::new(),
            framing: Framing::Exact,
        }
    }

    pub fn status(status: u16) -> SimReply {
        SimReply {
            status,
            content_type: "text/plain",
            body: Vec::new(),
            drip: None,
            headers: Vec::new(),
            framing: Framing::Exact,
        }
    }
}

/// Answers every request through `handler`, on 127.0.0.1 port 0; over TLS when a server
/// configuration is given.
pub async fn spawn<H>(tls: Option<Arc<rustls::ServerConfig>>, handler: H) -> io::Result<SimServer>
where
    H: Fn(&SimRequest) -> SimReply + Send + Sync + 'static,
{
    spawn_on(TcpListener::bind("127.0.0.1:0").await?, tls, handler)
}

/// As [`spawn`], on a listener already bound (Satisfactory's API shares its port number
/// with the UDP query).
pub fn spawn_on<H>(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    handler: H,
) -> io::Result<SimServer>
where
    H: Fn(&SimRequest) -> SimReply + Send + Sync + 'static,
{
    let handler = Arc::new(handler);
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    serve_on(listener, move |stream, _| {
        let handler = handler.clone();
        let acceptor = acceptor.clone();
        async move {
            match acceptor {
                None => serve(stream, &*handler).await,
                Some(acceptor) => {
                    if let Ok(stream) = acceptor.accept(stream).await {
                        serve(stream, &*handler).await;
                    }
                }
            }
        }
    })
}

/// How a simulated REST API (Palworld's, TShock's) misbehaves: the ways hosted APIs and the
/// proxies in front of them go wrong. Each simulator re-exports it as its `Misbehaviour`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ApiMisbehaviour {
    #[default]
    None,
    /// Junk where the JSON should be.
    BadJson,
    /// A 2 MB JSON body (a valid one: only the size cap can stop it).
    Huge,
    /// The body one byte every 200 ms.
    Drip,
    /// An HTML page (a proxy's login, error or maintenance page) with status 200.
    WrongContentType,
    /// HTTP 429 for every request.
    RateLimited,
    /// A redirect to another host (never followed).
    Redirect,
}

/// The hostile servers every REST API simulator has, from how it starts with a
/// misbehaviour: healthy (`ok`, on the fleet's world: two players, 24 slots), then one per
/// [`ApiMisbehaviour`]. The simulator adds its own (a refused credential) after them.
pub fn api_hostile(with: impl Fn(ApiMisbehaviour) -> Start) -> Vec<Hostile> {
    use ApiMisbehaviour as M;
    vec![
        Hostile::up("ok", 2, 24, None, with(M::None)),
        Hostile::down("bad-json", "malformed", with(M::BadJson)),
        Hostile::down("huge", "too_large", with(M::Huge)).heavy(),
        Hostile::down("drip", "timeout", with(M::Drip)),
        Hostile::down("html", "malformed", with(M::WrongContentType)),
        Hostile::down("rate-limited", "refused", with(M::RateLimited)),
        Hostile::down("redirect", "malformed", with(M::Redirect)),
    ]
}

async fn serve<S, H>(mut stream: S, handler: &H)
where
    S: AsyncRead + AsyncWrite + Unpin,
    H: Fn(&SimRequest) -> SimReply,
{
    let mut buf = Vec::new();
    for _ in 0..MAX_REQUESTS {
        let Some((req, close)) = read_request(&mut stream, &mut buf).await else {
            return;
        };
        let reply = handler(&req);
        // A reply framed dishonestly leaves the connection unusable: close it.
        let close = close || reply.framing != Framing::Exact;
        if write_reply(&mut stream, &reply, close).await.is_err() || close {
            return;
        }
    }
}

/// Reads one request head (bodies are not used by the simulated APIs and are skipped by
/// their `Content-Length`); `None` when the peer closed or sent junk.
async fn read_request<S: AsyncRead + Unpin>(
    stream: &mut S,
    buf: &mut Vec<u8>,
) -> Option<(SimRequest, bool)> {
    let end = loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break end;
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    buf.drain(..end + 4);
    let mut lines = head.split("\r\n");
    let mut parts = lines.next()?.split(' ');
    let method = parts.next()?.to_string();
    let target = parts.next()?;
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let query = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (k.to_string(), v.to_string())
        })
        .collect();
    let mut req = SimRequest {
        method,
        path: path.to_string(),
        query,
        authorization: None,
        body: Vec::new(),
    };
    let mut close = false;
    let mut body_len = 0usize;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.trim().to_ascii_lowercase().as_str() {
            "authorization" => req.authorization = Some(value.to_string()),
            "connection" => close = value.eq_ignore_ascii_case("close"),
            "content-length" => body_len = value.parse().unwrap_or(0),
            _ => {}
        }
    }
    // Keep a body up to the head's cap (a longer one is cut there).
    while buf.len() < body_len.min(MAX_HEAD) {
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    req.body = buf.drain(..body_len.min(buf.len())).collect();
    Some((req, close))
}

async fn write_reply<S: AsyncWrite + Unpin>(
    stream: &mut S,
    reply: &SimReply,
    close: bool,
) -> io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\n",
        reply.status,
        reason(reply.status),
        reply.content_type,
    );
    match reply.framing {
        Framing::Exact => head.push_str(&format!("Content-Length: {}\r\n", reply.body.len())),
        Framing::ClaimsMore(n) => {
            head.push_str(&format!("Content-Length: {}\r\n", reply.body.len() + n))
        }
        Framing::Endless => head.push_str("Transfer-Encoding: chunked\r\n"),
    }
    for h in &reply.headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    if close {
        head.push_str("Connection: close\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    if reply.framing == Framing::Endless {
        // Until the client hangs up (a write fails).
        let piece = if reply.body.is_empty() {
            &b" "[..]
        } else {
            &reply.body
        };
        let chunk = [format!("{:x}\r\n", piece.len()).as_bytes(), piece, b"\r\n"].concat();
        loop {
            stream.write_all(&chunk).await?;
        }
    }
    match reply.drip {
        None => stream.write_all(&reply.body).await?,
        Some(every) => {
            for b in &reply.body {
                stream.write_all(&[*b]).await?;
                stream.flush().await?;
                tokio::time::sleep(every).await;
            }
        }
    }
    stream.flush().await
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        302 => "Found",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| char::from(c).to_digit(16);
        match (
            b[i],
            b.get(i + 1).copied().and_then(hex),
            b.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push((h * 16 + l) as u8);
                i += 3;
            }
            (b'+', _, _) => {
                out.push(b' ');
                i += 1;
            }
            (c, _, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
