//! The HTTP message form on arbitrary bytes (`protocol::http`): a response or request that
//! decodes re-encodes to something that decodes the same; redaction never panics and never
//! shows a secret header's value.
#![no_main]

use gameserver_exporter::protocol::http;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = http::decode_response(data) {
        assert!(r.headers.len() <= http::MAX_HEADERS);
        let mut out = Vec::new();
        http::encode_response(r.status, r.headers.iter().copied(), r.body, &mut out);
        let again = http::decode_response(&out).expect("re-encoded response decodes");
        assert_eq!(again.status, r.status);
        assert_eq!(again.body, r.body);
        let _ = r.json();
    }
    if let Ok(req) = http::decode_request(data) {
        let mut out = Vec::new();
        http::encode_request(req.method, req.target, &req.headers, req.body, &mut out);
        assert_eq!(out, data);
        // Structurally: every Authorization header of what is shown carries the redaction
        // mark, never a value (a substring search is fooled by values repeated elsewhere).
        let shown = http::redact(data);
        if let Ok(shown) = http::decode_request(&shown) {
            for (name, value) in &shown.headers {
                if name.eq_ignore_ascii_case("authorization") {
                    assert!(value.starts_with("<redacted "), "{value:?}");
                }
            }
        }
    }
});
