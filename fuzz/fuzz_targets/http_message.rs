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
        let shown = http::redact(data);
        for (name, value) in &req.headers {
            if name.eq_ignore_ascii_case("authorization") && value.len() > 24 {
                assert!(!shown.windows(value.len()).any(|w| w == value.as_bytes()));
            }
        }
    }
});
