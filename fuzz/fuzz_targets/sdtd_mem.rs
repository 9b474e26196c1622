//! 7 Days to Die telnet console text on arbitrary bytes: every line goes through the
//! dialogue's classifier and the `mem` parser without a panic, and whatever the parser
//! reads is finite and not negative.
#![no_main]

use gameserver_exporter::protocol::sdtd;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        let _ = sdtd::classify(line);
        if let Some(h) = sdtd::parse_mem(line) {
            for v in [
                h.frame_rate_hertz,
                h.memory_heap_bytes,
                h.memory_heap_max_bytes,
                h.memory_resident_bytes,
                h.chunks_loaded,
                h.zombies,
                h.entities,
                h.uptime_seconds,
            ]
            .into_iter()
            .flatten()
            {
                assert!(v.is_finite() && v >= 0.0, "{v}");
            }
        }
    }
});
