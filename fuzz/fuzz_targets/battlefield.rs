//! Frostbite packets on arbitrary bytes: framing never panics, never takes more than it was
//! given nor more than the cap, and every packet's words go through the three answers'
//! decoders without a panic; no decoded count passes its cap.
#![no_main]

use gameserver_exporter::protocol::battlefield::{self, info};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    while let Ok(Some((packet, used))) = battlefield::decode(rest, battlefield::MAX_PACKET) {
        assert!(used >= battlefield::HEADER && used <= rest.len().min(battlefield::MAX_PACKET));
        rest = &rest[used..];
        if let Ok(i) = battlefield::decode_server_info(&packet.words) {
            assert!(i.online <= info::MAX_COUNT && i.max <= info::MAX_COUNT);
            assert!(i.team_scores.len() <= info::MAX_TEAMS);
        }
        if let Ok(p) = battlefield::decode_players(&packet.words) {
            assert!(p.len() <= info::MAX_COUNT as usize);
        }
        let _ = battlefield::decode_game(&packet.words);
    }
});
