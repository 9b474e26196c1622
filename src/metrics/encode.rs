//! A small hand-written Prometheus exposition encoder.
//!
//! Deliberately not `prometheus-client`: its 0.25 line emits OpenMetrics only and cannot
//! write the text format 0.0.4 that most scrapers still ask for by default, passes CR, tab
//! and NUL in label values through raw, and keeps long-lived metric objects, whereas we render
//! a fresh snapshot of the state at each scrape. Both formats share everything but the
//! counter `TYPE`/`HELP` naming and the final `# EOF`, so one encoder with a flag is enough.

use std::fmt::Write;

use super::families::Family;

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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
}

/// Appends `v` escaped as a label value: `\`, `"` and newline escaped, nothing else touched.
pub fn push_label_value(out: &mut String, v: &str) {
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
/// (CR, tab, NUL, DEL, C1) are dropped, the rest is cut to [`MAX_SERVER_STRING_CHARS`] and
/// escaped.
pub fn push_server_string(out: &mut String, v: &str) {
    let kept = v.chars().filter(|&c| c == '\n' || !c.is_control());
    for c in kept.take(MAX_SERVER_STRING_CHARS) {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
}

/// Writes families and samples into one growing string.
pub struct Encoder {
    pub out: String,
    format: Format,
    /// Whether the current sample line has an open `{`.
    braces: bool,
}

impl Encoder {
    pub fn new(format: Format, capacity: usize) -> Encoder {
        Encoder {
            out: String::with_capacity(capacity),
            format,
            braces: false,
        }
    }

    /// Starts a family: its `# HELP` and `# TYPE` lines. OpenMetrics types counters by their
    /// base name (without `_total`).
    pub fn family(&mut self, family: &Family) {
        let (name, help) = (family.name, family.help);
        let (kind_str, base) = match (family.kind, self.format) {
            (Kind::Gauge, _) => ("gauge", name),
            (Kind::Counter, Format::Text) => ("counter", name),
            (Kind::Counter, Format::OpenMetrics) => {
                ("counter", name.strip_suffix("_total").unwrap_or(name))
            }
        };
        let _ = writeln!(self.out, "# HELP {base} {help}");
        let _ = writeln!(self.out, "# TYPE {base} {kind_str}");
    }

    /// Starts a sample line of `family` with its pre-encoded labels (may be empty); finish
    /// it with [`Encoder::label`]s and one `value_*`.
    pub fn start(&mut self, family: &Family, labels: &str) {
        self.out.push_str(family.name);
        self.braces = !labels.is_empty();
        if self.braces {
            self.out.push('{');
            self.out.push_str(labels);
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
        let _ = writeln!(self.out, "{v}");
    }

    pub fn value_f64(&mut self, v: f64) {
        self.close();
        push_f64(&mut self.out, v);
        self.out.push('\n');
    }

    /// One sample with just the given labels.
    pub fn sample_u64(&mut self, family: &Family, labels: &str, v: u64) {
        self.start(family, labels);
        self.value_u64(v);
    }

    pub fn sample_f64(&mut self, family: &Family, labels: &str, v: f64) {
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

    /// Server strings also lose CR, tab, NUL and C1 controls, and are cut at 128 chars.
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
