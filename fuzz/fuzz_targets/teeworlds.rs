//! Every Teeworlds decoder on arbitrary bytes: no panic, client lists within the cap and
//! within what arrived. Tokens are taken from the input itself (so the fuzzer reaches the
//! bodies) and, once more, fixed (so mismatches are exercised). The exchange machine needs
//! the daemon half, so its arbitrary-bytes property lives in `query/teeworlds/machine/`.
#![no_main]

use gameserver_exporter::protocol::teeworlds::{seven, six, MAX_CLIENTS};
use gameserver_exporter::protocol::Reader;
use libfuzzer_sys::fuzz_target;

/// The 0.6 token a reply claims: its first decimal field, if any.
fn six_token(data: &[u8]) -> Option<u32> {
    let mut r = Reader::new(data.get(14..)?);
    std::str::from_utf8(r.cstr().ok()?).ok()?.parse().ok()
}

fn six_replies(data: &[u8], token: u32) {
    let listed = match six::decode_reply(data, token) {
        Ok(six::Reply::Vanilla(i)) | Ok(six::Reply::Extended(i)) => i.clients.len(),
        Ok(six::Reply::More { clients, .. }) => clients.len(),
        Err(_) => 0,
    };
    // Each client is at least 10 bytes (5 strings, 2 of them digits).
    assert!(listed * 10 <= data.len());
    assert!(listed <= MAX_CLIENTS as usize);
}

fn seven_replies(data: &[u8], mine: u32) {
    if let Ok(info) = seven::decode_info_reply(data, mine, 5) {
        assert!(info.clients.len() * 5 <= data.len());
        assert!(info.clients.len() <= MAX_CLIENTS as usize);
    }
    let _ = seven::decode_token_reply(data, mine);
}

fuzz_target!(|data: &[u8]| {
    if let Some(token) = six_token(data) {
        six_replies(data, token);
    }
    six_replies(data, 0x12342a);
    if let Some(mine) = data.get(1..5) {
        seven_replies(data, u32::from_be_bytes([mine[0], mine[1], mine[2], mine[3]]));
    }
    seven_replies(data, 0x1122_3344);

    // Server side: an accepted 0.6 request re-encodes to exactly what arrived.
    if let Ok(req) = six::decode_request(data) {
        let mut out = Vec::new();
        if req.extended {
            six::encode_request(req.token, &mut out);
        } else {
            six::encode_vanilla_request(req.token as u8, &mut out);
        }
        assert!(data.starts_with(&out));
    }
    let _ = seven::decode_request(data);
});
