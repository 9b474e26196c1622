//! The Quake 2, QuakeWorld and HexenWorld decoders (one shared frame) on arbitrary bytes: no panic, the
//! caps hold, what decodes is no bigger than what arrived, and the mapping to Status never
//! panics nor counts more bots than players.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::quake2::{self, MAX_LINES};
use gameserver_exporter::protocol::quake3::Want;
use gameserver_exporter::protocol::{hexen2, quake1};
use libfuzzer_sys::fuzz_target;

const ALL: Want = Want {
    detail: true,
    players: true,
    rules: true,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = quake2::decode_reply(data) {
        assert!(r.players.len() <= MAX_LINES.min(r.total));
        assert!(r.total <= data.len());
        let s = quake2::to_status(&r, ALL, Duration::ZERO);
        assert!(s.bots.unwrap_or(0) <= s.online);
    }
    if let Ok(r) = quake1::decode_reply(data) {
        assert!(r.players.len() <= MAX_LINES.min(r.total));
        assert!(r.total <= data.len());
        let s = quake1::to_status(&r, ALL, Duration::ZERO);
        assert!(s.bots.unwrap_or(0) <= s.online);
    }
    // HexenWorld: QuakeWorld's reply behind a fifth FF.
    if let Ok(r) = hexen2::decode_reply(data) {
        assert!(r.players.len() <= MAX_LINES.min(r.total));
        assert!(r.total <= data.len());
    }
    let _ = hexen2::is_request(data);
    assert!(quake1::plain(data).len() <= data.len());
    let _ = quake2::is_request(data);
});
