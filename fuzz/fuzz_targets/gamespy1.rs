//! GameSpy 1 on arbitrary bytes. Every datagram goes through the packet decoder (no panic;
//! what decodes re-encodes and decodes to the same packet) and through the reassembly state
//! machine under small caps. The input is a list of events: a zero byte and one more byte is a
//! clock step of that many 100 ms; any other byte, then a little-endian u16 `n`, is a datagram
//! of the next `n` bytes.
//! Checks: no panic, a finished exchange stays finished, a merged reply holds no more pairs
//! than the cap, and a step past the deadline always ends the exchange.
#![no_main]

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy1::{
    decode_packet, encode_packet, to_status, Exchange, Limits, Query, Step, Style, Want,
};
use libfuzzer_sys::fuzz_target;

const TIMEOUT: Duration = Duration::from_secs(2);

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_parts: 6,
        max_bytes: 1024,
        max_pairs: 64,
    };
    let t0 = Instant::now();
    let mut now = t0;
    let mut x = Exchange::new(Query::Status, TIMEOUT, limits);
    assert!(matches!(x.start(now), Step::Send(_)));
    let mut ended = false;
    let mut rest = data;
    while let Some((&tag, tail)) = rest.split_first() {
        let step = if tag == 0 {
            let Some((&n, tail)) = tail.split_first() else {
                break;
            };
            rest = tail;
            now += Duration::from_millis(100) * u32::from(n);
            x.on_tick(now)
        } else {
            let Some((len, tail)) = tail.split_first_chunk::<2>() else {
                break;
            };
            let len = usize::from(u16::from_le_bytes(*len)).min(tail.len());
            let (datagram, tail) = tail.split_at(len);
            rest = tail;
            check_packet(datagram);
            x.on_datagram(datagram, now)
        };
        match step {
            Step::Done(reply) => {
                assert!(!ended, "a second result");
                assert!(reply.vars.len() + reply.players.len() <= limits.max_pairs);
                let _ = to_status(
                    &reply,
                    Want {
                        detail: true,
                        players: true,
                        rules: true,
                    },
                    Duration::ZERO,
                );
                ended = true;
            }
            Step::Failed(_) => ended = true,
            Step::WaitUntil(at) => {
                assert!(!ended, "waiting after the end");
                assert!(now < t0 + TIMEOUT && at == t0 + TIMEOUT);
            }
            Step::Send(_) => panic!("a second request"),
        }
    }
});

fn check_packet(datagram: &[u8]) {
    let Ok(p) = decode_packet(datagram) else {
        return;
    };
    for style in [Style::Unreal, Style::QueryIdFirst] {
        let mut out = Vec::new();
        encode_packet(&p, style, &mut out);
        assert_eq!(decode_packet(&out).as_ref(), Ok(&p), "{style:?}");
    }
}
