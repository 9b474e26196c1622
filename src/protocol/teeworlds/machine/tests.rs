use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::*;
use crate::protocol::teeworlds::ClientKind;

const MS: Duration = Duration::from_millis(1);

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/teeworlds/{name}.bin",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The tokens the captures were made with.
const TOKENS: Tokens = Tokens {
    six: 0x12342a,
    seven: 0x1122_3344,
    browse: 1000,
};

fn kind(d: &[u8]) -> &'static str {
    if six::decode_request(d).is_ok() {
        "six"
    } else {
        match seven::decode_request(d) {
            Ok(seven::Request::Token { .. }) => "token",
            Ok(seven::Request::Info { .. }) => "seven",
            Err(_) => "?",
        }
    }
}

fn transmit(p: Poll) -> Vec<u8> {
    match p {
        Poll::Transmit(d, _) => d,
        other => panic!("expected a transmit, got {other:?}"),
    }
}

fn done(p: Poll) -> Outcome {
    match p {
        Poll::Done(Ok(o)) => o,
        other => panic!("expected an outcome, got {other:?}"),
    }
}

/// DDNet: the extended request goes out alone, the real `iext` ends the exchange at once
/// (no list wanted), with the round trip measured from the send.
#[test]
fn ddnet_answers_first_request() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    let req = transmit(x.poll(t0));
    assert_eq!(req, b"xe\x12\x34\xff\xff\xff\xff\xff\xffgie3\x2a");
    assert_eq!(
        x.poll(t0),
        Poll::Wait(t0 + 500 * MS),
        "the 0.7 fallback is next"
    );
    x.handle_datagram(t0 + 3 * MS, &fixture("ddnet_two_ext.0"));
    let o = done(x.poll(t0 + 3 * MS));
    assert_eq!(o.info.flavour, Flavour::Ddnet);
    assert_eq!(o.info.name, "P3 DDNet");
    assert_eq!(o.rtt, 3 * MS);
    assert!(o.complete);
}

/// Teeworlds 0.7: no answer to the 0.6 request, so after `fallback_after` the handshake
/// starts; the server token from the real reply goes into the info request, and the real
/// 0.7 reply ends it. The round trip is the info request's, not the handshake's.
#[test]
fn seven_after_fallback() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    assert_eq!(kind(&transmit(x.poll(t0))), "six");
    assert!(matches!(x.poll(t0 + 499 * MS), Poll::Wait(_)));
    let token_req = transmit(x.poll(t0 + 500 * MS));
    assert_eq!(kind(&token_req), "token");
    assert_eq!(token_req.len(), 520);
    let token_reply = fixture("tw07_token.0");
    x.handle_datagram(t0 + 510 * MS, &token_reply);
    let info_req = transmit(x.poll(t0 + 510 * MS));
    let server = u32::from_be_bytes(token_reply[8..12].try_into().unwrap());
    assert_eq!(
        seven::decode_request(&info_req),
        Ok(seven::Request::Info {
            server,
            mine: 0x1122_3344,
            browse: 1000
        })
    );
    x.handle_datagram(t0 + 530 * MS, &fixture("tw07_empty_info.0"));
    let o = done(x.poll(t0 + 530 * MS));
    assert_eq!(o.info.flavour, Flavour::Seven);
    assert_eq!(o.info.name, "P3 Teeworlds 0.7");
    assert_eq!(o.rtt, 20 * MS);
}

/// Real DDNet on map dm1 (no 0.7 version of it): it completes the 0.7 handshake, then answers
/// the info request in the 0.6 format with the first byte of our packed browse token (`a8`,
/// 168) as its token. Not an answer to us: set aside as a mismatch, and the exchange goes on.
#[test]
fn ddnet_without_sixup_map_is_set_aside() {
    let t0 = Instant::now();
    let config = ExchangeConfig {
        hint: Some(Flavour::Seven),
        ..ExchangeConfig::default()
    };
    let mut x = Machine::new(t0, TOKENS, config);
    assert_eq!(kind(&transmit(x.poll(t0))), "token");
    x.handle_datagram(t0 + MS, &fixture("ddnet_dm1_07_token.0"));
    assert_eq!(kind(&transmit(x.poll(t0 + MS))), "seven");
    let reply = fixture("ddnet_dm1_07_info.0");
    assert_eq!(&reply[10..17], b"inf3168");
    x.handle_datagram(t0 + 2 * MS, &reply);
    assert!(matches!(x.last_ignored(), Some(DecodeError::Mismatch(_))));
    assert!(matches!(x.poll(t0 + 2 * MS), Poll::Wait(_)));
    // The 0.6 request still goes out at the fallback, and DDNet answers that.
    assert_eq!(kind(&transmit(x.poll(t0 + 500 * MS))), "six");
}

/// With a 0.7 hint the handshake goes first and 0.6 waits for the fallback.
#[test]
fn hint_reorders() {
    let t0 = Instant::now();
    let config = ExchangeConfig {
        hint: Some(Flavour::Seven),
        ..ExchangeConfig::default()
    };
    let mut x = Machine::new(t0, TOKENS, config);
    assert_eq!(kind(&transmit(x.poll(t0))), "token");
    assert_eq!(x.poll(t0), Poll::Wait(t0 + 500 * MS));
    assert_eq!(kind(&transmit(x.poll(t0 + 500 * MS))), "six");
}

/// The real 48-client DDNet reply, its `iex+` first: reassembled in packet order, complete.
#[test]
fn multi_packet_any_order() {
    let t0 = Instant::now();
    let config = ExchangeConfig {
        want_clients: true,
        ..ExchangeConfig::default()
    };
    let mut x = Machine::new(t0, TOKENS, config);
    transmit(x.poll(t0));
    x.handle_datagram(t0 + MS, &fixture("ddnet_many_ext.1"));
    assert!(x.is_pending());
    assert!(matches!(x.poll(t0 + MS), Poll::Wait(_)));
    x.handle_datagram(t0 + 2 * MS, &fixture("ddnet_many_ext.1")); // duplicate: ignored
    x.handle_datagram(t0 + 2 * MS, &fixture("ddnet_many_ext.0"));
    let o = done(x.poll(t0 + 2 * MS));
    assert!(o.complete);
    assert_eq!(o.info.clients.len(), 48);
    assert_eq!(o.info.clients[0].name, "nameless tee");
    assert_eq!(o.info.clients[31].name, "tee29 éé long");
    assert_eq!(o.rtt, MS, "first reply packet counts");
    let spectators = o
        .info
        .clients
        .iter()
        .filter(|c| c.kind == ClientKind::Spectator)
        .count();
    assert_eq!(spectators, 11);
}

/// Without a list wanted, the `iext` alone ends the exchange, marked incomplete.
#[test]
fn counts_only_stop_at_first_packet() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    x.handle_datagram(t0 + MS, &fixture("ddnet_many_ext.0"));
    let o = done(x.poll(t0 + MS));
    assert_eq!(o.info.num_clients, 48);
    assert!(!o.complete);
}

/// A count that lies upwards (packets that never come): after `more_wait` the exchange
/// settles for what came; nothing is resent meanwhile.
#[test]
fn missing_packet_settles() {
    let t0 = Instant::now();
    let config = ExchangeConfig {
        want_clients: true,
        ..ExchangeConfig::default()
    };
    let mut x = Machine::new(t0, TOKENS, config);
    transmit(x.poll(t0));
    x.handle_datagram(t0 + MS, &fixture("ddnet_many_ext.0"));
    assert_eq!(x.poll(t0 + 2 * MS), Poll::Wait(t0 + 301 * MS));
    let o = done(x.poll(t0 + 301 * MS));
    assert!(!o.complete);
    assert_eq!(o.info.clients.len(), 33);
    assert_eq!(o.info.num_clients, 48);
}

/// The `iext` lost, an `iex+` kept: after `more_wait` the request is resent (at its resend
/// time), and the `iext` of the new answer completes the list with the kept packet.
#[test]
fn lost_first_packet_is_asked_again() {
    let t0 = Instant::now();
    let config = ExchangeConfig {
        want_clients: true,
        ..ExchangeConfig::default()
    };
    let mut x = Machine::new(t0, TOKENS, config);
    transmit(x.poll(t0));
    x.handle_datagram(t0 + MS, &fixture("ddnet_many_ext.1"));
    assert_eq!(x.poll(t0 + MS), Poll::Wait(t0 + 301 * MS));
    assert!(
        matches!(x.poll(t0 + 301 * MS), Poll::Wait(_)),
        "not given up"
    );
    assert_eq!(kind(&transmit(x.poll(t0 + 1000 * MS))), "six");
    x.handle_datagram(t0 + 1002 * MS, &fixture("ddnet_many_ext.0"));
    let o = done(x.poll(t0 + 1002 * MS));
    assert!(o.complete);
    assert_eq!(o.info.clients.len(), 48);
}

fn more_packet(token: u32, packet: u32, clients: usize) -> Vec<u8> {
    let mut d = b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xffiex+".to_vec();
    d.extend_from_slice(format!("{token}\0{packet}\0\0").as_bytes());
    for i in 0..clients {
        d.extend_from_slice(format!("bomb{i}\0\x000\x000\x001\0\0").as_bytes());
    }
    d
}

/// The multi-packet bomb: packet numbers past the cap, or more clients than the cap across
/// packets, end the exchange as too large, without collecting further.
#[test]
fn multi_packet_bomb_capped() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    x.handle_datagram(t0, &more_packet(0x12342a, 10_000, 1));
    assert!(matches!(
        x.poll(t0),
        Poll::Done(Err(DecodeError::TooLarge { .. }))
    ));

    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    for p in 1..MAX_PACKETS {
        x.handle_datagram(t0, &more_packet(0x12342a, p, 100));
    }
    assert!(matches!(
        x.poll(t0),
        Poll::Done(Err(DecodeError::TooLarge { value: 300, .. }))
    ));
}

/// More clients listed than the header counts is refused (malformed), not believed.
#[test]
fn count_lying_downwards_is_invalid() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    x.handle_datagram(t0, &more_packet(0x12342a, 1, 20));
    x.handle_datagram(t0, &fixture("ddnet_two_ext.0")); // counts 2 clients
    assert_eq!(
        x.poll(t0),
        Poll::Done(Err(DecodeError::Invalid(
            "more clients listed than counted"
        )))
    );
}

/// Foreign datagrams (other tokens, 0.7 replies to someone else, junk) are set aside and
/// remembered; the exchange keeps waiting.
#[test]
fn foreign_datagrams_ignored() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    x.handle_datagram(t0, &more_packet(0x12342b, 1, 1));
    x.handle_datagram(t0, &fixture("tw07_three_info.0"));
    x.handle_datagram(t0, &[]);
    assert!(matches!(x.last_ignored(), Some(DecodeError::Mismatch(_))));
    assert!(!x.is_pending());
    assert!(matches!(x.poll(t0), Poll::Wait(_)));
    x.handle_datagram(t0 + MS, &fixture("ddnet_two_ext.0"));
    assert!(matches!(x.poll(t0 + MS), Poll::Done(Ok(_))));
}

/// A plain 0.6 server's `inf3` (here DDNet's, token byte 42) is a complete answer.
#[test]
fn vanilla_answer() {
    let t0 = Instant::now();
    let mut x = Machine::new(t0, TOKENS, ExchangeConfig::default());
    transmit(x.poll(t0));
    x.handle_datagram(t0 + MS, &fixture("ddnet_two_06.0"));
    let o = done(x.poll(t0 + MS));
    assert_eq!(o.info.flavour, Flavour::Vanilla06);
    assert!(o.complete);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Polled at arbitrary times, two requests of one kind are never closer than `min_gap`
    /// and the machine never asks to wake in the past.
    #[test]
    fn requests_spaced(steps in proptest::collection::vec(0u64..700, 1..60), gap in 0u64..1500) {
        let t0 = Instant::now();
        let config = ExchangeConfig { min_gap: Duration::from_millis(gap), ..ExchangeConfig::default() };
        let mut x = Machine::new(t0, TOKENS, config);
        let mut now = t0;
        let mut last: std::collections::HashMap<&str, Instant> = Default::default();
        for s in steps {
            now += Duration::from_millis(s);
            loop {
                match x.poll(now) {
                    Poll::Transmit(d, _) => {
                        let k = kind(&d);
                        if let Some(prev) = last.insert(k, now) {
                            prop_assert!(now - prev >= Duration::from_millis(gap.max(1000)));
                        }
                    }
                    Poll::Wait(t) => {
                        prop_assert!(t >= now || t >= t0);
                        break;
                    }
                    Poll::Done(_) => break,
                }
            }
        }
    }

    /// Arbitrary datagrams at any point never panic the machine, and whatever it returns
    /// stays within the caps.
    #[test]
    fn noise(datagrams in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..120), 0..20)) {
        let t0 = Instant::now();
        let config = ExchangeConfig { want_clients: true, ..ExchangeConfig::default() };
        let mut x = Machine::new(t0, TOKENS, config);
        let mut now = t0;
        for d in datagrams {
            now += Duration::from_millis(100);
            x.handle_datagram(now, &d);
            while let Poll::Transmit(..) = x.poll(now) {}
        }
        if let Poll::Done(Ok(o)) = x.poll(now + Duration::from_secs(10)) {
            prop_assert!(o.info.clients.len() <= MAX_CLIENTS as usize);
        }
    }
}
