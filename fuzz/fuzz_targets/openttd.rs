//! OpenTTD packets on arbitrary bytes: framing never panics, never takes more than it was
//! given nor more than OpenTTD's packet cap, and every packet's body goes through the game
//! info decoder and the mapping to Status without a panic.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::openttd::{self, HEADER, MAX_PACKET};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Ok(Some((packet, used))) = openttd::decode_packet(rest, MAX_PACKET) {
        assert!(used >= HEADER && used <= rest.len().min(MAX_PACKET));
        rest = &rest[used..];
        if let Ok(g) = openttd::decode_game_info(&packet.body) {
            assert!(g.grfs.len() <= 255);
            let s = openttd::to_status(&g, true, true, Duration::ZERO);
            assert!(s.online <= 255 && s.max <= 255);
        }
    }
    let _ = openttd::decode_game_info(data);
});
