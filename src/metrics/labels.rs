//! A target's label set in exposition syntax (`target="…",protocol="…",extra="…"`, escaped,
//! without braces). It is encoded once per target, at its first render, and cached on the
//! target's [`TargetMeta`], so a scrape of 10,000 targets does not re-escape 10,000 label
//! sets; a reload builds new metas, hence new label sets.

use super::encode::push_label_value;
use super::families::TARGET_LABELS;
use crate::state::TargetMeta;
use crate::target::Target;

/// The encoded label set of `meta`'s target.
pub fn of(meta: &TargetMeta) -> &str {
    meta.labels
        .get_or_init(|| encode(&meta.target).into_boxed_str())
}

fn encode(target: &Target) -> String {
    let [target_label, protocol_label] = TARGET_LABELS;
    let mut labels = String::with_capacity(64);
    labels.push_str(target_label);
    labels.push_str("=\"");
    push_label_value(&mut labels, &target.name);
    labels.push_str("\",");
    labels.push_str(protocol_label);
    labels.push_str("=\"");
    labels.push_str(target.protocol.as_str());
    labels.push('"');
    for (k, v) in &target.labels {
        labels.push(',');
        labels.push_str(k);
        labels.push_str("=\"");
        push_label_value(&mut labels, v);
        labels.push('"');
    }
    labels
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

    /// The label set is escaped once, target and protocol first, extra labels sorted.
    #[test]
    fn pre_encoded_labels() {
        let m = TargetMeta::new(target("a\\b"));
        assert_eq!(of(&m), r#"target="a\\b",protocol="a2s",region="e\"u""#);
        // Cached: the second call hands back the same string, not a new encoding.
        assert!(std::ptr::eq(of(&m), of(&m)));
    }
}
