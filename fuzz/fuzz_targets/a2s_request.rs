//! The simulator-side A2S request decoder on arbitrary bytes: no panic, and every request it
//! accepts re-encodes to a prefix of what arrived (trailing bytes are ignored, as servers do).
#![no_main]

use gameserver_exporter::protocol::a2s::{self, Query};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(query) = a2s::decode_request(data) else {
        return;
    };
    let mut out = Vec::new();
    match query {
        Query::Info { challenge } => a2s::encode_info_request(challenge, &mut out),
        Query::Players { challenge } => a2s::encode_player_request(challenge, &mut out),
        Query::Rules { challenge } => a2s::encode_rules_request(challenge, &mut out),
        Query::Ping => a2s::encode_ping_request(&mut out),
        Query::GetChallenge => {
            out.extend_from_slice(&a2s::SINGLE_HEADER);
            out.push(a2s::kind::GET_CHALLENGE);
        }
    }
    assert!(data.starts_with(&out), "{query:?} re-encodes to {out:02x?}");
    assert_eq!(a2s::decode_request(&out), Ok(query));
});
