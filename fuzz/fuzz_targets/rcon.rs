//! Source RCON replies on arbitrary bytes: packet framing never panics and never takes more
//! than it was given; every packet body, read as text, goes through the Factorio and ARK
//! decoders, the Source console's (`stats`, `status`, Project Zomboid's `players`, Conan
//! Exiles' `listplayers`) and the Minecraft health parsers (`/tick query`, Paper `tps`/`mspt`) without a panic,
//! and whatever they read is finite and not negative.
#![no_main]

use gameserver_exporter::protocol::a2s::{console_players, console_status, health as source};
use gameserver_exporter::protocol::{arkrcon, factorio};
use gameserver_exporter::protocol::minecraft::health;
use gameserver_exporter::protocol::rcon;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Ok(Some((packet, used))) = rcon::decode(rest) {
        assert!(used > 0 && used <= rest.len());
        rest = &rest[used..];
        let text = String::from_utf8_lossy(&packet.body);
        let _ = factorio::decode_count(&text);
        let _ = factorio::decode_list(&text);
        if let Ok(players) = arkrcon::decode_list(&text) {
            assert!(players.len() <= arkrcon::MAX_PLAYERS);
        }
        let _ = console_status::parse_status(&text);
        let _ = console_players::parse_zomboid(&text);
        let _ = console_players::parse_conan(&text);
        let _ = source::parse_stats(&text);
        let healths = [
            health::parse_tick_query(&text),
            health::paper(&text, Some(&text)),
        ];
        for h in healths.into_iter().flatten() {
            for v in [
                h.tick_rate_hertz,
                h.tick_target_rate_hertz,
                h.tick_duration_seconds,
            ]
            .into_iter()
            .flatten()
            {
                assert!(v.is_finite() && v >= 0.0, "{v}");
            }
        }
    }
});
