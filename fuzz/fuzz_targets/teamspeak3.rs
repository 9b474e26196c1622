//! TeamSpeak 3 ServerQuery decoders on arbitrary bytes: line framing, records, error lines
//! and the status mapping never panic; a framed line never holds its terminator; escaping
//! what was unescaped reads back the same.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::teamspeak3 as ts3;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Some((line, used)) = ts3::next_line(rest) {
        assert!(!line.contains(&b'\n'));
        assert!(used > 0 && used <= rest.len());
        rest = &rest[used..];
        let _ = ts3::decode_error_line(line);
        let (records, _) = ts3::decode_records(line);
        assert!(records.len() <= ts3::MAX_RECORDS);
        if let Some(first) = records.first() {
            let _ = ts3::to_status(first, Some(&records), Duration::ZERO, true);
            for (_, v) in first {
                let mut e = String::new();
                ts3::escape(v, &mut e);
                assert_eq!(&ts3::unescape(&e), v);
            }
        }
    }
});
