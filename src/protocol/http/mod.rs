//! HTTP APIs, sans-IO: the request an exchange writes and the response it reads, as plain
//! HTTP/1.1 message bytes, and the checks every JSON API shares.
//!
//! The exchange never touches hyper: it writes a request head (method, origin-form target,
//! its own headers) and body into the driver's `out` buffer with [`encode_request`]; the
//! daemon's HTTP link (`net::http`) reads it back with [`decode_request`], adds `Host` and
//! `Content-Length`, sends it with hyper's client and hands the exchange the whole response
//! as one chunk in the same message form ([`encode_response`]: status line, headers as they
//! came, the body already de-chunked and capped). So the exchange is tested and fuzzed on
//! bytes alone, and a transcript (`/probe?debug=true`) shows the request line and the
//! response as an operator knows them, with secrets cut out by [`redact`].
//!
//! - [`fetch`]: the exchange for an API of one or more GETs/POSTs over one connection.
//! - [`then`]: a datagram exchange followed by an API on the same address (Satisfactory's
//!   HTTPS API, FiveM's `/players.json`).

pub mod fetch;
pub mod page;
pub mod then;

use crate::protocol::exchange::Error;
use crate::protocol::DecodeError;

/// Headers a response may carry before it is refused (hyper allows 100).
pub const MAX_HEADERS: usize = 128;

/// Query parameters whose value is a secret (TShock's `token`): masked in transcripts.
const SECRET_PARAMS: [&str; 5] = ["token", "password", "apikey", "api_key", "code"];
/// Headers whose value is a secret: masked in transcripts.
const SECRET_HEADERS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "x-api-key",
];

/// Writes a request: `METHOD target HTTP/1.1`, the headers, a blank line, the body. The
/// link adds `Host` and `Content-Length`. `target` is origin-form (`/path?query`).
pub fn encode_request(
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    out: &mut Vec<u8>,
) {
    out.clear();
    out.extend_from_slice(method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(target.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
}

/// A request as [`encode_request`] wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestHead<'a> {
    pub method: &'a str,
    pub target: &'a str,
    pub headers: Vec<(&'a str, &'a str)>,
    pub body: &'a [u8],
}

/// Reads back a request written by [`encode_request`].
pub fn decode_request(bytes: &[u8]) -> Result<RequestHead<'_>, DecodeError> {
    let (head, body) = split_head(bytes)?;
    let head = std::str::from_utf8(head).map_err(|_| DecodeError::Invalid("request head"))?;
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(target), Some("HTTP/1.1"), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(DecodeError::Invalid("request line"));
    };
    if method.is_empty() || !target.starts_with('/') {
        return Err(DecodeError::Invalid("request line"));
    }
    let mut headers = Vec::new();
    for line in lines {
        let (name, value) = line
            .split_once(": ")
            .ok_or(DecodeError::Invalid("request header"))?;
        headers.push((name, value));
    }
    Ok(RequestHead {
        method,
        target,
        headers,
        body,
    })
}

/// A response as the link hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response<'a> {
    pub status: u16,
    /// Names lower-cased (as hyper gives them), values as sent.
    pub headers: Vec<(&'a str, &'a [u8])>,
    pub body: &'a [u8],
}

impl Response<'_> {
    /// The first value of header `name` (lower-case).
    pub fn header(&self, name: &str) -> Option<&[u8]> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| *v)
    }

    /// The body of a successful JSON answer: status 200 and a JSON content type. Anything
    /// else is the typed failure it stands for ([`Error::HttpStatus`]: refused login, rate
    /// limit, a redirect we do not follow; [`Error::ContentType`]).
    pub fn json(&self) -> Result<&[u8], Error> {
        if self.status != 200 {
            return Err(Error::HttpStatus {
                status: self.status,
            });
        }
        let kind = self.header("content-type").unwrap_or_default();
        if !is_json(kind) {
            let shown = String::from_utf8_lossy(&kind[..kind.len().min(64)]).into_owned();
            return Err(Error::ContentType { found: shown });
        }
        Ok(self.body)
    }

    /// The body of a game server's own JSON page (Assetto Corsa's `/INFO`, Eco's
    /// `/frontpage`, ...): status 200, and any content type but HTML. Those servers write their
    /// HTTP by hand and label the JSON loosely (`text/plain`, or no type at all), so the type
    /// refuses only what is surely no answer of theirs, a web page (a panel's or proxy's login
    /// or error page, [`Error::ContentType`]); the JSON decoder refuses the rest.
    pub fn json_page(&self) -> Result<&[u8], Error> {
        if self.status != 200 {
            return Err(Error::HttpStatus {
                status: self.status,
            });
        }
        let kind = self.header("content-type").unwrap_or_default();
        if kind.windows(4).any(|w| w.eq_ignore_ascii_case(b"html")) {
            let shown = String::from_utf8_lossy(&kind[..kind.len().min(64)]).into_owned();
            return Err(Error::ContentType { found: shown });
        }
        Ok(self.body)
    }
}

/// `application/json` or `application/<something>+json`, parameters allowed.
fn is_json(content_type: &[u8]) -> bool {
    let essence = content_type
        .split(|b| *b == b';')
        .next()
        .unwrap_or_default()
        .trim_ascii()
        .to_ascii_lowercase();
    essence == b"application/json"
        || (essence.starts_with(b"application/") && essence.ends_with(b"+json"))
}

/// Writes a response in the form [`decode_response`] reads (the link's side; the
/// simulators' tests use it too).
pub fn encode_response<'a>(
    status: u16,
    headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
    body: &[u8],
    out: &mut Vec<u8>,
) {
    out.extend_from_slice(format!("HTTP/1.1 {status}\r\n").as_bytes());
    for (name, value) in headers {
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body);
}

/// Reads a response chunk from the link: `HTTP/1.1 NNN[ reason]`, headers, blank line, body
/// (everything after it).
pub fn decode_response(bytes: &[u8]) -> Result<Response<'_>, DecodeError> {
    let (head, body) = split_head(bytes)?;
    let mut lines = head
        .split(|b| *b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let line = lines.next().unwrap_or_default();
    let code = line
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| line.strip_prefix(b"HTTP/1.0 "))
        .ok_or(DecodeError::Invalid("status line"))?;
    let digits = code.get(..3).ok_or(DecodeError::Invalid("status code"))?;
    if !digits.iter().all(u8::is_ascii_digit) || code.get(3).is_some_and(|b| *b != b' ') {
        return Err(DecodeError::Invalid("status code"));
    }
    let status = digits
        .iter()
        .fold(0u16, |n, d| n * 10 + u16::from(d - b'0'));
    // Three digits, the first 1 to 5 (RFC 9110 section 15): "014" is no status.
    if !(100..=599).contains(&status) {
        return Err(DecodeError::Invalid("status code"));
    }
    let mut headers = Vec::new();
    for line in lines {
        if headers.len() == MAX_HEADERS {
            return Err(DecodeError::TooLarge {
                what: "header count",
                value: MAX_HEADERS as u64 + 1,
                limit: MAX_HEADERS as u64,
            });
        }
        let colon = line
            .iter()
            .position(|b| *b == b':')
            .ok_or(DecodeError::Invalid("header line"))?;
        let name =
            std::str::from_utf8(&line[..colon]).map_err(|_| DecodeError::Invalid("header name"))?;
        headers.push((name, line[colon + 1..].trim_ascii()));
    }
    Ok(Response {
        status,
        headers,
        body,
    })
}

/// The head (without its blank line) and the body.
fn split_head(bytes: &[u8]) -> Result<(&[u8], &[u8]), DecodeError> {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or(DecodeError::Truncated {
            offset: bytes.len(),
            needed: 4,
            available: 0,
        })?;
    Ok((&bytes[..end], &bytes[end + 4..]))
}

/// What a transcript shows of a request written by [`encode_request`]: the request line and
/// headers with secret query parameters and secret header values replaced by
/// `<redacted N bytes>`, and the body's size (API requests carry no secrets there, but they
/// are not worth showing either). Bytes that do not read as a request are shown as their
/// size only.
pub fn redact(request: &[u8]) -> Vec<u8> {
    let Ok(head) = decode_request(request) else {
        return format!("<{} bytes>", request.len()).into_bytes();
    };
    let mut out = String::new();
    out.push_str(head.method);
    out.push(' ');
    match head.target.split_once('?') {
        Some((path, query)) => {
            out.push_str(path);
            out.push('?');
            for (i, pair) in query.split('&').enumerate() {
                if i > 0 {
                    out.push('&');
                }
                match pair.split_once('=') {
                    Some((k, v)) if SECRET_PARAMS.iter().any(|s| k.eq_ignore_ascii_case(s)) => {
                        out.push_str(&format!("{k}=<redacted {} bytes>", v.len()));
                    }
                    _ => out.push_str(pair),
                }
            }
        }
        None => out.push_str(head.target),
    }
    out.push_str(" HTTP/1.1\r\n");
    for (name, value) in head.headers {
        if SECRET_HEADERS.iter().any(|s| name.eq_ignore_ascii_case(s)) {
            out.push_str(&format!("{name}: <redacted {} bytes>\r\n", value.len()));
        } else {
            out.push_str(&format!("{name}: {value}\r\n"));
        }
    }
    out.push_str("\r\n");
    if !head.body.is_empty() {
        out.push_str(&format!("<body: {} bytes>", head.body.len()));
    }
    out.into_bytes()
}

/// Appends `value` to a URL query, percent-encoding everything but unreserved characters.
pub fn push_query_value(out: &mut String, value: &str) {
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request reads back as written, and its transcript form hides the token and the
    /// Authorization header but keeps everything else.
    #[test]
    fn request_round_trip_and_redaction() {
        let mut out = Vec::new();
        encode_request(
            "GET",
            "/v2/server/status?players=true&token=s3cr%2Ft",
            &[
                ("Accept", "application/json"),
                ("Authorization", "Basic YWRtaW46cHc="),
            ],
            b"",
            &mut out,
        );
        let head = decode_request(&out).unwrap();
        assert_eq!(head.method, "GET");
        assert_eq!(head.target, "/v2/server/status?players=true&token=s3cr%2Ft");
        assert_eq!(head.headers[1], ("Authorization", "Basic YWRtaW46cHc="));
        let shown = String::from_utf8(redact(&out)).unwrap();
        assert_eq!(
            shown,
            "GET /v2/server/status?players=true&token=<redacted 8 bytes> HTTP/1.1\r\n\
             Accept: application/json\r\nAuthorization: <redacted 18 bytes>\r\n\r\n"
        );
        assert_eq!(redact(b"junk"), b"<4 bytes>");
    }

    /// A response reads back with its status, headers and body; a JSON check passes only
    /// for 200 and a JSON content type.
    #[test]
    fn response_and_json_checks() {
        let mut out = Vec::new();
        let headers: [(&str, &[u8]); 1] = [("content-type", b"application/json; charset=utf-8")];
        encode_response(200, headers, b"{}", &mut out);
        let r = decode_response(&out).unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(r.json().unwrap(), b"{}");
        let r = decode_response(b"HTTP/1.1 401 Unauthorized\r\n\r\n").unwrap();
        assert!(matches!(r.json(), Err(Error::HttpStatus { status: 401 })));
        let r = decode_response(b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n<x>").unwrap();
        assert!(matches!(r.json(), Err(Error::ContentType { found }) if found == "text/html"));
        let r = decode_response(b"HTTP/1.1 200\r\ncontent-type: application/problem+json\r\n\r\n")
            .unwrap();
        assert!(r.json().is_ok());
        // A game's own page: any type but HTML.
        for (kind, ok) in [
            ("text/plain", true),
            ("application/json", true),
            ("text/html; charset=utf-8", false),
            ("application/xhtml+xml", false),
        ] {
            let head = format!("HTTP/1.1 200 OK\r\ncontent-type: {kind}\r\n\r\n{{}}");
            let r = decode_response(head.as_bytes()).unwrap();
            assert_eq!(r.json_page().is_ok(), ok, "{kind}");
        }
        let r = decode_response(b"HTTP/1.1 200 OK\r\n\r\n{}").unwrap();
        assert_eq!(r.json_page().unwrap(), b"{}");
        let r = decode_response(b"HTTP/1.1 404 Not Found\r\n\r\n").unwrap();
        assert!(matches!(
            r.json_page(),
            Err(Error::HttpStatus { status: 404 })
        ));
        for bad in [
            &b"HTTP/1.1 20\r\n\r\n"[..],
            b"HTTP/2 200\r\n\r\n",
            b"HTTP/1.1 200",
            b"HTTP/1.1 2x0\r\n\r\n",
        ] {
            assert!(decode_response(bad).is_err(), "{bad:?}");
        }
    }

    /// Query values are percent-encoded, so a token cannot add parameters.
    #[test]
    fn query_values_encoded() {
        let mut s = String::new();
        push_query_value(&mut s, "a b&c=d/é");
        assert_eq!(s, "a%20b%26c%3Dd%2F%C3%A9");
    }
}
