//! Palworld's info, metrics and players JSON on arbitrary bytes: no panic; accepted metrics
//! carry finite, non-negative health figures.
#![no_main]

use gameserver_exporter::protocol::palworld;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = palworld::decode_info(data);
    if let Ok(m) = palworld::decode_metrics(data) {
        for v in [m.serverfps, m.serverframetime].into_iter().flatten() {
            assert!(v.is_finite() && v >= 0.0);
        }
    }
    let _ = palworld::decode_players(data);
});
