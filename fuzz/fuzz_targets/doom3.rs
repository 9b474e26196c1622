//! id Tech 4 decoders on arbitrary bytes: no panic in any layout; a decoded reply
//! re-encodes to bytes that decode to the same reply; the layout detection agrees with a
//! decode in the layout it names. The exchange is driven by `exchanges`.
//!
//! Input: byte 0 picks the layout, bytes 1-4 the challenge (so the fuzzer can match the
//! echo), the rest is the datagram.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::doom3::{self, Dialect};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let [pick, c0, c1, c2, c3, rest @ ..] = data else {
        return;
    };
    let dialect = match pick % 4 {
        0 => Dialect::Doom3,
        1 => Dialect::Quake4,
        2 => Dialect::Etqw,
        _ => Dialect::Wolfenstein,
    };
    let challenge = u32::from_le_bytes([*c0, *c1, *c2, *c3]);
    let _ = doom3::decode_request(rest);
    if let Ok(reply) = doom3::decode_reply(rest, dialect, challenge) {
        let _ = doom3::to_status(&reply, dialect, Duration::ZERO, true);
        // Names and values with a NUL cannot exist after decoding; re-encoding is exact
        // except where the layout lacks a field the tail decoder filled leniently.
        let mut out = Vec::new();
        doom3::encode_reply(&reply, dialect, &mut out);
        let again = doom3::decode_reply(&out, dialect, challenge).map(|r| (r.vars, r.players));
        assert_eq!(again, Ok((reply.vars.clone(), reply.players.clone())));
    }
    if let Ok((reply, detected)) = doom3::decode_detected(rest, challenge) {
        assert_eq!(doom3::decode_reply(rest, detected, challenge), Ok(reply));
    }
});
