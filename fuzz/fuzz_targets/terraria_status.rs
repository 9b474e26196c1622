//! TShock's status JSON on arbitrary bytes: no panic; an accepted answer said "200" and
//! normalizes with its counts.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::terraria;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = terraria::decode_status(data) {
        assert_eq!(s.status, "200");
        let (count, max) = (s.playercount, s.maxplayers);
        let status = terraria::to_status(s, Duration::ZERO, true);
        assert!(status.online >= count);
        assert_eq!(status.max, max);
    }
});
