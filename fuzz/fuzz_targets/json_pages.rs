//! The single-game JSON status pages (Assetto Corsa, ...) on arbitrary bytes: no panic; an
//! accepted page normalizes with its own counts.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::assettocorsa;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(info) = assettocorsa::decode_info(data) {
        let (online, max) = (info.clients, info.maxclients);
        let s = assettocorsa::to_status(info, None, Duration::ZERO, true);
        assert_eq!((s.online, s.max), (online, max));
    }
    if let Ok(players) = assettocorsa::decode_cars(data) {
        assert!(players.len() <= data.len());
    }
});
