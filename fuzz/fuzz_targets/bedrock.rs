//! Bedrock (RakNet unconnected ping/pong) decoders on arbitrary bytes: no panic; the time is
//! taken from the input (so the fuzzer gets past the echo check); a decoded pong's ID string
//! fits in what arrived and under the cap; the status mapping never panics.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::bedrock;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let time = data
        .get(1..9)
        .map(|b| i64::from_be_bytes(b.try_into().unwrap_or([0; 8])))
        .unwrap_or(0);
    if let Ok(pong) = bedrock::decode_pong(data, time) {
        let len = usize::from(u16::from_be_bytes([data[33], data[34]]));
        assert!(bedrock::PONG_HEADER_LEN + len <= data.len());
        assert!(len <= bedrock::MAX_ID_BYTES);
        assert_eq!(pong.time, time);
        let status = bedrock::to_status(&pong, Duration::ZERO, true);
        assert!(!status.name.contains('§'));
    }
    if let Ok(ping) = bedrock::decode_ping(data) {
        assert!(data.len() >= bedrock::PING_LEN);
        let mut out = Vec::new();
        bedrock::encode_ping(ping.time, ping.client_guid, &mut out);
        assert_eq!(out[1..], data[1..bedrock::PING_LEN]);
    }
});
