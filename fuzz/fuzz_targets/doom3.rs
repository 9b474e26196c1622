//! id Tech 4 decoders and poll on arbitrary bytes: no panic in any layout; a decoded reply
//! re-encodes to bytes that decode to the same reply; the poll fed arbitrary datagrams ends
//! by its deadline.
//!
//! Input: byte 0 picks the layout, bytes 1-4 the challenge (so the fuzzer can match the
//! echo), the rest is the datagram; for the poll the rest is read as records
//! `len u8 | len bytes`.
#![no_main]

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::doom3::{self, Dialect, Poll, Step};
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
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_millis(500);
    let (mut poll, _) = Poll::start(dialect, challenge, deadline);
    let mut rest = rest;
    while let [len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        poll.receive(&tail[..n]);
        if let Step::Wait(until) = poll.step(t0) {
            assert_eq!(until, deadline);
        }
        rest = &tail[n..];
    }
    assert!(!matches!(poll.step(deadline), Step::Wait(_)));
});
