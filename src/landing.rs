//! The landing page at `/`: every target, its state, a `/probe` link and a `debug=true` one.
//! Server strings are hostile, so everything shown is escaped.

use std::fmt::Write;
use std::sync::Arc;

use crate::state::{Entry, Outcome};

/// Escapes text for HTML element content and attribute values.
pub fn html_escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if crate::text::hidden(c) => {}
            c => out.push(c),
        }
    }
}

fn url_escape(out: &mut String, s: &str) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

/// The HTML page listing every target with its last result and a probe link.
pub fn page(entries: &[Arc<Entry>]) -> String {
    let mut h = String::with_capacity(1024 + entries.len() * 256);
    h.push_str(concat!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gameserver-exporter</title></head>\n",
        "<body><h1>gameserver-exporter ",
        env!("CARGO_PKG_VERSION"),
        "</h1>\n<p><a href=\"/metrics\">metrics</a> · <a href=\"/sd\">service discovery</a> · ",
        "<a href=\"/-/ready\">ready</a></p>\n<table>\n",
        "<tr><th>target</th><th>protocol</th><th>address</th><th>state</th><th>server</th><th>players</th><th>last error</th><th></th></tr>\n"
    ));
    for e in entries {
        let t = &e.meta.target;
        h.push_str("<tr><td>");
        html_escape(&mut h, &t.name);
        let _ = write!(h, "</td><td>{}</td><td>", t.protocol);
        html_escape(&mut h, &t.address.to_string());
        h.push_str("</td>");
        match &e.last {
            None => h.push_str("<td>pending</td><td></td><td></td><td></td>"),
            Some(Outcome::Up(s)) => {
                h.push_str("<td>up</td><td>");
                html_escape(&mut h, s.name());
                let _ = write!(h, "</td><td>{}/{}</td><td></td>", s.online, s.max);
            }
            Some(Outcome::Down(f)) => {
                h.push_str("<td>down</td><td></td><td></td><td>");
                html_escape(&mut h, &f.to_string());
                h.push_str("</td>");
            }
        }
        h.push_str("<td><a href=\"/probe?target=");
        url_escape(&mut h, &t.name);
        h.push_str("\">probe</a> <a href=\"/probe?target=");
        url_escape(&mut h, &t.name);
        h.push_str("&amp;debug=true\">debug</a></td></tr>\n");
    }
    h.push_str("</table></body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Server strings in the landing page cannot inject markup.
    #[test]
    fn html_escaping() {
        let mut s = String::new();
        html_escape(&mut s, "<script>\"a'&\n");
        assert_eq!(s, "&lt;script&gt;&quot;a&#39;&amp;");
    }

    /// Probe links carry the target name percent-encoded.
    #[test]
    fn url_escaping() {
        let mut s = String::new();
        url_escape(&mut s, "a b&c\"");
        assert_eq!(s, "a%20b%26c%22");
    }
}
