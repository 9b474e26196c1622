//! MOTD: chat components and `§` codes to plain text.
//!
//! A `description` is a plain string, a chat component (`text`, `extra`, `translate` with
//! `with`, `keybind`), or an array of either; text may carry `§x` formatting codes. Colours
//! and styles are dropped: the exporter publishes the words.

use serde_json::Value;

/// Components nested deeper than this are skipped. serde_json already refuses more than 128
/// levels; this keeps our own recursion small whatever the input.
pub const MAX_DEPTH: usize = 32;

/// Characters of plain text kept; a MOTD is two short lines in the vanilla client.
pub const MAX_CHARS: usize = 4096;

/// Renders a description as plain text without formatting codes.
pub fn plain_text(description: &Value) -> String {
    let mut out = String::new();
    render(description, 0, &mut out);
    strip_codes(&out)
}

/// Removes `§x` formatting codes (and a lone trailing `§`), control characters other than
/// newline, and cuts the text at [`MAX_CHARS`].
pub fn strip_codes(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(MAX_CHARS));
    let mut chars = text.chars();
    let mut kept = 0;
    while let Some(c) = chars.next() {
        if kept >= MAX_CHARS {
            break;
        }
        if c == '§' {
            chars.next();
            continue;
        }
        if c.is_control() && c != '\n' {
            continue;
        }
        out.push(c);
        kept += 1;
    }
    out
}

fn render(v: &Value, depth: usize, out: &mut String) {
    if depth > MAX_DEPTH || out.len() > MAX_CHARS * 4 {
        return;
    }
    match v {
        Value::String(s) => out.push_str(s),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Array(items) => {
            for item in items {
                render(item, depth + 1, out);
            }
        }
        Value::Object(obj) => {
            if let Some(text) = obj.get("text") {
                render_scalar(text, out);
            } else if let Some(key) = obj.get("translate").and_then(Value::as_str) {
                let args = obj.get("with").and_then(Value::as_array);
                translate(
                    obj.get("fallback").and_then(Value::as_str).unwrap_or(key),
                    args,
                    depth,
                    out,
                );
            } else if let Some(key) = obj.get("keybind").and_then(Value::as_str) {
                out.push_str(key);
            }
            if let Some(extra) = obj.get("extra") {
                render(extra, depth + 1, out);
            }
        }
        Value::Null => {}
    }
}

/// `text` is a string, but lenient servers send numbers and booleans too.
fn render_scalar(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => out.push_str(s),
        Value::Number(n) => out.push_str(&n.to_string()),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        _ => {}
    }
}

/// We have no language files, so a `translate` key renders as itself (or its `fallback`),
/// with `%s` and `%N$s` replaced by the rendered `with` arguments and `%%` by `%`.
fn translate(pattern: &str, args: Option<&Vec<Value>>, depth: usize, out: &mut String) {
    let arg = |i: usize, out: &mut String| {
        if let Some(a) = args.and_then(|a| a.get(i)) {
            render(a, depth + 1, out);
        }
    };
    let mut next = 0;
    let mut rest = pattern;
    while let Some(pos) = rest.find('%') {
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 1..];
        if let Some(r) = after.strip_prefix('%') {
            out.push('%');
            rest = r;
        } else if let Some(r) = after.strip_prefix('s') {
            arg(next, out);
            next += 1;
            rest = r;
        } else if let Some((n, r)) = after
            .split_once("$s")
            .filter(|(n, _)| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit()))
        {
            let i: usize = n.parse().unwrap_or(0);
            arg(i.saturating_sub(1), out);
            rest = r;
        } else {
            out.push('%');
            rest = after;
        }
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A plain string loses its `§` codes, including a lone trailing `§`.
    #[test]
    fn plain_string() {
        assert_eq!(
            plain_text(&json!("§aA §lMinecraft§r Server§")),
            "A Minecraft Server"
        );
        assert_eq!(
            plain_text(&json!("line one\nline two")),
            "line one\nline two"
        );
    }

    /// A component's `text` and its `extra` children render in order, recursively.
    #[test]
    fn component_with_extra() {
        let v = json!({
            "text": "Hello ",
            "color": "gold",
            "extra": [
                {"text": "big ", "bold": true, "extra": [{"text": "§cworld", "color": "#ff0000"}]},
                "!"
            ]
        });
        assert_eq!(plain_text(&v), "Hello big world!");
    }

    /// An array of strings and components concatenates.
    #[test]
    fn array() {
        assert_eq!(
            plain_text(&json!(["§6Gold ", {"text": "and"}, " ", {"text": "more"}])),
            "Gold and more"
        );
    }

    /// `translate` substitutes its `with` arguments, in order or by position.
    #[test]
    fn translate_with() {
        let v = json!({"translate": "%s joined %s", "with": ["Alex", {"text": "the game"}]});
        assert_eq!(plain_text(&v), "Alex joined the game");
        let v = json!({"translate": "%2$s then %1$s, 100%%", "with": ["a", "b"]});
        assert_eq!(plain_text(&v), "b then a, 100%");
        let v = json!({"translate": "unknown.key", "fallback": "Fallback %s", "with": ["x"]});
        assert_eq!(plain_text(&v), "Fallback x");
    }

    /// Missing or odd descriptions render empty rather than failing.
    #[test]
    fn odd_shapes() {
        assert_eq!(plain_text(&Value::Null), "");
        assert_eq!(plain_text(&json!({"color": "red"})), "");
        assert_eq!(plain_text(&json!({"text": 42})), "42");
    }

    /// Nesting beyond MAX_DEPTH is cut off, not followed.
    #[test]
    fn depth_limited() {
        let mut v = json!({"text": "deep"});
        for _ in 0..(MAX_DEPTH * 3) {
            v = json!({"text": "x", "extra": [v]});
        }
        let text = plain_text(&v);
        assert!(!text.contains("deep"));
        assert!(text.starts_with("xxxx"));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Any string strips without panicking and leaves no `§`.
        #[test]
        fn strip_arbitrary(s in "\\PC{0,64}") {
            prop_assert!(!strip_codes(&s).contains('§'));
        }

        /// Any translate pattern renders without panicking.
        #[test]
        fn translate_arbitrary(p in "[%s$0-9a ]{0,32}") {
            let _ = plain_text(&json!({"translate": p, "with": ["a", "b"]}));
        }
    }
}
