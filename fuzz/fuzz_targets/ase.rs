//! ASE decoder on arbitrary bytes: no panic; every decoded rule and player took bytes; a
//! decoded reply re-encodes to bytes that decode to the same reply (players without a known
//! field get an empty name).
#![no_main]

use gameserver_exporter::protocol::ase;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = ase::decode_request(data);
    if let Ok(reply) = ase::decode_reply(data) {
        // A rule takes two length bytes at least, a player its flags byte.
        assert!(4 + 9 + reply.rules.len() * 2 + reply.players.len() <= data.len());
        let mut out = Vec::new();
        ase::encode_reply(&reply, &mut out);
        // A player whose flags name no known field is written with an empty name (a flags
        // byte of 0 would end the list).
        let mut reply = reply;
        for p in &mut reply.players {
            if p.flags() == 0 {
                p.name = Some(String::new());
            }
        }
        // Lossy decoding can make a string longer than a length byte holds; the encoder cuts
        // those, so only replies whose strings all fit round-trip exactly.
        let fixed = [
            &reply.game,
            &reply.port,
            &reply.name,
            &reply.gametype,
            &reply.map,
            &reply.version,
            &reply.password,
            &reply.players_online,
            &reply.players_max,
        ];
        let rules = reply.rules.iter().flat_map(|(k, v)| [k, v]);
        let players = reply.players.iter().flat_map(|p| {
            [&p.name, &p.team, &p.skin, &p.score, &p.ping, &p.time]
                .into_iter()
                .flatten()
        });
        let fits = fixed
            .into_iter()
            .chain(rules)
            .chain(players)
            .all(|s| s.len() <= ase::MAX_STRING);
        if fits {
            assert_eq!(ase::decode_reply(&out), Ok(reply));
        }
    }
});
