//! GameSpy 3 decoders on arbitrary bytes: no panic; the session id is taken from the input
//! (so the fuzzer gets past the echo check); a decoded body fits in what arrived; accepted
//! requests and handshake replies re-encode to what arrived.
#![no_main]

use gameserver_exporter::protocol::gamespy3::{self as gs3, Parts, Request};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let session = data
        .get(1..5)
        .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
        .unwrap_or(1);
    if let Ok(challenge) = gs3::decode_handshake(data, session) {
        let mut out = Vec::new();
        gs3::encode_handshake_reply(session, challenge, &mut out);
        assert!(out.len() <= data.len());
    }
    if let Ok(part) = gs3::decode_part(data, session) {
        assert_eq!(part.body.len() + gs3::HEADER_LEN, data.len());
        let mut parts = Parts::new();
        if parts.add(&part).is_ok() {
            if let Ok(reply) = gs3::decode_body(parts.bodies()) {
                // Every pair took at least two bytes, every cell at least two.
                let cells: usize = reply
                    .players
                    .rows
                    .iter()
                    .chain(&reply.teams.rows)
                    .map(|r| r.iter().flatten().count())
                    .sum();
                assert!(reply.info.len() * 2 + cells * 2 <= part.body.len());
            }
        }
    }
    // The body alone, as the first part.
    let _ = gs3::decode_body([(0, data)]);
    if let Ok(req) = gs3::decode_request(data) {
        let mut out = Vec::new();
        match req {
            // Bytes after a handshake are ignored, as servers do.
            Request::Handshake { session } => {
                gs3::encode_handshake(session, &mut out);
                assert!(data.starts_with(&out));
            }
            Request::Query {
                session,
                challenge,
                payload,
            } => {
                gs3::encode_request(session, challenge, payload, &mut out);
                assert_eq!(out, data);
            }
        }
    }
});
