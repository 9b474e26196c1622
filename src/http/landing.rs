//! The landing page at `/`: how many targets are up, down and pending, and a table of targets
//! with their state, a `/probe` link and a `debug=true` one. Server strings are hostile, so
//! everything shown is escaped.
//!
//! The table stops at [`MAX_ROWS`], down targets first: at 100,000 targets the whole table was
//! 30 MB of HTML (held whole, then gzipped), more than a browser shows or the exporter should
//! hold for a page view. `/sd` lists every target.

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

/// Rows the table shows at most.
pub const MAX_ROWS: usize = 1000;

/// The HTML page: counts by state, then targets with their last result and probe links,
/// down ones first, at most [`MAX_ROWS`].
pub fn page(entries: &[Arc<Entry>]) -> String {
    let down = |e: &&Arc<Entry>| matches!(e.last, Some(Outcome::Down(_)));
    let up = entries
        .iter()
        .filter(|e| matches!(e.last, Some(Outcome::Up(_))))
        .count();
    let failing = entries.iter().filter(down).count();
    let shown = entries.len().min(MAX_ROWS);
    let mut h = String::with_capacity(1024 + shown * 256);
    h.push_str(concat!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gameserver-exporter</title></head>\n",
        "<body><h1>gameserver-exporter ",
        env!("CARGO_PKG_VERSION"),
        "</h1>\n<p><a href=\"/metrics\">metrics</a> · <a href=\"/sd\">service discovery</a> · ",
        "<a href=\"/-/ready\">ready</a></p>\n"
    ));
    let _ = writeln!(
        h,
        "<p>{} targets: {up} up, {failing} down, {} pending.</p>",
        entries.len(),
        entries.len() - up - failing
    );
    if shown < entries.len() {
        let _ = writeln!(
            h,
            "<p>The first {shown} are shown, down ones first; <a href=\"/sd\">/sd</a> lists \
             all {}.</p>",
            entries.len()
        );
    }
    h.push_str(concat!(
        "<table>\n",
        "<tr><th>target</th><th>protocol</th><th>address</th><th>state</th><th>server</th><th>players</th><th>last error</th><th></th></tr>\n"
    ));
    let rows = entries
        .iter()
        .filter(down)
        .chain(entries.iter().filter(|e| !down(e)))
        .take(MAX_ROWS);
    for e in rows {
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

    /// Counts cover every target; the table stops at MAX_ROWS with down targets first and
    /// says so.
    #[test]
    fn capped_down_first() {
        use crate::state::{State, TargetMeta};
        use crate::status::{Failure, Reason, Status};
        use crate::target::{Address, Protocol, Target};
        use std::time::{Duration, SystemTime};
        let state = State::default();
        let n = MAX_ROWS + 5;
        for i in 0..n {
            let t = Target::new(
                format!("t{i:05}"),
                Protocol::A2s,
                Address::parse("127.0.0.1:1").unwrap(),
            );
            let meta = Arc::new(TargetMeta::new(t));
            let recorder = state.insert(meta);
            let result = match i {
                0 => continue,
                _ if i == n - 1 => Err(Failure::new(Reason::Timeout, "late")),
                _ => Ok(Status::default()),
            };
            recorder.record(result, Duration::ZERO, SystemTime::now());
        }
        let page = page(&state.snapshot());
        assert!(page.contains(&format!(
            "<p>{n} targets: {} up, 1 down, 1 pending.</p>",
            n - 2
        )));
        assert!(page.contains(&format!("The first {MAX_ROWS} are shown")));
        assert_eq!(page.matches("<tr><td>").count(), MAX_ROWS);
        let last = format!("<tr><td>t{:05}</td>", n - 1);
        let first = "<tr><td>t00000</td>";
        // The down target leads; the pending one comes next in name order.
        assert!(page.find(&last).unwrap() < page.find(first).unwrap());
        assert!(!page.contains(&format!("<tr><td>t{:05}</td>", n - 2)));
        let small = page_of(3);
        assert!(!small.contains("are shown"));
    }

    fn page_of(n: usize) -> String {
        let state = crate::state::State::default();
        for i in 0..n {
            let t = crate::target::Target::new(
                format!("t{i}"),
                crate::target::Protocol::A2s,
                crate::target::Address::parse("127.0.0.1:1").unwrap(),
            );
            state.insert(Arc::new(crate::state::TargetMeta::new(t)));
        }
        page(&state.snapshot())
    }

    /// Probe links carry the target name percent-encoded.
    #[test]
    fn url_escaping() {
        let mut s = String::new();
        url_escape(&mut s, "a b&c\"");
        assert_eq!(s, "a%20b%26c%22");
    }
}
