//! Where in the file an error is: every message is one line naming the file, the line and
//! the key (`exporter.toml:12: target "eu-survival".timeout: …`), for our own checks and for
//! toml's parse errors alike. A target is named by its `name` wherever the file gives one: an
//! operator reloading 200 targets looks for a name, not for the 22nd `[[target]]` table.

use std::fmt;
use std::ops::Range;

use super::model::ConfigError;

/// A toml parse error, located: toml's message names the problem, [`key_at`] where in our
/// schema it sits.
pub(super) fn parse_error(file: &str, text: &str, e: &toml::de::Error) -> ConfigError {
    let span = e.span().unwrap_or(0..0);
    let line = line_of(text, span.start);
    let msg = e.message().trim_end();
    match key_at(text, span.start) {
        Some(key) => ConfigError(format!("{file}:{line}: {key}: {msg}")),
        None => ConfigError(format!("{file}:{line}: {msg}")),
    }
}

/// The file being validated, for error messages.
pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
}

impl Ctx<'_> {
    /// An error at `span`, under `key`: `file:line: key: msg`.
    pub(super) fn err(&self, span: Range<usize>, key: &str, msg: impl fmt::Display) -> ConfigError {
        ConfigError(format!(
            "{}:{}: {key}: {msg}",
            self.file,
            line_of(self.text, span.start)
        ))
    }
}

/// How messages name target `i` of a file: by its name where it has a usable one
/// (`target "eu-survival"`), else by its place (`target[21]`).
pub(super) fn target_key(i: usize, name: Option<&str>) -> String {
    match name.filter(|n| !n.is_empty() && !n.chars().any(char::is_control)) {
        Some(name) => format!("target {name:?}"),
        None => format!("target[{i}]"),
    }
}

/// The `name` of target `i` in a file that is TOML but not our schema (serde's errors, such
/// as an unknown key).
fn name_in(doc: &toml::Table, i: usize) -> Option<&str> {
    doc.get("target")?.as_array()?.get(i)?.get("name")?.as_str()
}

/// The 1-based line of a byte offset.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    let offset = offset.min(text.len());
    text.as_bytes()[..offset]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Names the key a parse error points into (`exporter.listen`, `target[2].foo`), from the
/// table header above it and the `key =` on its line: toml's own messages name the problem
/// but not where in our schema it sits.
fn key_at(text: &str, offset: usize) -> Option<String> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].lines().next().unwrap_or("").trim();
    let mut table = None;
    let mut targets = 0usize;
    // Only on the error path: the text parsed once more, untyped, for the targets' names.
    let doc = text.parse::<toml::Table>().ok();
    for l in text[..line_start].lines().chain(std::iter::once(line)) {
        let l = l.trim();
        if l.starts_with("[[target]]") {
            targets += 1;
            let i = targets - 1;
            table = Some(target_key(i, doc.as_ref().and_then(|d| name_in(d, i))));
        } else if l.starts_with("[exporter]") {
            table = Some("exporter".to_string());
        } else if let Some(inner) = l.strip_prefix("[module.") {
            // `[module.NAME]` and its subtables (`[module.NAME.players]`).
            table = inner
                .split(']')
                .next()
                .map(|t| format!("module.{}", t.trim()));
        } else if l.starts_with('[') {
            table = None;
        }
    }
    let key = (!line.starts_with('['))
        .then(|| line.split_once('=').map(|(k, _)| k.trim().to_string()))
        .flatten()
        .filter(|k| !k.is_empty());
    match (table, key) {
        (Some(t), Some(k)) => Some(format!("{t}.{k}")),
        (Some(t), None) => Some(t),
        (None, Some(k)) => Some(k),
        (None, None) => None,
    }
}
