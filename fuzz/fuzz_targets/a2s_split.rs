//! Split reassembly under small caps. The input is a list of datagrams, each a one-byte
//! length then that many bytes; the first byte picks the fragment cap. Checks: no panic,
//! a reassembled reply never exceeds the byte cap and always starts with the `-1` header, and
//! an unsplit datagram comes back as it is.
#![no_main]

use gameserver_exporter::protocol::a2s::split::{Limits, Reassembler};
use gameserver_exporter::protocol::a2s::{SINGLE_HEADER, SPLIT_HEADER};
use libfuzzer_sys::fuzz_target;

const MAX_BYTES: usize = 2048;

fuzz_target!(|data: &[u8]| {
    let Some((&cap, mut rest)) = data.split_first() else {
        return;
    };
    let limits = Limits {
        max_packets: cap % 17,
        max_bytes: MAX_BYTES,
    };
    let mut reassembler = Reassembler::new(limits);
    while let Some((&len, tail)) = rest.split_first() {
        let len = usize::from(len).min(tail.len());
        let (datagram, tail) = tail.split_at(len);
        rest = tail;
        match reassembler.handle_datagram(datagram) {
            Ok(Some(msg)) if datagram.starts_with(&SINGLE_HEADER) => assert_eq!(msg, datagram),
            Ok(Some(msg)) => {
                assert!(datagram.starts_with(&SPLIT_HEADER));
                assert!(msg.len() <= MAX_BYTES, "reassembled {} bytes", msg.len());
                assert!(msg.starts_with(&SINGLE_HEADER));
            }
            Ok(None) | Err(_) => {}
        }
        if rest.len() % 7 == 3 {
            // Exercise the between-exchanges reset now and then.
            reassembler.discard_pending();
            assert!(!reassembler.is_pending());
        }
    }
});
