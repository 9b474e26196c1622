//! A target's label set in exposition syntax (`target="…",protocol="…",extra="…"`, escaped,
//! without braces), written into every sample line of the target as it is rendered.
//!
//! It used to be encoded once per target and cached on the target: 4 MB at 100,000 targets
//! (plus the cache slot in every target), kept for the process's life, to spare a scrape the
//! escaping. Escaping is a byte scan that almost never finds anything
//! ([`push_label_value`]), so writing the pieces per line costs a scrape little.

use std::fmt;

use super::encode::{push_label_value, LabelSet};
use super::families::TARGET_LABELS;
use crate::state::TargetMeta;
use crate::target::Target;

/// The label set of `meta`'s target.
pub fn of(meta: &TargetMeta) -> Of<'_> {
    Of(&meta.target)
}

/// A target's label set, written where it is used.
#[derive(Clone, Copy)]
pub struct Of<'a>(&'a Target);

impl LabelSet for Of<'_> {
    fn is_empty(&self) -> bool {
        false
    }

    fn write_to(&self, out: &mut String) {
        let [target_label, protocol_label] = TARGET_LABELS;
        let target = self.0;
        out.push_str(target_label);
        out.push_str("=\"");
        push_label_value(out, &target.name);
        out.push_str("\",");
        out.push_str(protocol_label);
        out.push_str("=\"");
        out.push_str(target.protocol.as_str());
        out.push('"');
        for (k, v) in &target.labels {
            out.push(',');
            out.push_str(k);
            out.push_str("=\"");
            push_label_value(out, v);
            out.push('"');
        }
    }
}

impl fmt::Display for Of<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        self.write_to(&mut s);
        f.write_str(&s)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::target::{Address, Protocol};

    fn target(name: &str) -> Target {
        Target {
            labels: BTreeMap::from([("region".to_string(), "e\"u".to_string())]),
            ..Target::new(name, Protocol::A2s, Address::parse("127.0.0.1:1").unwrap())
        }
    }

    /// Target and protocol first, extra labels sorted, values escaped; a name with nothing
    /// to escape is copied as it is.
    #[test]
    fn label_set() {
        let m = TargetMeta::new(target("a\\b"));
        assert_eq!(
            of(&m).to_string(),
            r#"target="a\\b",protocol="a2s",region="e\"u""#
        );
        let plain = TargetMeta::new(Target {
            labels: Default::default(),
            ..target("eu-1 ünïcode")
        });
        assert_eq!(
            of(&plain).to_string(),
            r#"target="eu-1 ünïcode",protocol="a2s""#
        );
        let nl = TargetMeta::new(Target {
            labels: Default::default(),
            ..target("a\nb\"")
        });
        assert_eq!(of(&nl).to_string(), r#"target="a\nb\"",protocol="a2s""#);
    }
}
