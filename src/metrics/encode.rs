//! A small hand-written Prometheus exposition encoder.
//!
//! Deliberately not `prometheus-client`: its 0.25 line emits OpenMetrics only and cannot
//! write the text format 0.0.4 that most scrapers still ask for by default, passes CR, tab
//! and NUL in label values through raw, and keeps long-lived metric objects, whereas we render
//! a fresh snapshot of the state at each scrape. Both formats share everything but the
//! counter `TYPE`/`HELP` naming and the final `# EOF`, so one encoder with a flag is enough.

use std::fmt::Write;

use super::families::Family;
// Kind lives in the table (families.rs); still reachable here, where it used to be.
pub use super::families::Kind;
use crate::decimal::push_u64;
use crate::text::hidden;

/// Characters a server-supplied string keeps in a label value; longer ones are cut at a char
/// boundary. Names, maps and versions of real servers fit; a hostile server cannot blow up a
/// scrape.
pub const MAX_SERVER_STRING_CHARS: usize = 128;

/// The exposition format a scrape gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Prometheus text format 0.0.4.
    Text,
    /// OpenMetrics 1.0.0 text.
    OpenMetrics,
}

impl Format {
    /// OpenMetrics when the Accept header asks for it, text 0.0.4 otherwise.
    pub fn from_accept(accept: Option<&str>) -> Format {
        match accept {
            Some(a) if a.contains("application/openmetrics-text") => Format::OpenMetrics,
            _ => Format::Text,
        }
    }

    pub fn content_type(self) -> &'static str {
        match self {
            Format::Text => "text/plain; version=0.0.4; charset=utf-8",
            Format::OpenMetrics => "application/openmetrics-text; version=1.0.0; charset=utf-8",
        }
    }
}

/// Appends `v` escaped as a label value: `\`, `"` and newline escaped, nothing else touched.
pub fn push_label_value(out: &mut String, v: &str) {
    // Names and label values almost never need escaping: copied whole (every sample line
    // writes its target's labels).
    if !v.bytes().any(|b| matches!(b, b'\\' | b'"' | b'\n')) {
        out.push_str(v);
        return;
    }
    for c in v.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// Appends a server-supplied string as a label value: control characters other than newline
/// (CR, tab, NUL, DEL, C1) and bidirectional formatting ([`hidden`]) are dropped, the rest is
/// cut to [`MAX_SERVER_STRING_CHARS`] and escaped.
pub fn push_server_string(out: &mut String, v: &str) {
    // Most server strings are short printable ASCII with nothing to escape: copied whole,
    // they skip the per-char filter below, which was the largest item of a render (perf,
    // 10,000 A2S targets: 18 % of the samples). Same bytes either way.
    if v.len() <= MAX_SERVER_STRING_CHARS
        && v.bytes()
            .all(|b| (0x20..0x7f).contains(&b) && b != b'\\' && b != b'"')
    {
        out.push_str(v);
        return;
    }
    let kept = v.chars().filter(|&c| c == '\n' || !hidden(c));
    for c in kept.take(MAX_SERVER_STRING_CHARS) {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// A sample line's leading labels, written as the line is: a target's label set
/// ([`super::labels::of`]), or a fixed string (empty for none).
pub trait LabelSet {
    fn is_empty(&self) -> bool;
    fn write_to(&self, out: &mut String);
}

impl LabelSet for &str {
    fn is_empty(&self) -> bool {
        str::is_empty(self)
    }

    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

/// Text an encoder with a sink holds before passing it on.
pub const CHUNK: usize = 64 * 1024;

/// Writes families and samples into one growing string, or with a sink, in chunks of about
/// [`CHUNK`] bytes into it.
pub struct Encoder<'w> {
    pub out: String,
    format: Format,
    /// Whether the current sample line has an open `{`.
    braces: bool,
    /// Where full chunks go; `None`: everything stays in `out`.
    sink: Option<&'w mut dyn std::io::Write>,
    /// The sink's first error; later chunks are dropped.
    failed: Option<std::io::Error>,
}

impl Encoder<'static> {
    pub fn new(format: Format, capacity: usize) -> Encoder<'static> {
        Encoder {
            out: String::with_capacity(capacity),
            format,
            braces: false,
            sink: None,
            failed: None,
        }
    }
}

impl<'w> Encoder<'w> {
    /// An encoder that passes its text to `sink` a chunk at a time, so a page of any size
    /// needs [`CHUNK`] bytes of its own (100,000 targets: 68 MB of text otherwise).
    pub fn streaming(format: Format, sink: &'w mut dyn std::io::Write) -> Encoder<'w> {
        Encoder {
            out: String::with_capacity(CHUNK + 4096),
            format,
            braces: false,
            sink: Some(sink),
            failed: None,
        }
    }

    /// Passes a full chunk to the sink; called at the end of each sample line.
    fn maybe_flush(&mut self) {
        if self.out.len() < CHUNK {
            return;
        }
        self.flush();
    }

    fn flush(&mut self) {
        if let Some(sink) = self.sink.as_deref_mut() {
            if self.failed.is_none() {
                if let Err(e) = sink.write_all(self.out.as_bytes()) {
                    self.failed = Some(e);
                }
            }
            self.out.clear();
        }
    }

    /// Ends a streaming page: the last chunk goes to the sink; its first error, if any.
    pub fn finish_streaming(mut self) -> std::io::Result<()> {
        if self.format == Format::OpenMetrics {
            self.out.push_str("# EOF\n");
        }
        self.flush();
        self.failed.map_or(Ok(()), Err)
    }

    /// Starts a family: its `# HELP` and `# TYPE` lines. OpenMetrics types counters by their
    /// base name (without `_total`).
    pub fn family(&mut self, family: &Family) {
        let (name, help) = (family.name, family.help);
        let (kind_str, base) = match (family.kind, self.format) {
            (Kind::Gauge, _) => ("gauge", name),
            (Kind::Summary, _) => ("summary", name),
            (Kind::Counter, Format::Text) => ("counter", name),
            (Kind::Counter, Format::OpenMetrics) => {
                ("counter", name.strip_suffix("_total").unwrap_or(name))
            }
        };
        let _ = writeln!(self.out, "# HELP {base} {help}");
        let _ = writeln!(self.out, "# TYPE {base} {kind_str}");
    }

    /// Starts a sample line of `family` with its leading labels (may be empty); finish it
    /// with [`Encoder::label`]s and one `value_*`.
    pub fn start(&mut self, family: &Family, labels: impl LabelSet) {
        self.out.push_str(family.name);
        self.braces = !labels.is_empty();
        if self.braces {
            self.out.push('{');
            labels.write_to(&mut self.out);
        }
    }

    fn next_label(&mut self) {
        if self.braces {
            self.out.push(',');
        } else {
            self.out.push('{');
            self.braces = true;
        }
    }

    fn close(&mut self) {
        if self.braces {
            self.out.push('}');
            self.braces = false;
        }
        self.out.push(' ');
    }

    /// Adds a label whose value is a trusted, already-clean string.
    pub fn label(&mut self, name: &str, value: &str) {
        self.next_label();
        self.out.push_str(name);
        self.out.push_str("=\"");
        push_label_value(&mut self.out, value);
        self.out.push('"');
    }

    /// Adds a label whose value came from a game server.
    pub fn server_label(&mut self, name: &str, value: &str) {
        self.next_label();
        self.out.push_str(name);
        self.out.push_str("=\"");
        push_server_string(&mut self.out, value);
        self.out.push('"');
    }

    pub fn value_u64(&mut self, v: u64) {
        self.close();
        push_u64(&mut self.out, v);
        self.out.push('\n');
        self.maybe_flush();
    }

    pub fn value_f64(&mut self, v: f64) {
        self.close();
        push_f64(&mut self.out, v);
        self.out.push('\n');
        self.maybe_flush();
    }

    /// One sample with just the given labels.
    pub fn sample_u64(&mut self, family: &Family, labels: impl LabelSet, v: u64) {
        self.start(family, labels);
        self.value_u64(v);
    }

    pub fn sample_f64(&mut self, family: &Family, labels: impl LabelSet, v: f64) {
        self.start(family, labels);
        self.value_f64(v);
    }

    pub fn finish(mut self) -> String {
        if self.format == Format::OpenMetrics {
            self.out.push_str("# EOF\n");
        }
        self.out
    }
}

/// `v` in decimal, as `Display` writes it, without the formatting machinery (a render writes
/// several of these per target).
fn push_f64(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "+Inf" } else { "-Inf" });
    } else {
        let _ = write!(out, "{v}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Label values escape backslash, quote and newline only.
    #[test]
    fn escapes() {
        let mut s = String::new();
        push_label_value(&mut s, "a\"b\\c\nd\te");
        assert_eq!(s, "a\\\"b\\\\c\\nd\te");
    }

    /// Server strings also lose CR, tab, NUL and C1 controls, and are cut at
    /// [`MAX_SERVER_STRING_CHARS`] chars.
    #[test]
    fn server_strings() {
        let mut s = String::new();
        push_server_string(&mut s, "a\r\t\0\u{85}b\n\"");
        assert_eq!(s, "ab\\n\\\"");
        let mut s = String::new();
        let long: String = "é".repeat(200);
        push_server_string(&mut s, &long);
        assert_eq!(s.chars().count(), MAX_SERVER_STRING_CHARS);
    }

    /// The Accept header picks the format; anything else gets text 0.0.4.
    #[test]
    fn negotiation() {
        assert_eq!(
            Format::from_accept(Some(
                "application/openmetrics-text;version=1.0.0,text/plain;q=0.5"
            )),
            Format::OpenMetrics
        );
        assert_eq!(Format::from_accept(Some("*/*")), Format::Text);
        assert_eq!(Format::from_accept(None), Format::Text);
    }

    /// The fast path for clean ASCII and the per-char path agree: a string just over the cap,
    /// one with an escape, and one with a C1 control all go the long way.
    #[test]
    fn server_string_paths() {
        let mut s = String::new();
        push_server_string(&mut s, "de_dust2 (v1.0)");
        assert_eq!(s, "de_dust2 (v1.0)");
        let mut s = String::new();
        let long = "a".repeat(MAX_SERVER_STRING_CHARS + 1);
        push_server_string(&mut s, &long);
        assert_eq!(s.len(), MAX_SERVER_STRING_CHARS);
        let mut s = String::new();
        push_server_string(&mut s, "say \"hi\"\u{7f}\u{9b}x");
        assert_eq!(s, "say \\\"hi\\\"x");
        // A direction override would make the label read "evil.com/moc.live" in a browser.
        let mut s = String::new();
        push_server_string(&mut s, "live\u{202e}moc.evil\u{2066}x\u{2069}");
        assert_eq!(s, "livemoc.evilx");
    }

    proptest::proptest! {
        /// Whatever the string, the output is what the per-char rule alone gives (the fast
        /// path for clean ASCII changes nothing), and integers print as `Display` does.
        #[test]
        fn server_string_matches_per_char_rule(v in "(?s).{0,140}|[ -~]{0,140}", n: u64) {
            let mut want = String::new();
            for c in v.chars().filter(|&c| c == '\n' || !hidden(c)).take(MAX_SERVER_STRING_CHARS) {
                match c {
                    '\\' => want.push_str("\\\\"),
                    '"' => want.push_str("\\\""),
                    '\n' => want.push_str("\\n"),
                    c => want.push(c),
                }
            }
            let mut got = String::new();
            push_server_string(&mut got, &v);
            proptest::prop_assert_eq!(got, want);
            let mut s = String::new();
            push_u64(&mut s, n);
            proptest::prop_assert_eq!(s, n.to_string());
        }
    }

    /// Floats print shortest-exact, special values in Prometheus spelling.
    #[test]
    fn floats() {
        for (v, want) in [
            (0.25, "0.25"),
            (1.0, "1"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "+Inf"),
        ] {
            let mut s = String::new();
            push_f64(&mut s, v);
            assert_eq!(s, want);
        }
    }
}
