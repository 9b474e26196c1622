//! Every Quake 3 decoder on arbitrary bytes: no panic, the caps hold, and what decodes is no
//! bigger than what arrived; the mapping to Status never panics either. The request decoder
//! (server side) round-trips what it accepts.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::quake3::{self, Kind, Want, MAX_PLAYERS, MAX_VARS};
use libfuzzer_sys::fuzz_target;

const ALL: Want = Want {
    detail: true,
    players: true,
    rules: true,
};

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = quake3::decode_reply(data) {
        assert!(r.vars.pairs.len() <= MAX_VARS);
        let pairs = r.vars.pairs.len() + r.vars.dropped;
        let lines = r.players.as_ref().map_or(0, |p| p.total);
        assert!(pairs * 2 + lines <= data.len());
        if let Some(p) = &r.players {
            assert!(p.list.len() <= MAX_PLAYERS.min(p.total));
            assert_eq!(r.kind, Kind::Status);
        }
        let s = quake3::to_status(&r, Some(&r), ALL, Duration::ZERO);
        assert!(s.bots.unwrap_or(0) <= s.online);
        assert!(s.players.map_or(0, |p| p.len()) <= MAX_PLAYERS);
    }
    let _ = quake3::decode_status(data, Some("deadbeef"));
    let _ = quake3::decode_info(data, None);
    let clean = String::from_utf8_lossy(data);
    assert!(quake3::strip_colors(&clean).len() <= clean.len());

    if let Ok(req) = quake3::decode_request(data) {
        let mut out = Vec::new();
        let challenge = req.challenge.clone().unwrap_or_default();
        quake3::encode_request(req.command, &challenge, &mut out);
        let again = quake3::decode_request(&out).expect("re-encoded request decodes");
        assert_eq!(again.command, req.command);
    }
});
