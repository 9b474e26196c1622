//! Minecraft Query decoders on arbitrary bytes: no panic, the session id is taken from the
//! input (so the fuzzer reaches the bodies), decoded lists fit in what arrived, and accepted
//! requests re-encode to what arrived.
#![no_main]

use gameserver_exporter::protocol::minecraft::query::{self, Request};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let session = data
        .get(1..5)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(1);
    for session in [session, 1] {
        let _ = query::decode_handshake(data, session);
        if let Ok(stat) = query::decode_basic_stat(data, session) {
            let chars = [&stat.motd, &stat.gametype, &stat.map, &stat.host_ip]
                .iter()
                .map(|s| s.chars().count())
                .sum::<usize>();
            assert!(5 + chars + 7 + 2 <= data.len());
        }
        if let Ok(full) = query::decode_full_stat(data, session) {
            assert!(5 + 11 + full.values.len() * 3 + full.players.len() * 2 + 12 <= data.len());
        }
    }
    if let Ok(req) = query::decode_request(data) {
        let mut out = Vec::new();
        let masked = match req {
            Request::Handshake { session } => {
                query::encode_handshake(session, &mut out);
                Request::Handshake {
                    session: query::mask_session(session),
                }
            }
            Request::BasicStat { session, token } => {
                query::encode_basic_stat(session, token, &mut out);
                Request::BasicStat {
                    session: query::mask_session(session),
                    token,
                }
            }
            Request::FullStat { session, token } => {
                query::encode_full_stat(session, token, &mut out);
                Request::FullStat {
                    session: query::mask_session(session),
                    token,
                }
            }
        };
        // The encoder masks the session id; everything else is what arrived.
        assert!(out.len() <= data.len());
        assert_eq!(query::decode_request(&out), Ok(masked));
    }
});
