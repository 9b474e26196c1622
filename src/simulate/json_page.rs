//! The misbehaviours of a game server's own JSON status page (Assetto Corsa's `/INFO`, Eco's
//! `/frontpage`, Build and Shoot's `/json`, ElDewrito's `/`...), shared by their simulators:
//! each serves its page through [`reply`] and takes its hostile servers from [`hostile`].
//! These servers write their HTTP by hand, so the broken framings are the ones to expect: a
//! `Content-Length` that lies, a body that never ends, a web page where the JSON should be,
//! an HTTP error status.

use std::time::Duration;

use super::hostile::{Hostile, Start};
use super::http::{Framing, SimReply};

/// How the page is broken.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Misbehaviour {
    #[default]
    None,
    /// Junk where the JSON should be, labelled JSON.
    BadJson,
    /// An HTML page with status 200 (a hosting panel's or proxy's page in front of the game).
    Html,
    /// `Content-Length` claims 1000 bytes more than come; then the connection closes.
    LyingLength,
    /// A chunked body that never ends.
    Endless,
    /// A 2 MB page (valid JSON: only the size cap can stop it).
    Huge,
    /// The page one byte every 200 ms.
    Drip,
    /// `503 Service Unavailable` (a server starting up or a proxy with nothing behind it).
    Unavailable,
    /// `500 Internal Server Error` with an empty body.
    ServerError,
}

/// The page `body` (a JSON object), served as `m` says.
pub fn reply(m: Misbehaviour, body: Vec<u8>) -> SimReply {
    let page = SimReply::json(body);
    match m {
        Misbehaviour::None => page,
        Misbehaviour::BadJson => SimReply::json(&page.body[..page.body.len() / 2]),
        Misbehaviour::Html => SimReply {
            content_type: "text/html; charset=utf-8",
            body: b"<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>".to_vec(),
            ..page
        },
        Misbehaviour::LyingLength => SimReply {
            framing: Framing::ClaimsMore(1000),
            ..page
        },
        Misbehaviour::Endless => SimReply {
            framing: Framing::Endless,
            ..page
        },
        Misbehaviour::Huge => {
            // `{"padding":"xxx…",` before the object's own members: still one valid object.
            let mut body = format!("{{\"padding\":\"{}\"", "x".repeat(2 << 20)).into_bytes();
            match page.body.get(1..) {
                Some(rest) if rest.trim_ascii_start().first() != Some(&b'}') => {
                    body.push(b',');
                    body.extend_from_slice(rest);
                }
                _ => body.push(b'}'),
            }
            SimReply::json(body)
        }
        Misbehaviour::Drip => SimReply {
            drip: Some(Duration::from_millis(200)),
            ..page
        },
        Misbehaviour::Unavailable => SimReply::status(503),
        Misbehaviour::ServerError => SimReply::status(500),
    }
}

/// The hostile servers every JSON page has, each down for its reason: `with(m)` starts the
/// protocol's simulator misbehaving as `m`.
pub fn hostile(with: impl Fn(Misbehaviour) -> Start) -> Vec<Hostile> {
    vec![
        Hostile::down("bad-json", "malformed", with(Misbehaviour::BadJson)),
        Hostile::down("html", "malformed", with(Misbehaviour::Html)),
        Hostile::down(
            "lying-length",
            "incomplete",
            with(Misbehaviour::LyingLength),
        ),
        Hostile::down("endless", "too_large", with(Misbehaviour::Endless)).heavy(),
        Hostile::down("huge", "too_large", with(Misbehaviour::Huge)).heavy(),
        Hostile::down("drip", "timeout", with(Misbehaviour::Drip)),
        Hostile::down("unavailable", "refused", with(Misbehaviour::Unavailable)),
        Hostile::down("server-error", "malformed", with(Misbehaviour::ServerError)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The huge page is still one JSON object with the page's members.
    #[test]
    fn huge_page_stays_json() {
        let r = reply(Misbehaviour::Huge, br#"{"a":1}"#.to_vec());
        let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(v["a"], 1);
        assert!(r.body.len() > 2 << 20);
        let r = reply(Misbehaviour::Huge, b"{}".to_vec());
        assert!(serde_json::from_slice::<serde_json::Value>(&r.body).is_ok());
    }
}
