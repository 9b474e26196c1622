//! The GameSpy 3 exchange driven by a sequence of (time step, datagram) records: it never
//! panics, never waits past its deadline, and ends at the deadline whatever it was fed.
//! Record: one byte of time step (x 16 ms), one byte of length, then the datagram; the
//! session id bytes of each datagram are overwritten with ours so the fuzzer reaches parts.
#![no_main]

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::gamespy3::{Exchange, Options, Step};
use libfuzzer_sys::fuzz_target;

const SESSION: i32 = 0x1020_3040;

fuzz_target!(|data: &[u8]| {
    let t0 = Instant::now();
    let timeout = Duration::from_secs(3);
    let options = Options {
        timeout,
        skip_handshake: data.first().is_some_and(|b| b & 1 == 1),
        ..Options::default()
    };
    let mut ex = Exchange::new(SESSION, options, t0);
    let mut out = Vec::new();
    let mut now = t0;
    let mut rest = data.get(1..).unwrap_or_default();
    while let [step, len, tail @ ..] = rest {
        let n = usize::from(*len).min(tail.len());
        let mut datagram = tail[..n].to_vec();
        rest = &tail[n..];
        if datagram.len() >= 5 {
            datagram[1..5].copy_from_slice(&SESSION.to_be_bytes());
        }
        now += Duration::from_millis(u64::from(*step) * 16);
        ex.handle(now, &datagram);
        if let Step::Wait(until) = ex.poll(now, &mut out) {
            assert!(until > now && until <= t0 + timeout);
        }
    }
    let end = t0 + timeout;
    for _ in 0..4 {
        match ex.poll(end.max(now), &mut out) {
            Step::Done(_) | Step::Failed(_) => return,
            Step::Wait(until) => panic!("waits past the deadline, until {until:?}"),
            Step::Send(_) => {}
        }
    }
    panic!("no end at the deadline");
});
