//! A minimal HTTP/1.1 client for `--engine exporter`: one request per connection
//! (`Connection: close`), the reply read to its end, headers split off, a chunked body (the
//! exporter streams `/metrics` in chunks above 64 KiB) joined. Only ever talks to the
//! exporter child on 127.0.0.1, but still caps what it reads and times out every wait.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// More than any page this bench asks for (100,000 targets: ~70 MB plain).
const MAX_REPLY: u64 = 1 << 30;

pub struct Reply {
    pub status: u16,
    headers: Vec<(String, String)>,
    /// As sent: still gzip-compressed when the server compressed it; chunking removed.
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn bad(what: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.into())
}

/// Sends `method path` with `headers` and returns the whole reply. `timeout` bounds the
/// connect and every single read (not the whole transfer).
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    timeout: Duration,
) -> io::Result<Reply> {
    let mut s = TcpStream::connect_timeout(&addr, timeout)?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    let mut req = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nUser-Agent: load-bench\r\n"
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method == "POST" {
        req.push_str("Content-Length: 0\r\n");
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes())?;
    let mut raw = Vec::new();
    s.take(MAX_REPLY).read_to_end(&mut raw)?;
    parse(&raw)
}

fn parse(raw: &[u8]) -> io::Result<Reply> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| bad("no end of headers"))?;
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| bad("headers not UTF-8"))?;
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|c| c.parse::<u16>().ok())
        .ok_or_else(|| bad("no status line"))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut reply = Reply {
        status,
        headers,
        body: Vec::new(),
    };
    let rest = &raw[end + 4..];
    reply.body = if reply
        .header("transfer-encoding")
        .is_some_and(|v| v.eq_ignore_ascii_case("chunked"))
    {
        dechunk(rest)?
    } else {
        rest.to_vec()
    };
    Ok(reply)
}

/// Joins a chunked body: `SIZE[;ext]\r\n DATA \r\n ... 0\r\n\r\n`; a body cut short is an
/// error (the exporter cuts a stalled stream, which must not pass for a page).
fn dechunk(mut b: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(b.len());
    loop {
        let eol = b
            .windows(2)
            .position(|w| w == b"\r\n")
            .ok_or_else(|| bad("chunk size line cut short"))?;
        let line = std::str::from_utf8(&b[..eol]).map_err(|_| bad("chunk size not text"))?;
        let size = line.split(';').next().unwrap_or("").trim();
        let size = usize::from_str_radix(size, 16).map_err(|_| bad("chunk size not hex"))?;
        b = &b[eol + 2..];
        if size == 0 {
            return Ok(out);
        }
        if b.len() < size + 2 {
            return Err(bad("chunk cut short"));
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size + 2..];
    }
}
