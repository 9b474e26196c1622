//! Satisfactory Lightweight Query decoders on arbitrary bytes: no panic; the cookie is taken
//! from the input (so the fuzzer gets past the echo check); a decoded reply re-encodes to the
//! same header; an accepted request re-encodes to itself.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::satisfactory;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut cookie = [0u8; 8];
    if let Some(b) = data.get(4..12) {
        cookie.copy_from_slice(b);
    }
    let cookie = u64::from_le_bytes(cookie);
    if let Ok(reply) = satisfactory::decode_reply(data, cookie) {
        let mut out = Vec::new();
        satisfactory::encode_reply(&reply, &mut out);
        // Magic, type, version and cookie come back byte for byte (the name may not: it
        // is read as lossy UTF-8).
        assert_eq!(out[..12], data[..12]);
        let _ = satisfactory::to_status(&reply, Duration::ZERO, true);
    }
    if let Ok(c) = satisfactory::decode_request(data) {
        let mut out = Vec::new();
        satisfactory::encode_request(c, &mut out);
        assert_eq!(out, data[..satisfactory::REQUEST_LEN]);
    }
});
