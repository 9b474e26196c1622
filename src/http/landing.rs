//! The status page at `/`: what an operator leaves open on a second screen. Counts by state
//! and players online, then one row per target, down ones first: state (colour and word),
//! the target (name; under it protocol, address and the `/probe` and `debug=true` links),
//! server name, map, players/max (`–` where the game reports no capacity; the bar turns
//! [`FULL`] colour when the server is full), latency, tick rate where the game reports it,
//! the last success as "3 min ago", and the failure reason.
//!
//! It fits a 1280 px screen with every column: the protocol, address and links share the
//! target's cell, and long texts (names, addresses, maps, failures) wrap instead of widening
//! the table (`.ci/status-page.sh` renders 20 targets at 1280 px and fails on any overflow).
//!
//! It works without JavaScript: the page is complete as served, the filter box is a form
//! (`?q=` filters on the server, across every target, not only the rows shown) and a
//! `<noscript>` meta refresh reloads it every [`NOSCRIPT_REFRESH_SECONDS`]. With JavaScript
//! a small inline script filters rows as one types and, every [`REFRESH_SECONDS`], fetches
//! the page for the current filter and swaps in the new counts and rows, so a refresh never
//! takes the text or the focus from the filter box. No external assets: CSS and script are
//! inline. Server strings are hostile, so everything shown is escaped, with the characters
//! [`crate::text::hidden`] drops left out.
//!
//! The table stops at [`MAX_ROWS`]: at 100,000 targets the whole table was 30 MB of HTML
//! (held whole, then gzipped), more than a browser shows or the exporter should hold for a
//! page view. The counts cover every target; `/api/v1/targets` and `/sd` list them all.

use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

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
/// How often the script fetches a fresh page: a poll interval's worth, at the default
/// interval ([`crate::target::DEFAULT_INTERVAL`]).
pub const REFRESH_SECONDS: u32 = crate::target::DEFAULT_INTERVAL.as_secs() as u32;
/// How often the page reloads without JavaScript: a reload resets a half-typed filter, so
/// less often than the script refreshes.
pub const NOSCRIPT_REFRESH_SECONDS: u32 = 30;

/// A target's state on the page: its row's class and word, and the row order (down first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Shown {
    Down,
    Pending,
    Up,
}

impl Shown {
    fn of(e: &Entry) -> Shown {
        match e.last {
            Some(Outcome::Up(_)) => Shown::Up,
            Some(Outcome::Down(_)) => Shown::Down,
            None => Shown::Pending,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Shown::Down => "down",
            Shown::Pending => "pending",
            Shown::Up => "up",
        }
    }
}

/// The page at `now`: counts over every target, then the targets matching `filter` (see
/// [`matches`]; empty: all), down ones first, then pending, then up, at most [`MAX_ROWS`].
pub fn page(entries: &[Arc<Entry>], now: SystemTime, filter: &str) -> String {
    let mut counts = [0usize; 3];
    let mut players = 0u64;
    for e in entries {
        counts[Shown::of(e) as usize] += 1;
        if let Some(Outcome::Up(s)) = &e.last {
            players += u64::from(s.online);
        }
    }
    let [down, pending, up] = counts;
    let needle = filter.trim().to_lowercase();
    let picked = |e: &&Arc<Entry>| needle.is_empty() || matches(e, &needle);
    let matching = if needle.is_empty() {
        entries.len()
    } else {
        entries.iter().filter(picked).count()
    };
    let shown = matching.min(MAX_ROWS);
    let mut h = String::with_capacity(8 * 1024 + shown * 640);
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    let _ = writeln!(
        h,
        "<noscript><meta http-equiv=\"refresh\" content=\"{NOSCRIPT_REFRESH_SECONDS}\"></noscript>"
    );
    // The tab says whether anything is down, so the page can sit in a background tab.
    if down > 0 {
        let _ = write!(h, "<title>{down} down · gameserver-exporter</title>");
    } else {
        h.push_str("<title>gameserver-exporter</title>");
    }
    h.push_str(STYLE);
    h.push_str(concat!(
        "</head>\n<body>\n<header><h1>gameserver-exporter <small>",
        env!("CARGO_PKG_VERSION"),
        "</small></h1>\n<nav><a href=\"/metrics\">metrics</a> <a href=\"/sd\">service discovery</a> ",
        "<a href=\"/api/v1/targets\">JSON API</a> <a href=\"/-/ready\">ready</a></nav></header>\n"
    ));
    let _ = writeln!(
        h,
        "<section id=\"summary\" class=\"tiles\"><div class=\"tile\"><b>{}</b> targets</div>\
         <div class=\"tile up\"><b>{up}</b> up</div><div class=\"tile down{}\"><b>{down}</b> down</div>\
         <div class=\"tile pending\"><b>{pending}</b> pending</div>\
         <div class=\"tile\"><b>{players}</b> players online</div></section>",
        entries.len(),
        if down > 0 { " alert" } else { "" }
    );
    h.push_str(
        "<form id=\"filter\" method=\"get\" action=\"/\"><input type=\"search\" name=\"q\" value=\"",
    );
    html_escape(&mut h, filter);
    h.push_str(
        "\" placeholder=\"filter: name, server, map, state, reason\" aria-label=\"filter\" \
         autocomplete=\"off\"> <button>filter</button> <span id=\"count\"></span></form>\n",
    );
    h.push_str("<div id=\"note\">");
    if !needle.is_empty() {
        let _ = write!(
            h,
            "<p class=\"note\">{matching} of {} targets match the filter.</p>",
            entries.len()
        );
    }
    if shown < matching {
        let _ = write!(
            h,
            "<p class=\"note\">The first {shown} are shown, down ones first; narrow the filter \
             for the rest, or see <a href=\"/api/v1/targets\">/api/v1/targets</a> for all {}.</p>",
            entries.len()
        );
    }
    h.push_str("</div>\n");
    h.push_str(concat!(
        "<table><thead><tr><th>state</th><th>target</th><th>server</th><th>map</th>",
        "<th class=\"num\">players</th><th class=\"num\">latency</th><th class=\"num\">tick rate</th>",
        "<th>last success</th></tr></thead>\n<tbody id=\"rows\">\n"
    ));
    let mut rows: Vec<&Arc<Entry>> = entries.iter().filter(picked).collect();
    // Stable: name order (the snapshot's) within each state.
    rows.sort_by_key(|e| Shown::of(e));
    for e in rows.into_iter().take(MAX_ROWS) {
        row(&mut h, e, now);
    }
    h.push_str("</tbody></table>\n");
    let _ = writeln!(
        h,
        "<footer><p id=\"stamp\">Rendered {} UTC; refreshes every {REFRESH_SECONDS} s.</p>\
         <p id=\"stale\" hidden>The exporter did not answer the last refresh: this is an older \
         page.</p></footer>",
        humantime::format_rfc3339_seconds(now)
    );
    let _ = writeln!(h, "<script>const REFRESH_MS = {REFRESH_SECONDS}000;");
    h.push_str(SCRIPT);
    h.push_str("</script>\n</body></html>\n");
    h
}

/// The bar's class when the server is full.
pub const FULL: &str = "full";

/// One table row.
fn row(h: &mut String, e: &Entry, now: SystemTime) {
    let t = &e.meta.target;
    let state = Shown::of(e);
    let _ = write!(
        h,
        "<tr class=\"{0}\"><td><span class=\"pill\">{0}</span></td><td class=\"name\">",
        state.word()
    );
    html_escape(h, &t.name);
    // Where and how it is polled, and the links, under the name: one cell for what
    // used to be three columns, so the table fits 1280 px.
    let _ = write!(
        h,
        "<div class=\"where\">{} <span class=\"addr\">",
        t.protocol
    );
    html_escape(h, &t.address.to_string());
    h.push_str("</span> <a href=\"/probe?target=");
    url_escape(h, &t.name);
    h.push_str("\">probe</a> <a href=\"/probe?target=");
    url_escape(h, &t.name);
    h.push_str("&amp;debug=true\">debug</a></div></td>");
    match &e.last {
        None => h.push_str("<td colspan=\"5\" class=\"muted\">not polled yet</td>"),
        Some(Outcome::Up(s)) => {
            h.push_str("<td class=\"text\">");
            html_escape(h, s.name());
            h.push_str("</td><td class=\"text\">");
            html_escape(h, s.map());
            let _ = write!(h, "</td><td class=\"num\">{}/", s.online);
            // The bar's fill is a number we print, never a server string. No capacity: no
            // bar, since there is nothing to fill.
            match s.capacity() {
                Some(max) => {
                    let fill = (u64::from(s.online) * 100 / u64::from(max)).min(100);
                    let full = if s.online >= max { " full" } else { "" };
                    let _ = write!(
                        h,
                        "{max}<span class=\"bar{full}\" style=\"--fill:{fill}%\"></span>"
                    );
                }
                None => h.push_str("<span title=\"the server reports no capacity\">–</span>"),
            }
            let _ = write!(h, "</td><td class=\"num\">{}</td>", latency(s.latency()));
            match s.health().and_then(|x| x.tick_rate_hertz) {
                Some(hz) if hz.is_finite() => {
                    let _ = write!(h, "<td class=\"num\">{hz:.1} Hz</td>");
                }
                _ => h.push_str("<td class=\"num\"></td>"),
            }
        }
        Some(Outcome::Down(f)) => {
            h.push_str("<td colspan=\"5\" class=\"why\">");
            html_escape(h, &f.to_string());
            h.push_str("</td>");
        }
    }
    match e.last_success() {
        Some(at) => {
            let _ = write!(
                h,
                "<td title=\"{} UTC\">{}</td>",
                humantime::format_rfc3339_seconds(at),
                ago(now, at)
            );
        }
        None => h.push_str("<td class=\"muted\">never</td>"),
    }
    h.push_str("</tr>\n");
}

/// Whether `e` matches `needle` (lower case): a substring of its name, protocol, address,
/// state word, server name, map or failure, ignoring case.
fn matches(e: &Entry, needle: &str) -> bool {
    let t = &e.meta.target;
    let has = |s: &str| s.to_lowercase().contains(needle);
    if has(&t.name)
        || has(t.protocol.as_str())
        || has(&t.address.to_string())
        || has(Shown::of(e).word())
    {
        return true;
    }
    match &e.last {
        Some(Outcome::Up(s)) => has(s.name()) || has(s.map()),
        Some(Outcome::Down(f)) => has(&f.to_string()),
        None => false,
    }
}

/// How long before `now` `then` was, the way a person says it: "12 s ago", "3 min ago",
/// "5 h ago", "2 d ago"; "just now" if the clock has stepped back since.
pub fn ago(now: SystemTime, then: SystemTime) -> String {
    let Ok(d) = now.duration_since(then) else {
        return "just now".into();
    };
    match d.as_secs() {
        s @ 0..60 => format!("{s} s ago"),
        s @ 60..3600 => format!("{} min ago", s / 60),
        s @ 3600..86400 => format!("{} h ago", s / 3600),
        s => format!("{} d ago", s / 86400),
    }
}

/// A round trip in milliseconds, to two significant figures or so.
fn latency(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else if ms < 1000.0 {
        format!("{ms:.0} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// Inline, light and dark, for a page that has to be readable at a glance from a distance.
const STYLE: &str = r#"<style>
:root{--bg:#f6f7f9;--fg:#1d2330;--muted:#6b7383;--card:#fff;--line:#e2e5ea;--up:#1f9d55;--down:#d64545;--pending:#b7791f;--full:#dd6b20;--track:#e2e5ea;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--fg:#e6e9ef;--muted:#8b93a3;--card:#1b2029;--line:#2b313c;--up:#3ccf7a;--down:#ff6b6b;--pending:#e6b450;--full:#f6993f;--track:#2b313c}}
*{box-sizing:border-box}
body{margin:0;padding:1rem 1.5rem;background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
header{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem 1.5rem}
h1{font-size:1.3rem;margin:0}h1 small{color:var(--muted);font-weight:normal;font-size:.8rem}
nav a{margin-right:1rem}a{color:inherit}
.tiles{display:flex;flex-wrap:wrap;gap:.75rem;margin:1rem 0}
.tile{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.5rem 1rem;min-width:8rem;color:var(--muted)}
.tile b{display:block;font-size:1.8rem;line-height:1.2;color:var(--fg)}
.tile.up b{color:var(--up)}.tile.alert{border-color:var(--down);background:color-mix(in srgb,var(--down) 10%,var(--card))}.tile.alert b{color:var(--down)}
form{margin:.5rem 0}input{font:inherit;padding:.35rem .6rem;width:22rem;max-width:60vw;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg)}
button{font:inherit;padding:.35rem .8rem;border:1px solid var(--line);border-radius:6px;background:var(--card);color:var(--fg)}
#count,.note,.muted,footer{color:var(--muted)}.note{margin:.25rem 0}
table{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden}
th,td{padding:.35rem .6rem;text-align:left;border-bottom:1px solid var(--line);white-space:nowrap}
th{font-size:.75rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);background:var(--bg)}
td.name{font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.why{color:var(--down);white-space:normal;overflow-wrap:anywhere}
tr{border-left:4px solid transparent}tr.up{border-left-color:var(--up)}tr.down{border-left-color:var(--down)}tr.pending{border-left-color:var(--pending)}
tr.down td{background:color-mix(in srgb,var(--down) 7%,transparent)}
.pill{display:inline-block;min-width:4.5rem;text-align:center;border-radius:999px;padding:.05rem .5rem;font-size:.75rem;font-weight:700;color:#fff;background:var(--muted)}
tr.up .pill{background:var(--up)}tr.down .pill{background:var(--down)}tr.pending .pill{background:var(--pending)}
.bar{display:inline-block;width:3.5rem;height:.45rem;margin-left:.5rem;border-radius:4px;vertical-align:middle;background:linear-gradient(to right,var(--up) var(--fill),var(--track) 0)}
.bar.full{background:var(--full)}
td.name,td.text{white-space:normal;overflow-wrap:anywhere;min-width:7rem}
.where{font-weight:normal;font-size:.8rem;color:var(--muted)}.where .addr{overflow-wrap:anywhere}.where a{color:var(--muted);margin-left:.3rem}
#stale{color:var(--down);font-weight:700}
</style>"#;

/// Filters rows as one types (the URL keeps the filter, so a reload or a shared link shows
/// the same rows) and refreshes counts and rows in place; on a failed refresh it says the
/// page is old instead of going blank. No `</` inside, so it cannot end its element early.
const SCRIPT: &str = r##"(function () {
  var form = document.getElementById("filter"), box = form.elements.q;
  function apply() {
    var q = box.value.trim().toLowerCase(), rows = document.querySelectorAll("#rows tr"), n = 0;
    rows.forEach(function (r) {
      var hit = !q || r.textContent.toLowerCase().indexOf(q) >= 0;
      r.hidden = !hit;
      if (hit) n++;
    });
    document.getElementById("count").textContent = q ? n + " of " + rows.length + " rows" : rows.length + " rows";
  }
  function url() {
    var q = box.value.trim();
    return location.pathname + (q ? "?q=" + encodeURIComponent(q) : "");
  }
  function refresh() {
    fetch(url(), { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html");
        ["summary", "note", "rows", "stamp"].forEach(function (id) {
          var old = document.getElementById(id), now = fresh.getElementById(id);
          if (old && now) old.replaceWith(document.adoptNode(now));
        });
        document.title = fresh.title;
        document.getElementById("stale").hidden = true;
        apply();
      })
      .catch(function () { document.getElementById("stale").hidden = false; });
  }
  box.addEventListener("input", function () { apply(); history.replaceState(null, "", url()); });
  form.addEventListener("submit", function (e) { e.preventDefault(); refresh(); });
  setInterval(function () { if (!document.hidden) refresh(); }, REFRESH_MS);
  apply();
})();
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::{State, TargetMeta};
    use crate::status::{Failure, Health, Reason, Status};
    use crate::target::{Address, Protocol, Target};
    use std::time::UNIX_EPOCH;

    const T0: u64 = 1_767_225_600;

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn add(state: &State, name: &str) -> crate::state::Recorder {
        let address = Address::parse("127.0.0.1:1").unwrap();
        let t = Target::new(name, Protocol::A2s, address);
        state.insert(Arc::new(TargetMeta::new(t)))
    }

    /// Server strings in the page cannot inject markup.
    #[test]
    fn html_escaping() {
        let mut s = String::new();
        html_escape(&mut s, "<script>\"a'&\n\u{202e}");
        assert_eq!(s, "&lt;script&gt;&quot;a&#39;&amp;");
    }

    /// Counts cover every target; the table stops at MAX_ROWS with down targets first, then
    /// pending ones, and says so.
    #[test]
    fn capped_down_first() {
        let state = State::default();
        let n = MAX_ROWS + 5;
        for i in 0..n {
            let recorder = add(&state, &format!("t{i:05}"));
            let result = match i {
                0 => continue,
                _ if i == n - 1 => Err(Failure::new(Reason::Timeout, "late")),
                _ => Ok(Status::default()),
            };
            recorder.record(result, Duration::ZERO, at(T0));
        }
        let page = page(&state.snapshot(), at(T0 + 5), "");
        let tiles = format!(
            "<div class=\"tile\"><b>{n}</b> targets</div><div class=\"tile up\"><b>{}</b> up</div>\
             <div class=\"tile down alert\"><b>1</b> down</div><div class=\"tile pending\"><b>1</b> pending</div>",
            n - 2
        );
        assert!(page.contains(&tiles), "{page}");
        assert!(page.contains("<title>1 down · gameserver-exporter</title>"));
        assert!(page.contains(&format!("The first {MAX_ROWS} are shown")));
        assert_eq!(page.matches("<tr class=").count(), MAX_ROWS);
        let row = |i: usize| format!("<td class=\"name\">t{i:05}<div class=\"where\">");
        // The down target leads; the pending one comes next; the up ones follow in name order.
        let down = page.find(&row(n - 1)).unwrap();
        let pending = page.find(&row(0)).unwrap();
        assert!(down < pending && pending < page.find(&row(1)).unwrap());
        assert!(!page.contains(&row(n - 2)));
        let small = page_of(3);
        assert!(!small.contains("are shown"));
        assert!(small.contains("<title>gameserver-exporter</title>"));
        // Nothing down: no tile highlighted.
        assert!(small.contains("<div class=\"tile down\"><b>0</b> down</div>"));
    }

    fn page_of(n: usize) -> String {
        let state = State::default();
        for i in 0..n {
            add(&state, &format!("t{i}"));
        }
        page(&state.snapshot(), at(T0), "")
    }

    /// Each state's row: class and word, players with their bar, latency, the last success
    /// as "ago" (with the absolute time as a title), the failure reason, "never".
    #[test]
    fn rows() {
        let state = State::default();
        let up = add(&state, "up");
        let status = Status {
            name: "Rust <EU>".into(),
            map: Some("Procedural".into()),
            online: 87,
            max: 200,
            latency: Duration::from_micros(31_400),
            ..Status::default()
        };
        up.record(Ok(status), Duration::ZERO, at(T0));
        let down = add(&state, "down");
        down.record(Ok(Status::default()), Duration::ZERO, at(T0 - 3600));
        let fail = Failure::new(Reason::Timeout, "no reply");
        down.record(Err(fail), Duration::ZERO, at(T0));
        let never = add(&state, "never");
        never.record(
            Err(Failure::new(Reason::Refused, "x")),
            Duration::ZERO,
            at(T0),
        );
        add(&state, "new");
        // Full, with a tick rate: the bar is the full colour.
        let full = add(&state, "full");
        let health = Health {
            tick_rate_hertz: Some(19.96),
            ..Health::default()
        };
        let status = Status {
            online: 24,
            max: 24,
            health: Some(Box::new(health)),
            ..Status::default()
        };
        full.record(Ok(status), Duration::ZERO, at(T0));
        // No capacity reported (Factorio): a dash, no bar.
        let open = add(&state, "open");
        let status = Status {
            online: 11,
            max: 0,
            ..Status::default()
        };
        open.record(Ok(status), Duration::ZERO, at(T0));
        let page = page(&state.snapshot(), at(T0 + 125), "");
        let place = |name: &str| {
            format!(
                "<td class=\"name\">{name}<div class=\"where\">a2s <span class=\"addr\">127.0.0.1:1</span> \
                 <a href=\"/probe?target={name}\">probe</a> <a href=\"/probe?target={name}&amp;debug=true\">debug</a></div></td>"
            )
        };
        let want = format!(
            "<tr class=\"up\"><td><span class=\"pill\">up</span></td>{}\
             <td class=\"text\">Rust &lt;EU&gt;</td><td class=\"text\">Procedural</td><td class=\"num\">87/200<span class=\"bar\" \
             style=\"--fill:43%\"></span></td><td class=\"num\">31 ms</td><td class=\"num\"></td>\
             <td title=\"2026-01-01T00:00:00Z UTC\">2 min ago</td></tr>",
            place("up")
        );
        assert!(page.contains(&want), "{page}");
        let want = format!(
            "{}<td class=\"text\"></td><td class=\"text\"></td><td class=\"num\">24/24<span class=\"bar full\" \
             style=\"--fill:100%\"></span></td><td class=\"num\">0.0 ms</td><td class=\"num\">20.0 Hz</td>",
            place("full")
        );
        assert!(page.contains(&want), "{page}");
        let want = format!(
            "{}<td class=\"text\"></td><td class=\"text\"></td><td class=\"num\">11/<span title=\"the server \
             reports no capacity\">–</span></td>",
            place("open")
        );
        assert!(page.contains(&want), "{page}");
        let want = format!(
            "<tr class=\"down\"><td><span class=\"pill\">down</span></td>{}\
             <td colspan=\"5\" class=\"why\">timeout: no reply</td>\
             <td title=\"2025-12-31T23:00:00Z UTC\">1 h ago</td></tr>",
            place("down")
        );
        assert!(page.contains(&want), "{page}");
        let want = format!(
            "{}<td colspan=\"5\" class=\"why\">refused: x</td><td class=\"muted\">never</td>",
            place("never")
        );
        assert!(page.contains(&want), "{page}");
        let want = format!(
            "<tr class=\"pending\"><td><span class=\"pill\">pending</span></td>{}\
             <td colspan=\"5\" class=\"muted\">not polled yet</td><td class=\"muted\">never</td>",
            place("new")
        );
        assert!(page.contains(&want), "{page}");
        assert!(page.contains("<b>122</b> players online"));
        // The one script is ours, at the end; no external assets.
        assert_eq!(page.matches("<script").count(), 1);
        assert!(!page.contains("src=") && !page.contains("<link"));
        assert_eq!(page.matches("</script>").count(), 1);
        assert!(!SCRIPT.contains("</"));
    }

    /// `?q=` filters on the server across every target (case-insensitive, any shown field),
    /// says how many match, and goes back into the box escaped.
    #[test]
    fn server_side_filter() {
        let state = State::default();
        for name in ["eu-1", "EU-2", "us-1"] {
            add(&state, name);
        }
        let r = add(&state, "x");
        r.record(
            Err(Failure::new(Reason::Dns, "no such host")),
            Duration::ZERO,
            at(T0),
        );
        let p = page(&state.snapshot(), at(T0), " eu ");
        assert_eq!(p.matches("<tr class=").count(), 2);
        assert!(p.contains("2 of 4 targets match the filter."));
        assert!(p.contains("<b>4</b> targets"), "counts cover every target");
        let p = page(&state.snapshot(), at(T0), "SUCH host");
        assert_eq!(p.matches("<tr class=").count(), 1);
        assert!(p.contains("<td class=\"name\">x<div class=\"where\">"));
        let p = page(&state.snapshot(), at(T0), "pending");
        assert_eq!(p.matches("<tr class=").count(), 3);
        let p = page(&state.snapshot(), at(T0), "\"><script>");
        assert_eq!(p.matches("<tr class=").count(), 0);
        assert!(p.contains("value=\"&quot;&gt;&lt;script&gt;\""));
        assert_eq!(p.matches("<script").count(), 1);
    }

    #[test]
    fn ago_and_latency() {
        let t = at(T0);
        let cases = [
            (0, "0 s ago"),
            (59, "59 s ago"),
            (60, "1 min ago"),
            (3599, "59 min ago"),
            (3600, "1 h ago"),
            (86_399, "23 h ago"),
            (86_400 * 3, "3 d ago"),
        ];
        for (secs, want) in cases {
            assert_eq!(ago(t + Duration::from_secs(secs), t), want);
        }
        assert_eq!(ago(t, t + Duration::from_secs(5)), "just now");
        assert_eq!(latency(Duration::from_micros(1_234)), "1.2 ms");
        assert_eq!(latency(Duration::from_micros(31_600)), "32 ms");
        assert_eq!(latency(Duration::from_millis(1_500)), "1.50 s");
    }

    /// Probe links carry the target name percent-encoded.
    #[test]
    fn url_escaping() {
        let mut s = String::new();
        url_escape(&mut s, "a b&c\"");
        assert_eq!(s, "a%20b%26c%22");
    }
}
