//! FiveM `getinfo` decoders on arbitrary bytes: no panic; the challenge is taken from the
//! input's `challenge` variable (so the fuzzer gets past the echo check); a decoded reply
//! normalizes without panic; an accepted request re-encodes to a request the decoder reads
//! the same.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::fivem;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let challenge = text
        .split("\\challenge\\")
        .nth(1)
        .and_then(|rest| rest.split('\\').next())
        .unwrap_or("fuzz");
    if let Ok(info) = fivem::decode_reply(data, challenge) {
        let s = fivem::to_status(&info, Duration::ZERO, true, true);
        assert!(s
            .rules
            .is_some_and(|r| r.iter().all(|(k, _)| k != "challenge")));
    }
    if let Ok(Some(c)) = fivem::decode_request(data) {
        let mut out = Vec::new();
        fivem::encode_request(&c, &mut out);
        assert_eq!(fivem::decode_request(&out), Ok(Some(c)));
    }
});
