//! Mumble ping decoders on arbitrary bytes: no panic; the ident is taken from the input (so
//! the fuzzer gets past the echo check); a decoded reply held all 24 bytes and re-encodes to
//! them; an accepted request is exactly 12 bytes and re-encodes to them.
#![no_main]

use gameserver_exporter::protocol::mumble;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut ident = [0u8; 8];
    if let Some(b) = data.get(4..12) {
        ident.copy_from_slice(b);
    }
    if let Ok(pong) = mumble::decode_pong(data, ident) {
        assert!(data.len() >= mumble::REPLY_LEN);
        let mut out = Vec::new();
        mumble::encode_pong(&pong, &mut out);
        assert_eq!(out, data[..mumble::REPLY_LEN]);
    }
    if let Ok(ident) = mumble::decode_ping(data) {
        let mut out = Vec::new();
        mumble::encode_ping(ident, &mut out);
        assert_eq!(out, data);
    }
});
