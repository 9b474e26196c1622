//! FiveM's `/players.json` on arbitrary bytes: no panic; an accepted list has at most one
//! player per few bytes of input.
#![no_main]

use gameserver_exporter::protocol::fivem::players;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(list) = players::decode_players(data) {
        assert!(list.len() <= data.len());
    }
});
