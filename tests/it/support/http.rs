//! A minimal HTTP/1.1 client for integration tests: one request with `Connection: close`,
//! read to the end, over any stream (plain TCP or TLS), and chunked bodies undone.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    pub fn text(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap()
    }

    /// The body with chunked transfer encoding undone, if it was sent chunked (a page larger
    /// than one chunk is streamed while it is rendered).
    pub fn decoded(&self) -> Vec<u8> {
        match self.header("transfer-encoding") {
            Some(te) if te.eq_ignore_ascii_case("chunked") => dechunk(&self.body).0,
            _ => self.body.clone(),
        }
    }
}

/// One request on `s`, read to the end (at most 20 s). `None` if no HTTP reply came
/// (handshake refused, connection closed).
pub async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    s: S,
    method: &str,
    path: &str,
    extra: &str,
) -> Option<Reply> {
    let req = format!("{method} {path} HTTP/1.1\r\nHost: x\r\n{extra}Connection: close\r\n\r\n");
    send(s, req.as_bytes()).await
}

/// Sends `req` as it is (malformed requests included) and reads the reply to the end (at
/// most 20 s). `None` if no HTTP reply came.
pub async fn send<S: AsyncRead + AsyncWrite + Unpin>(mut s: S, req: &[u8]) -> Option<Reply> {
    // A server may answer and close before reading all of a request it refuses: read
    // whatever came.
    let _ = s.write_all(req).await;
    let mut buf = Vec::new();
    // A TLS peer that closes without close_notify ends in an error after the data; keep what
    // arrived.
    let _ = tokio::time::timeout(Duration::from_secs(20), s.read_to_end(&mut buf))
        .await
        .expect("reply or close in time");
    let end = buf.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8(buf[..end].to_vec()).ok()?;
    let status = head.get(9..12)?.parse().ok()?;
    Some(Reply {
        status,
        head,
        body: buf[end + 4..].to_vec(),
    })
}

/// One request over plain TCP; `None` also when the connection is refused.
pub async fn plain(addr: SocketAddr, method: &str, path: &str, extra: &str) -> Option<Reply> {
    exchange(TcpStream::connect(addr).await.ok()?, method, path, extra).await
}

/// One request over plain TCP that must be answered (it panics otherwise).
pub async fn request(addr: SocketAddr, method: &str, path: &str, extra: &str) -> Reply {
    plain(addr, method, path, extra)
        .await
        .expect("an HTTP reply")
}

/// A GET over plain TCP that must be answered.
pub async fn get(addr: SocketAddr, path: &str) -> Reply {
    request(addr, "GET", path, "").await
}

/// A reply with its body as text (as it came: chunks not undone), for suites that search
/// bodies as strings.
#[derive(Debug)]
pub struct Text {
    pub status: u16,
    pub head: String,
    pub body: String,
}

/// [`request`], the body as text.
pub async fn request_text(addr: SocketAddr, method: &str, path: &str, extra: &str) -> Text {
    let r = request(addr, method, path, extra).await;
    Text {
        status: r.status,
        body: r.text().to_string(),
        head: r.head,
    }
}

/// A GET over plain TCP that must answer 200: the body as text.
pub async fn get_ok(addr: SocketAddr, path: &str) -> String {
    let reply = plain(addr, "GET", path, "").await.expect("an HTTP reply");
    assert_eq!(reply.status, 200, "GET {path}: {}", reply.head);
    String::from_utf8(reply.decoded()).unwrap()
}

/// Raw bytes over plain TCP (see [`send`]).
pub async fn raw(addr: SocketAddr, req: &[u8]) -> Option<Reply> {
    send(TcpStream::connect(addr).await.unwrap(), req).await
}

/// [`plain`] for tests without a runtime of their own.
pub fn blocking(addr: SocketAddr, method: &str, path: &str, extra: &str) -> Option<Reply> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(plain(addr, method, path, extra))
}

/// Undoes chunked transfer encoding: the body and how many chunks it came in. Panics unless
/// the body ends with the last chunk (a page cut short must not pass for a whole one).
pub fn dechunk(mut b: &[u8]) -> (Vec<u8>, usize) {
    let (mut out, mut chunks) = (Vec::new(), 0);
    loop {
        let eol = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .expect("chunk size line");
        let size = std::str::from_utf8(&b[..eol]).unwrap();
        let size = usize::from_str_radix(size.split(';').next().unwrap().trim(), 16).unwrap();
        b = &b[eol + 2..];
        if size == 0 {
            assert_eq!(b, b"\r\n", "trailer after the last chunk");
            return (out, chunks);
        }
        out.extend_from_slice(&b[..size]);
        assert_eq!(&b[size..size + 2], b"\r\n");
        b = &b[size + 2..];
        chunks += 1;
    }
}
