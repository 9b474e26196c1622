//! Satisfactory's HTTPS API answer (`QueryServerState`) on arbitrary bytes: no panic; an
//! accepted tick rate is finite and non-negative; a game phase always has a short name.
#![no_main]

use gameserver_exporter::protocol::satisfactory::api;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(s) = api::decode_query_server_state(data) {
        assert!(s
            .average_tick_rate
            .is_none_or(|t| t.is_finite() && t >= 0.0));
        if let Some(p) = &s.game_phase {
            let _ = api::phase_name(p);
        }
    }
});
