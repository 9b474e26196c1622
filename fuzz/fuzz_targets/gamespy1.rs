//! GameSpy 1 decoders on arbitrary bytes: the input is a list of datagrams, each a
//! little-endian u16 length and that many bytes. Every datagram goes through the packet
//! decoder (no panic; what decodes re-encodes and decodes to the same packet); the pairs of
//! all of them are merged into a reply and mapped to a status. The exchange (reassembly,
//! caps, deadline) is driven by `exchanges`.
#![no_main]

use std::time::Duration;

use gameserver_exporter::protocol::gamespy1::{
    decode_packet, decode_reply, encode_packet, to_status, Style, Want,
};
use libfuzzer_sys::fuzz_target;

/// Pairs merged at most, as the exchange's cap would stop them.
const MAX_PAIRS: usize = 256;

fuzz_target!(|data: &[u8]| {
    let mut rest = data;
    let mut merged = Vec::new();
    while let Some((len, tail)) = rest.split_first_chunk::<2>() {
        let len = usize::from(u16::from_le_bytes(*len)).min(tail.len());
        let (datagram, tail) = tail.split_at(len);
        rest = tail;
        let Ok(p) = decode_packet(datagram) else {
            continue;
        };
        for style in [Style::Unreal, Style::QueryIdFirst] {
            let mut out = Vec::new();
            encode_packet(&p, style, &mut out);
            assert_eq!(decode_packet(&out).as_ref(), Ok(&p), "{style:?}");
        }
        merged.extend(p.pairs);
        merged.truncate(MAX_PAIRS);
    }
    let reply = decode_reply(merged);
    assert!(reply.vars.len() + reply.players.len() <= MAX_PAIRS);
    let want = Want {
        detail: true,
        players: true,
        rules: true,
    };
    let _ = to_status(&reply, want, Duration::ZERO);
});
