//! What a server sends back is shown in `/probe?debug=true`, and a server may echo what it
//! was sent: a TeamSpeak refusal quoting the login line, a 404 page quoting the request URL's
//! `token=` or its `Authorization` header. Every secret a target holds is masked out of the
//! received bytes (same length, so a decoder's offsets still point at the right byte) and
//! out of every line of text, in each form it may have travelled in: raw, URL-encoded,
//! TeamSpeak-escaped, XML-escaped, base64 (alone and as Basic `user:password`) and hex.

use std::borrow::Cow;

use base64::Engine;

use crate::target::Credentials;

/// Shown where a secret was, in text lines.
const REDACTED: &str = "<redacted>";

/// Users a Basic header may pair a password with besides the configured one: Palworld's
/// fixed `admin`, TeamSpeak's default `serveradmin`.
const BASIC_USERS: [&str; 2] = ["admin", "serveradmin"];

/// The shortest prefix of a secret masked at the end of a chunk, in case the rest arrives in
/// the next one: one byte, so a secret dripped byte by byte never shows (an innocent last
/// byte shows as `*` now and then; the decoder sees the bytes as they came).
const MIN_SPLIT_PREFIX: usize = 1;

/// The secrets of one target in every form, and the tail of the last chunk received (a
/// secret may straddle two).
#[derive(Debug, Default)]
pub struct Scrub {
    needles: Vec<Vec<u8>>,
    carry: Vec<u8>,
}

impl Scrub {
    /// The forms of every secret `credentials` hold.
    pub fn new(credentials: &Credentials) -> Scrub {
        let secrets = [
            credentials.password.as_ref(),
            credentials.token.as_ref(),
            credentials.api_token.as_ref(),
            credentials.code.as_ref(),
            credentials.rcon.as_ref().map(|r| &r.password),
        ];
        let users: Vec<&str> = credentials
            .username
            .as_deref()
            .into_iter()
            .chain(BASIC_USERS)
            .collect();
        let mut needles = Vec::new();
        for secret in secrets.into_iter().flatten().map(|s| s.expose()) {
            if secret.is_empty() {
                continue;
            }
            needles.extend(forms(secret, &users));
        }
        needles.sort();
        needles.dedup();
        // Longest first, so a form containing another is masked whole.
        needles.sort_by_key(|n| std::cmp::Reverse(n.len()));
        Scrub {
            needles,
            carry: Vec::new(),
        }
    }

    /// `bytes` with every secret masked by `*`, including the part of one that began in the
    /// previous chunk, and a trailing part that may begin one.
    pub fn bytes<'a>(&mut self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        if self.needles.is_empty() {
            return Cow::Borrowed(bytes);
        }
        let mut joined = std::mem::take(&mut self.carry);
        let carried = joined.len();
        joined.extend_from_slice(bytes);
        let mut hide = vec![false; joined.len()];
        for needle in &self.needles {
            for at in find_all(&joined, needle) {
                hide[at..at + needle.len()]
                    .iter_mut()
                    .for_each(|h| *h = true);
            }
            // A secret's beginning at the very end: its rest may be in the next chunk.
            let longest = needle.len().saturating_sub(1).min(joined.len());
            for k in (MIN_SPLIT_PREFIX..=longest).rev() {
                if joined.ends_with(&needle[..k]) {
                    let end = joined.len();
                    hide[end - k..].iter_mut().for_each(|h| *h = true);
                    break;
                }
            }
        }
        let keep = self.needles.iter().map(Vec::len).max().unwrap_or(0);
        let tail = joined.len().saturating_sub(keep.saturating_sub(1));
        self.carry = joined[tail..].to_vec();
        if !hide[carried..].contains(&true) {
            return Cow::Borrowed(bytes);
        }
        let masked = bytes
            .iter()
            .zip(&hide[carried..])
            .map(|(&b, &h)| if h { b'*' } else { b })
            .collect();
        Cow::Owned(masked)
    }

    /// `text` with every secret replaced by `<redacted>`.
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for needle in &self.needles {
            let Ok(needle) = std::str::from_utf8(needle) else {
                continue;
            };
            if out.contains(needle) {
                out = Cow::Owned(out.replace(needle, REDACTED));
            }
        }
        out
    }
}

/// Every form `secret` may travel in.
fn forms(secret: &str, users: &[&str]) -> Vec<Vec<u8>> {
    let b64 = |s: &str| base64::engine::general_purpose::STANDARD.encode(s);
    let mut out = vec![
        secret.as_bytes().to_vec(),
        percent(secret, false).into_bytes(),
        percent(secret, false).to_ascii_lowercase().into_bytes(),
        percent(secret, true).into_bytes(),
        ts3_escaped(secret).into_bytes(),
        xml_escaped(secret).into_bytes(),
        b64(secret).into_bytes(),
        hex(secret, false).into_bytes(),
        hex(secret, true).into_bytes(),
    ];
    for user in users {
        out.push(b64(&format!("{user}:{secret}")).into_bytes());
    }
    out
}

/// RFC 3986 percent-encoding (unreserved characters kept); `plus`: a space as `+`, as HTML
/// forms write it.
fn percent(text: &str, plus: bool) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for &b in text.as_bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b))
            }
            b' ' if plus => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// TeamSpeak ServerQuery's escaping, as a login line carries the password.
fn ts3_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '/' => out.push_str("\\/"),
            ' ' => out.push_str("\\s"),
            '|' => out.push_str("\\p"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0c' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\x0b' => out.push_str("\\v"),
            c => out.push(c),
        }
    }
    out
}

/// XML's escaping of element text, as an XML-RPC call (GBXRemote's `Authenticate`) carries the
/// password and a fault quoting it sends it back.
fn xml_escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

fn hex(text: &str, upper: bool) -> String {
    text.bytes()
        .map(|b| {
            if upper {
                format!("{b:02X}")
            } else {
                format!("{b:02x}")
            }
        })
        .collect()
}

/// Where `needle` starts in `haystack`, overlapping matches included.
fn find_all<'a>(haystack: &'a [u8], needle: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    haystack
        .windows(needle.len().max(1))
        .enumerate()
        .filter(move |(_, w)| !needle.is_empty() && *w == needle)
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;

    const SECRET: &str = "s3cret pw/x";

    fn scrub() -> Scrub {
        Scrub::new(&Credentials {
            password: Some(Secret::new(SECRET)),
            ..Credentials::default()
        })
    }

    fn masked(s: &mut Scrub, bytes: &[u8]) -> Vec<u8> {
        s.bytes(bytes).into_owned()
    }

    #[test]
    fn every_form_is_masked_in_place() {
        let basic = base64::engine::general_purpose::STANDARD.encode(format!("admin:{SECRET}"));
        for form in [
            SECRET.to_string(),
            "s3cret%20pw%2Fx".to_string(),
            "s3cret+pw%2Fx".to_string(),
            "s3cret\\spw\\/x".to_string(),
            basic,
            hex(SECRET, false),
        ] {
            let reply = format!("error id=520 msg=no extra={form}\n");
            let out = masked(&mut scrub(), reply.as_bytes());
            assert_eq!(out.len(), reply.len(), "{form}");
            let out = String::from_utf8(out).unwrap();
            assert!(!out.contains(&form), "{form}: {out}");
            assert!(out.starts_with("error id=520 msg=no extra=*"), "{out}");
        }
    }

    #[test]
    fn a_secret_split_over_chunks_is_masked_on_both_sides() {
        let mut s = scrub();
        let first = masked(&mut s, b"quoted: s3cr");
        let second = masked(&mut s, b"et pw/x and more");
        assert_eq!(first, b"quoted: ****");
        assert_eq!(second, b"******* and more");
        // One byte at a time.
        let mut s = scrub();
        let all: Vec<u8> = format!("x{SECRET}y")
            .bytes()
            .flat_map(|b| masked(&mut s, &[b]))
            .collect();
        assert!(!String::from_utf8_lossy(&all).contains("cret"), "{all:?}");
    }

    #[test]
    fn text_lines_are_redacted_and_innocent_bytes_kept() {
        let s = scrub();
        assert_eq!(
            s.text("finished: auth_refused: server said s3cret pw/x"),
            "finished: auth_refused: server said <redacted>"
        );
        let mut s = scrub();
        assert!(matches!(s.bytes(b"nothing here"), Cow::Borrowed(_)));
        assert!(matches!(Scrub::default().bytes(b"x"), Cow::Borrowed(_)));
    }
}
