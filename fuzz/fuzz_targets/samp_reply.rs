//! Every SA:MP decoder on arbitrary bytes, in both code pages we ship tests for: no panic, and
//! decoded counts fit in what arrived. The expected header is taken from the input itself
//! (so the fuzzer reaches the bodies) and, once more, fixed (so mismatches are exercised).
//! VC:MP's dialect (`MP04` replies, a version in `i`, names alone in `c`) is read too.
#![no_main]

use std::net::Ipv4Addr;

use encoding_rs::{Encoding, WINDOWS_1251, WINDOWS_1252};
use gameserver_exporter::protocol::samp::{self, Header, Opcode, HEADER_LEN};
use gameserver_exporter::protocol::vcmp;
use libfuzzer_sys::fuzz_target;

const FIXED: Header = Header {
    ip: Ipv4Addr::new(127, 0, 0, 1),
    port: 7777,
};

fn echoed(data: &[u8]) -> Option<Header> {
    let ip: [u8; 4] = data.get(4..8)?.try_into().ok()?;
    let port: [u8; 2] = data.get(8..10)?.try_into().ok()?;
    Some(Header {
        ip: Ipv4Addr::from(ip),
        port: u16::from_le_bytes(port),
    })
}

fn replies(data: &[u8], header: &Header, encoding: &'static Encoding) {
    // Room after the header and the u16 count.
    let body = data.len().saturating_sub(HEADER_LEN + 2);
    if let Ok(info) = samp::decode_info(data, header, encoding) {
        let chars = [&info.hostname, &info.gamemode, &info.language]
            .iter()
            .map(|s| s.chars().count())
            .sum::<usize>();
        assert!(HEADER_LEN + 5 + 12 + chars <= data.len());
    }
    if let Ok(rules) = samp::decode_rules(data, header, encoding) {
        assert!(rules.len() * 2 <= body);
    }
    if let Ok(players) = samp::decode_clients(data, header, encoding) {
        assert!(players.len() * 5 <= body);
    }
    if let Ok(players) = samp::decode_detailed(data, header, encoding) {
        assert!(players.len() * 10 <= body);
    }
    let vc = &vcmp::DIALECT;
    if let Ok((info, version)) = samp::decode_info_in(vc, data, header, encoding) {
        let chars = [&info.hostname, &info.gamemode, &info.language]
            .iter()
            .map(|s| s.chars().count())
            .sum::<usize>();
        assert!(HEADER_LEN + vc.info_version + 5 + 12 + chars <= data.len());
        assert!(version.is_some_and(|v| v.chars().count() <= vc.info_version));
    }
    if let Ok(players) = samp::decode_clients_in(vc, data, header, encoding) {
        assert!(players.len() <= body);
    }
    if let Ok(o) = samp::decode_open_mp(data, header, encoding) {
        let chars = [&o.discord, &o.light_banner, &o.dark_banner, &o.logo]
            .iter()
            .map(|s| s.chars().count())
            .sum::<usize>();
        assert!(HEADER_LEN + 16 + chars <= data.len());
    }
}

fuzz_target!(|data: &[u8]| {
    if let Some(header) = echoed(data) {
        let payload = data
            .get(HEADER_LEN..HEADER_LEN + 4)
            .and_then(|p| p.try_into().ok());
        if let Some(payload) = payload {
            let _ = samp::decode_ping(data, &header, payload);
        }
        for encoding in [WINDOWS_1252, WINDOWS_1251] {
            replies(data, &header, encoding);
        }
    }
    replies(data, &FIXED, WINDOWS_1252);
    let _ = samp::decode_ping(data, &FIXED, *b"ping");

    // Server side: an accepted request re-encodes to a prefix of what arrived.
    if let Ok(req) = samp::decode_request(data) {
        assert_eq!(req.len, data.len());
        let mut out = Vec::new();
        match (req.opcode, req.payload) {
            (Opcode::Ping, Some(p)) => samp::encode_ping(&req.header, p, &mut out),
            (Opcode::Ping, None) => panic!("ping request without its payload"),
            (op, _) => samp::encode_request(&req.header, op, &mut out),
        }
        assert!(data.starts_with(&out));
    }
});
