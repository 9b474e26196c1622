//! gzip for scrapes: `Accept-Encoding` negotiation (RFC 9110 §12.5.3) and the one wrapper the
//! HTTP layer puts around every response it builds, so `/metrics` and `/probe` (and the rest)
//! are compressed wherever their handlers live.
//!
//! Prometheus sends `Accept-Encoding: gzip`; curl and browsers without it get plain text as
//! before. A `Vary: Accept-Encoding` goes on every answer, compressed or not, so a cache in
//! between never hands a gzip body to a client that did not ask for one.

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;
use hyper::header::{HeaderMap, HeaderValue, ACCEPT_ENCODING, CONTENT_ENCODING, VARY};

/// Level 1 (fastest): at 10,000 targets it cuts the 7.1 MB page to 310 kB (4.4 %) in about
/// 20 ms; level 6 gets to 270 kB in about 200 ms and level 9 to the same in over 400 ms
/// (`cargo bench --bench codecs -- gzip_10000`; figures in benches/RESULTS.md).
pub const LEVEL: u32 = 1;

/// True if the request's `Accept-Encoding` headers allow gzip: an explicit `gzip` (or its
/// alias `x-gzip`) with a non-zero q-value, or else a `*` with a non-zero q-value. An
/// unreadable q-value counts as 0: plain text is always acceptable, a guess is not.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    let mut explicit: Option<bool> = None;
    let mut star: Option<bool> = None;
    for value in headers.get_all(ACCEPT_ENCODING) {
        let Ok(value) = value.to_str() else { continue };
        for item in value.split(',') {
            let mut parts = item.split(';');
            let coding = parts.next().unwrap_or("").trim();
            let mut q = Some(1000);
            for param in parts {
                let Some((k, v)) = param.split_once('=') else {
                    continue;
                };
                if k.trim().eq_ignore_ascii_case("q") {
                    q = qvalue(v.trim());
                }
            }
            let ok = q.is_some_and(|q| q > 0);
            if coding.eq_ignore_ascii_case("gzip") || coding.eq_ignore_ascii_case("x-gzip") {
                // Two entries for gzip: any refusal wins.
                explicit = Some(explicit.unwrap_or(true) && ok);
            } else if coding == "*" {
                star = Some(star.unwrap_or(true) && ok);
            }
        }
    }
    explicit.or(star).unwrap_or(false)
}

/// A q-value in thousandths: `0`, `1`, `0.5`, `1.000`... (RFC 9110 §12.4.2: at most three
/// decimals, at most 1); anything else is `None`.
fn qvalue(s: &str) -> Option<u16> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let milli = match int {
        "0" => frac
            .bytes()
            .chain(std::iter::repeat(b'0'))
            .take(3)
            .fold(0u16, |acc, b| acc * 10 + u16::from(b - b'0')),
        "1" if frac.bytes().all(|b| b == b'0') => 1000,
        _ => return None,
    };
    Some(milli)
}

/// gzip of `body` at [`LEVEL`].
pub fn compress(body: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut enc = GzEncoder::new(
        Vec::with_capacity(body.len() / 8 + 64),
        Compression::new(LEVEL),
    );
    enc.write_all(body)?;
    enc.finish()
}

/// A gzip writer at [`LEVEL`] around `sink`, for a body produced piece by piece (`/metrics`
/// renders into it while it is sent, so neither the plain page nor its gzip exists whole);
/// [`GzEncoder::finish`] writes the trailer.
pub fn writer<W: Write>(sink: W) -> GzEncoder<W> {
    GzEncoder::new(sink, Compression::new(LEVEL))
}

/// Marks a response whose body a handler already compressed, so [`encode`] is not applied
/// again on the way out.
pub fn mark(headers: &mut HeaderMap) {
    headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
}

/// Whether a handler already compressed this response.
pub fn is_marked(headers: &HeaderMap) -> bool {
    headers.contains_key(CONTENT_ENCODING)
}

/// Marks a response as depending on `Accept-Encoding`; every answer gets it, compressed or
/// not.
pub fn vary(headers: &mut HeaderMap) {
    headers.append(VARY, HeaderValue::from_static("Accept-Encoding"));
}

/// The gzip of `body`, with `Content-Encoding: gzip` set in `headers`. Compression cannot
/// really fail on a `Vec`; if it did, `None` sends the plain body unmarked, which is still a
/// correct answer.
pub fn encode(headers: &mut HeaderMap, body: &[u8]) -> Option<Vec<u8>> {
    match compress(body) {
        Ok(z) => {
            headers.insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            Some(z)
        }
        Err(e) => {
            tracing::warn!(error = %e, "gzip failed; answering uncompressed");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn accepts(values: &[&str]) -> bool {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
        }
        accepts_gzip(&h)
    }

    /// What Prometheus, curl --compressed and browsers send, and the refusals.
    #[test]
    fn negotiation() {
        assert!(!accepts(&[]));
        assert!(accepts(&["gzip"]));
        assert!(accepts(&["GZip"]));
        assert!(accepts(&["x-gzip"]));
        assert!(accepts(&["deflate, gzip, br"]));
        assert!(accepts(&["gzip;q=0.5"]));
        assert!(accepts(&["gzip ; q=0.001"]));
        assert!(accepts(&["identity", "gzip"]));
        assert!(!accepts(&["identity"]));
        assert!(!accepts(&["deflate, br"]));
        assert!(!accepts(&["gzip;q=0"]));
        assert!(!accepts(&["gzip;q=0.000"]));
        assert!(!accepts(&["gzip;Q=0"]));
        assert!(!accepts(&["gzip;q=banana"]));
        assert!(!accepts(&["gzip;q=1.5"]));
        assert!(!accepts(&["gzip;q=0.0001"]));
        assert!(accepts(&["*"]));
        assert!(!accepts(&["*;q=0"]));
        // An explicit entry beats the wildcard, both ways.
        assert!(!accepts(&["*, gzip;q=0"]));
        assert!(accepts(&["*;q=0, gzip"]));
        assert!(!accepts(&["gzip", "gzip;q=0"]));
        assert!(!accepts(&["gzipx"]));
    }

    #[test]
    fn qvalues() {
        assert_eq!(qvalue("0"), Some(0));
        assert_eq!(qvalue("0.5"), Some(500));
        assert_eq!(qvalue("0.05"), Some(50));
        assert_eq!(qvalue("0.123"), Some(123));
        assert_eq!(qvalue("1"), Some(1000));
        assert_eq!(qvalue("1.000"), Some(1000));
        assert_eq!(qvalue("1.001"), None);
        assert_eq!(qvalue(""), None);
        assert_eq!(qvalue("."), None);
        assert_eq!(qvalue("-0"), None);
    }

    proptest::proptest! {
        /// Any header bytes: no panic, and a refusal of gzip is never overridden.
        #[test]
        fn arbitrary_accept_encoding(v in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
            if let Ok(value) = HeaderValue::from_bytes(&v) {
                let mut h = HeaderMap::new();
                h.append(ACCEPT_ENCODING, value);
                let _ = accepts_gzip(&h);
                h.append(ACCEPT_ENCODING, HeaderValue::from_static("gzip;q=0"));
                proptest::prop_assert!(!accepts_gzip(&h));
            }
        }
    }

    /// The gzip body inflates to the plain one, and both headers are set.
    #[test]
    fn round_trip() {
        let plain = "gameserver_up{target=\"a\"} 1\n".repeat(1000).into_bytes();
        let mut h = HeaderMap::new();
        vary(&mut h);
        let z = encode(&mut h, &plain).unwrap();
        assert!(z.len() < plain.len() / 10, "{} bytes", z.len());
        assert_eq!(h[CONTENT_ENCODING], "gzip");
        assert_eq!(h[VARY], "Accept-Encoding");
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&z[..])
            .read_to_end(&mut back)
            .unwrap();
        assert_eq!(back, plain);
    }
}
