//! The status JSON parser and MOTD renderer on arbitrary bytes: no panic, the sample stays
//! within its cap, and the plain text within its. The fields-only read (what a poll uses) and
//! the whole-document read (`raw`, for `detail`) accept the same bytes and give the same fields.
#![no_main]

use gameserver_exporter::protocol::minecraft::{motd, slp};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fields = slp::parse_status_json(data, false);
    let whole = slp::parse_status_json(data, true).map(|mut s| {
        s.raw = Default::default();
        s
    });
    assert_eq!(fields, whole, "the two reads disagree");
    let Ok(status) = fields else {
        // Not JSON: still render the bytes as a plain-string description.
        let text = String::from_utf8_lossy(data);
        let plain = motd::strip_codes(&text);
        assert!(plain.chars().count() <= motd::MAX_CHARS);
        return;
    };
    assert!(status.sample.len() <= slp::MAX_SAMPLE);
    if let Some(n) = status.favicon_bytes {
        assert!(n <= data.len());
    }
    if let Some(description) = &status.description {
        let plain = motd::plain_text(description);
        assert!(plain.chars().count() <= motd::MAX_CHARS);
        assert!(!plain.contains('§'), "formatting code left in {plain:?}");
    }
});
