//! Unreal 2 decoders on arbitrary bytes: no panic; decoded lists re-encode to bytes that
//! decode to the same lists. The exchange is driven by `exchanges`.
#![no_main]

use gameserver_exporter::protocol::unreal2::{self, Body};
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
});
