//! Farming Simulator's stats feed on arbitrary bytes: no panic; an accepted feed normalizes
//! with its capacity, at least its count and every used slot's player.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::farmingsimulator;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(feed) = farmingsimulator::decode_feed(data) {
        let (used, capacity, listed) = (feed.used, feed.capacity, feed.players.len());
        let status = farmingsimulator::to_status(feed, Duration::ZERO, true, true);
        assert!(status.online >= used);
        assert_eq!(status.max, capacity);
        assert_eq!(status.players.map(|p| p.len()), Some(listed));
    }
});
