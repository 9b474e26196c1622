//! The single-game JSON status pages (Assetto Corsa, Eco, Build and Shoot, ElDewrito,
//! DarkMultiPlayer, Hytale, ...) on arbitrary bytes: no panic; an
//! accepted page normalizes with its own counts.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::{assettocorsa, buildandshoot, eco, eldewrito, hytale, kspdmp};
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
    if let Ok(info) = eco::decode_frontpage(data) {
        let online = info.online_players;
        let s = eco::to_status(info, Duration::ZERO, true, true);
        assert!(s.online >= online);
        assert_eq!(s.max, 0);
    }
    if let Ok(page) = buildandshoot::decode_page(data) {
        let s = buildandshoot::to_status(page, Duration::ZERO, true, true);
        assert_eq!(s.players.map(|p| p.len()), Some(s.online as usize));
    }
    if let Ok(info) = eldewrito::decode_info(data) {
        let (online, max) = (info.num_players, info.max_players);
        let s = eldewrito::to_status(info, Duration::ZERO, true, true);
        assert!(s.online >= online);
        assert_eq!(s.max, max);
    }
    if let Ok(info) = kspdmp::decode_info(data) {
        let (online, max) = (info.player_count, info.max_players);
        let s = kspdmp::to_status(info, Duration::ZERO, true, true);
        assert!(s.online >= online);
        assert_eq!(s.max, max);
        assert!(s.players.iter().flatten().all(|p| !p.name.is_empty()));
    }
    if let Ok(page) = hytale::decode_page(data) {
        let s = hytale::to_status(page, Duration::ZERO, true, true);
        assert!(s.players.map_or(0, |p| p.len()) <= s.online as usize);
    }
});
