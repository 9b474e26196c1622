//! Rust's WebRCON replies on arbitrary bytes: the upgrade answer and the WebSocket framing
//! never panic and never take more than they were given (a frame length is refused past the
//! cap from its header alone); every payload goes through the message and `serverinfo`
//! parsers without a panic, and whatever they read is finite and not negative.
#![no_main]

use gameserver_exporter::protocol::webrcon::{self, websocket};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(Some((_, used))) = websocket::decode_upgrade(data, "dGhlIHNhbXBsZSBub25jZQ==") {
        assert!(used <= data.len());
    }
    let mut rest = data;
    while let Ok(Some((frame, used))) = websocket::decode_frame(rest, 4096) {
        assert!(used > 0 && used <= rest.len() && frame.payload.len() <= 4096);
        rest = &rest[used..];
        let Ok(reply) = webrcon::parse_reply(&frame.payload) else {
            continue;
        };
        if let Ok(info) = webrcon::parse_serverinfo(&reply.message) {
            let h = info.health;
            for v in [
                h.frame_rate_hertz,
                h.memory_heap_bytes,
                h.memory_resident_bytes,
                h.entities,
                h.players_joining,
                h.network_receive_bytes_per_second,
                h.network_transmit_bytes_per_second,
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
