//! A strict parser for the Prometheus text format 0.0.4 and OpenMetrics 1.0.0, for tests: it
//! rejects anything a scraper could choke on, and more (see [`parse`]), and returns the
//! samples with their label values unescaped so tests can assert exact values.

use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    OpenMetrics,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    pub name: String,
    pub labels: Vec<(String, String)>,
    pub value: f64,
}

impl Sample {
    pub fn label(&self, name: &str) -> Option<&str> {
        self.labels
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Parses a whole exposition. Beyond the grammar of each format (line syntax, metric and
/// label name charsets, label value escaping, float values, UTF-8) it demands: every family
/// has exactly one TYPE and at most one HELP, both before its samples; a family's samples are
/// contiguous and never reopened; no series appears twice; no label name twice on a line;
/// label values hold no raw control characters (the exporter promises to drop them).
/// OpenMetrics also: no blank lines or free comments, counter samples named `_total` or
/// `_created`, and `# EOF` as the very last line.
pub fn parse(body: &[u8], format: Format) -> Result<Vec<Sample>, String> {
    let text = std::str::from_utf8(body).map_err(|e| format!("not UTF-8: {e}"))?;
    if !text.is_empty() && !text.ends_with('\n') {
        return Err("last line does not end with a newline".into());
    }
    let mut types: HashMap<String, String> = HashMap::new();
    let mut helps: HashSet<String> = HashSet::new();
    let mut closed: HashSet<String> = HashSet::new();
    let mut current: Option<String> = None;
    let mut series: HashSet<String> = HashSet::new();
    let mut samples = Vec::new();
    let mut eof = false;
    for (i, line) in text.split_terminator('\n').enumerate() {
        let n = i + 1;
        let err = |m: &str| format!("line {n}: {m}: {line:?}");
        if eof {
            return Err(err("content after # EOF"));
        }
        if line.is_empty() {
            if format == Format::OpenMetrics {
                return Err(err("blank line"));
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            if format == Format::OpenMetrics && line == "# EOF" {
                eof = true;
                continue;
            }
            let Some(rest) = rest.strip_prefix(' ') else {
                if format == Format::OpenMetrics {
                    return Err(err("comment"));
                }
                continue;
            };
            let (kw, rest) = rest.split_once(' ').unwrap_or((rest, ""));
            match kw {
                "HELP" | "TYPE" | "UNIT" => {}
                _ if format == Format::Text => continue,
                _ => return Err(err("unknown descriptor")),
            }
            let (name, arg) = rest
                .split_once(' ')
                .ok_or_else(|| err("descriptor without a value"))?;
            if !metric_name(name) {
                return Err(err("bad metric name"));
            }
            if closed.contains(name) || types.contains_key(name) && current.as_deref() != Some(name)
            {
                return Err(err("metadata for a family already seen"));
            }
            if current.as_deref() != Some(name) {
                if let Some(c) = current.take() {
                    closed.insert(c);
                }
                current = Some(name.to_string());
            }
            if samples
                .last()
                .is_some_and(|s: &Sample| family_of(&s.name, &types).as_deref() == Some(name))
            {
                return Err(err("metadata after the family's samples"));
            }
            match kw {
                "HELP" => {
                    if !helps.insert(name.to_string()) {
                        return Err(err("second HELP"));
                    }
                    check_escapes(arg, format == Format::OpenMetrics).map_err(|m| err(&m))?;
                }
                "TYPE" => {
                    let ok = match format {
                        Format::Text => {
                            ["counter", "gauge", "histogram", "summary", "untyped"].contains(&arg)
                        }
                        Format::OpenMetrics => [
                            "counter",
                            "gauge",
                            "histogram",
                            "gaugehistogram",
                            "stateset",
                            "info",
                            "summary",
                            "unknown",
                        ]
                        .contains(&arg),
                    };
                    if !ok {
                        return Err(err("unknown type"));
                    }
                    if types.insert(name.to_string(), arg.to_string()).is_some() {
                        return Err(err("second TYPE"));
                    }
                    if format == Format::OpenMetrics && arg == "counter" && name.ends_with("_total")
                    {
                        return Err(err("OpenMetrics counter family named _total"));
                    }
                }
                _ => {
                    if format == Format::Text {
                        return Err(err("UNIT in text format"));
                    }
                }
            }
            continue;
        }
        let s = sample(line).map_err(|m| err(&m))?;
        let family = family_of(&s.name, &types).ok_or_else(|| err("sample without a TYPE"))?;
        if current.as_deref() != Some(family.as_str()) {
            return Err(err("sample outside its family's block"));
        }
        if format == Format::OpenMetrics {
            let suffix = &s.name[family.len()..];
            let ok = match types[&family].as_str() {
                "counter" => suffix == "_total" || suffix == "_created",
                "gauge" | "unknown" | "stateset" => suffix.is_empty(),
                "info" => suffix == "_info",
                _ => true,
            };
            if !ok {
                return Err(err("sample name does not fit its family's type"));
            }
        }
        let mut key = s.name.clone();
        let mut sorted = s.labels.clone();
        sorted.sort();
        for (k, v) in &sorted {
            key.push_str(&format!("\u{0}{k}={v}"));
        }
        if !series.insert(key) {
            return Err(err("duplicate series"));
        }
        samples.push(s);
    }
    if format == Format::OpenMetrics && !eof {
        return Err("no # EOF".into());
    }
    Ok(samples)
}

/// The typed family a sample name belongs to: itself, or itself minus a type's suffix.
fn family_of(name: &str, types: &HashMap<String, String>) -> Option<String> {
    if types.contains_key(name) {
        return Some(name.to_string());
    }
    for suffix in [
        "_total", "_created", "_bucket", "_sum", "_count", "_info", "_gcount", "_gsum",
    ] {
        if let Some(base) = name.strip_suffix(suffix) {
            if types.contains_key(base) {
                return Some(base.to_string());
            }
        }
    }
    None
}

pub fn metric_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|f| f.is_ascii_alphanumeric() || f == '_' || f == ':')
}

pub fn label_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
        && c.all(|f| f.is_ascii_alphanumeric() || f == '_')
}

/// HELP text: `\\` and `\n` escapes (and `\"` in OpenMetrics), nothing else after a `\`.
fn check_escapes(s: &str, quote: bool) -> Result<(), String> {
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('\\' | 'n') => {}
                Some('"') if quote => {}
                other => return Err(format!("bad escape \\{other:?} in HELP")),
            }
        }
    }
    Ok(())
}

fn sample(line: &str) -> Result<Sample, String> {
    let end = line.find(['{', ' ']).ok_or("sample without a value")?;
    let name = &line[..end];
    if !metric_name(name) {
        return Err("bad metric name".into());
    }
    let mut rest = &line[end..];
    let mut labels: Vec<(String, String)> = Vec::new();
    if let Some(r) = rest.strip_prefix('{') {
        rest = r;
        loop {
            if let Some(r) = rest.strip_prefix('}') {
                rest = r;
                break;
            }
            let eq = rest.find('=').ok_or("label without =")?;
            let lname = &rest[..eq];
            if !label_name(lname) {
                return Err(format!("bad label name {lname:?}"));
            }
            if labels.iter().any(|(k, _)| k == lname) {
                return Err(format!("label {lname} twice"));
            }
            rest = rest[eq + 1..]
                .strip_prefix('"')
                .ok_or("label value not quoted")?;
            let mut value = String::new();
            let mut chars = rest.char_indices();
            let close = loop {
                let (i, c) = chars.next().ok_or("unterminated label value")?;
                match c {
                    '"' => break i,
                    '\\' => match chars.next().map(|(_, c)| c) {
                        Some('\\') => value.push('\\'),
                        Some('"') => value.push('"'),
                        Some('n') => value.push('\n'),
                        other => return Err(format!("bad escape \\{other:?} in label value")),
                    },
                    c if c.is_control() => {
                        return Err(format!("raw control character {c:?} in label value"))
                    }
                    c => value.push(c),
                }
            };
            labels.push((lname.to_string(), value));
            rest = &rest[close + 1..];
            if let Some(r) = rest.strip_prefix(',') {
                rest = r;
            } else if !rest.starts_with('}') {
                return Err("labels not separated by ,".into());
            }
        }
    }
    let rest = rest.strip_prefix(' ').ok_or("no space before the value")?;
    let mut parts = rest.split(' ');
    let value = parse_float(parts.next().unwrap_or(""))?;
    if let Some(ts) = parts.next() {
        ts.parse::<f64>()
            .map_err(|_| format!("bad timestamp {ts:?}"))?;
    }
    if parts.next().is_some() {
        return Err("trailing fields".into());
    }
    Ok(Sample {
        name: name.to_string(),
        labels,
        value,
    })
}

fn parse_float(s: &str) -> Result<f64, String> {
    match s {
        "NaN" => Ok(f64::NAN),
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        _ if s.is_empty()
            || s.contains(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E') =>
        {
            Err(format!("bad value {s:?}"))
        }
        _ => s.parse::<f64>().map_err(|_| format!("bad value {s:?}")),
    }
}

/// The parser itself: it must reject each kind of invalid exposition.
pub fn self_test() {
    let ok = "# HELP a_total x\n# TYPE a_total counter\na_total{l=\"v\\\"\\\\\\n\"} 1\n";
    parse(ok.as_bytes(), Format::Text).unwrap();
    let om = "# TYPE a counter\n# HELP a x\na_total{l=\"v\"} 1\n# EOF\n";
    parse(om.as_bytes(), Format::OpenMetrics).unwrap();
    let bad_text = [
        "# TYPE a gauge\na 1",                        // no final newline
        "# TYPE a gauge\na{l=\"v\\t\"} 1\n",          // bad escape
        "# TYPE a gauge\na{l=\"v\"\"} 1\n",           // unescaped quote
        "# TYPE a gauge\na{l=\"v\u{0}\"} 1\n",        // raw control
        "# TYPE a gauge\na{1l=\"v\"} 1\n",            // label name charset
        "# TYPE a-b gauge\na-b 1\n",                  // metric name charset
        "# TYPE a gauge\na{l=\"v\",l=\"w\"} 1\n",     // label twice
        "# TYPE a gauge\na 1\na 2\n",                 // duplicate series
        "a 1\n",                                      // no TYPE
        "# TYPE a gauge\n# TYPE a gauge\na 1\n",      // two TYPEs
        "# TYPE a gauge\na 1\n# HELP a x\n",          // metadata after samples
        "# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\n", // sample outside its block
        "# TYPE a gauge\na x\n",                      // bad value
        "# TYPE a gauge\na{l=\"v\"}1\n",              // no space
        "# TYPE a wat\na 1\n",                        // unknown type
    ];
    for b in bad_text {
        assert!(parse(b.as_bytes(), Format::Text).is_err(), "accepted {b:?}");
    }
    assert!(parse(b"# TYPE a gauge\na{l=\"\xff\"} 1\n", Format::Text).is_err());
    let bad_om = [
        "# TYPE a counter\na_total 1\n",              // no EOF
        "# TYPE a counter\na_total 1\n# EOF\na 1\n",  // after EOF
        "# TYPE a counter\na 1\n# EOF\n",             // counter without _total
        "# TYPE a_total counter\na_total 1\n# EOF\n", // family named _total
        "# TYPE a gauge\n\na 1\n# EOF\n",             // blank line
        "# TYPE a gauge\n# hi\na 1\n# EOF\n",         // free comment
    ];
    for b in bad_om {
        assert!(
            parse(b.as_bytes(), Format::OpenMetrics).is_err(),
            "accepted {b:?}"
        );
    }
}
