//! Unreal 2 decoders and the poll state machine on arbitrary bytes: no panic; decoded lists
//! re-encode to bytes that decode to the same lists; and a poll fed an arbitrary sequence of
//! datagrams and time steps never waits past its deadline and has ended at it.
//!
//! Input: the whole input is one datagram for the decoders; for the poll its first byte says
//! what is wanted (bit 0 rules, bit 1 players) and the rest is read as records
//! `len u8 | step_ms u8 | len bytes`.
#![no_main]

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::unreal2::{self, Body, Poll, Step, Want};
use libfuzzer_sys::fuzz_target;

fn fits(s: &str) -> bool {
    s.encode_utf16().count() <= 126
}

fuzz_target!(|data: &[u8]| {
    let _ = unreal2::decode_request(data);
    if let Ok(reply) = unreal2::decode_reply(data) {
        let mut out = Vec::new();
        match &reply.body {
            Body::Players(p) if p.iter().all(|p| fits(&p.name)) => {
                unreal2::encode_players(reply.version, p, &mut out)
            }
            Body::Rules(r) if r.iter().all(|(k, v)| fits(k) && fits(v)) => {
                unreal2::encode_rules(reply.version, r, &mut out)
            }
            _ => {}
        }
        if !out.is_empty() {
            assert_eq!(unreal2::decode_reply(&out).map(|r| r.body), Ok(reply.body));
        }
    }

    let t0 = Instant::now();
    let deadline = t0 + Duration::from_millis(1000);
    let want = Want {
        rules: data.first().is_some_and(|b| b & 1 == 1),
        players: data.first().is_some_and(|b| b & 2 == 2),
    };
    let (mut poll, _) = Poll::start(want, t0, deadline, Duration::from_millis(100));
    let mut now = t0;
    let mut rest = data.get(1..).unwrap_or_default();
    while let [len, ms, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        now += Duration::from_millis(u64::from(*ms));
        poll.receive(&tail[..n], now);
        if let Step::Wait(until) = poll.step(now) {
            assert!(until <= deadline && until > now);
        }
        rest = &tail[n..];
    }
    assert!(!matches!(poll.step(deadline.max(now)), Step::Wait(_)));
});
