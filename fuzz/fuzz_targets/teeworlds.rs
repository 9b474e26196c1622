//! Every Teeworlds decoder on arbitrary bytes: no panic, client lists within the cap and
//! within what arrived. Tokens are taken from the input itself (so the fuzzer reaches the
//! bodies) and, once more, fixed (so mismatches are exercised). Then the whole exchange
//! (dialect detection, resends, the 0.7 handshake, DDNet's multi-packet lists) is driven with
//! the same bytes as its input sequence (`protocol::exchange::replay`): it must finish by its
//! deadline without panicking, whichever dialect it asks first.
#![no_main]

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::exchange::replay::replay;
use gameserver_exporter::protocol::exchange::Params;
use gameserver_exporter::protocol::teeworlds::exchange::Teeworlds;
use gameserver_exporter::protocol::teeworlds::machine::Tokens;
use gameserver_exporter::protocol::teeworlds::{seven, six, Flavour, MAX_CLIENTS};
use gameserver_exporter::protocol::Reader;
use libfuzzer_sys::fuzz_target;

/// The tokens the captures in tests/fixtures/teeworlds were made with.
const TOKENS: Tokens = Tokens {
    six: 0x12342a,
    seven: 0x1122_3344,
    browse: 1000,
};

/// The exchange through `script`, asking `hint`'s dialect first.
fn exchange(script: &[u8], hint: Option<Flavour>) {
    let params = Params {
        players: true,
        detail: script.len() % 2 == 0,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let min_gap = Duration::from_millis(500);
    let mut x = Teeworlds::new(params, hint, TOKENS, min_gap, deadline);
    let r = replay(&mut x, start, deadline, script);
    assert!(!r.stuck(), "the exchange neither finished nor waited");
    assert!(r.ended <= deadline + Duration::from_millis(1));
    if let Some(Ok(status)) = &r.result {
        assert!(status.players.as_ref().map_or(0, Vec::len) <= MAX_CLIENTS as usize);
    }
}

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
        seven_replies(
            data,
            u32::from_be_bytes([mine[0], mine[1], mine[2], mine[3]]),
        );
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

    exchange(data, None);
    exchange(data, Some(Flavour::Seven));
});
