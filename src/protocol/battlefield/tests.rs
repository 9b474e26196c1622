//! Byte dumps of the framing, the three answers' words, and arbitrary input.

use super::*;

fn words(w: &[&str]) -> Vec<String> {
    w.iter().map(|s| s.to_string()).collect()
}

/// `serverInfo` as a client sends it: flags, size 27, one word of 10 bytes and its NUL.
#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(5, &["serverInfo"], &mut out);
    let mut expect = vec![0x05, 0, 0, 0x80, 27, 0, 0, 0, 1, 0, 0, 0, 10, 0, 0, 0];
    expect.extend_from_slice(b"serverInfo\0");
    assert_eq!(out, expect);
    let (p, used) = decode(&out, MAX_PACKET).unwrap().unwrap();
    assert_eq!((p.number(), p.is_response(), used), (5, false, 27));
    assert_eq!(p.words, ["serverInfo"]);
}

#[test]
fn framing_waits_and_refuses() {
    let mut out = Vec::new();
    encode(RESPONSE | 9, &["OK", "BF4", "179665"], &mut out);
    for cut in 0..out.len() {
        assert_eq!(decode(&out[..cut], MAX_PACKET), Ok(None), "cut at {cut}");
    }
    // Two packets back to back: the first alone is consumed.
    let mut two = out.clone();
    two.extend_from_slice(&out);
    assert_eq!(decode(&two, MAX_PACKET).unwrap().unwrap().1, out.len());
    // A size below what the words take, or above it.
    for delta in [-1i64, 1] {
        let mut bad = out.clone();
        bad.push(0);
        let size = (out.len() as i64 + delta) as u32;
        bad[4..8].copy_from_slice(&size.to_le_bytes());
        assert!(decode(&bad, MAX_PACKET).is_err(), "delta {delta}");
    }
    // 2^31 words in a few bytes: refused from the header, nothing allocated.
    let mut huge = out.clone();
    huge[8..12].copy_from_slice(&(1u32 << 31).to_le_bytes());
    assert!(matches!(
        decode(&huge[..12], MAX_PACKET),
        Err(DecodeError::Overrun {
            value: 2147483648,
            ..
        })
    ));
    // 1 MiB announced: too large before a byte of it comes.
    let mut big = out.clone();
    big[4..8].copy_from_slice(&(1u32 << 20).to_le_bytes());
    assert!(matches!(
        decode(&big[..12], MAX_PACKET),
        Err(DecodeError::TooLarge { .. })
    ));
    // A size below the header.
    let mut small = out.clone();
    small[4..8].copy_from_slice(&4u32.to_le_bytes());
    assert!(decode(&small, MAX_PACKET).is_err());
    // A word without its NUL.
    let mut nonul = out.clone();
    let last = nonul.len() - 1;
    nonul[last] = b'x';
    assert!(decode(&nonul, MAX_PACKET).is_err());
}

/// A BF4 `serverInfo` (as BF4 R-20 servers answer): two teams, then the whole tail.
#[test]
fn bf4_server_info() {
    let w = words(&[
        "OK",
        "My BF4",
        "12",
        "64",
        "ConquestLarge0",
        "MP_Siege",
        "0",
        "2",
        "2",
        "812.5",
        "640",
        "0",
        "",
        "true",
        "true",
        "false",
        "53212",
        "1140",
        "1.2.3.4:25200",
        "v1.891",
        "false",
        "EU",
        "ams",
        "NL",
        "0",
        "IN_GAME",
    ]);
    let i = decode_server_info(&w).unwrap();
    assert_eq!((i.name.as_str(), i.online, i.max), ("My BF4", 12, 64));
    assert_eq!(
        (i.mode.as_str(), i.map.as_str()),
        ("ConquestLarge0", "MP_Siege")
    );
    assert_eq!((i.rounds_played, i.rounds_total), (0, 2));
    assert_eq!(i.team_scores, [812.5, 640.0]);
    assert_eq!(i.target_score, 0);
    assert_eq!(
        (i.ranked, i.punkbuster, i.password),
        (Some(true), Some(true), Some(false))
    );
    assert_eq!((i.uptime, i.round_time), (Some(53212), Some(1140)));
    assert_eq!(i.address.as_deref(), Some("1.2.3.4:25200"));
    assert_eq!(i.punkbuster_version.as_deref(), Some("v1.891"));
    assert_eq!(i.join_queue, Some(false));
    assert_eq!(
        (
            i.region.as_deref(),
            i.ping_site.as_deref(),
            i.country.as_deref()
        ),
        (Some("EU"), Some("ams"), Some("NL"))
    );
}

/// Bad Company 2: four teams (squad rush), its game mod and map pack before the address;
/// and a BF3 that stops after the online state.
#[test]
fn bc2_and_short_server_info() {
    let w = words(&[
        "OK",
        "BC2 srv",
        "3",
        "32",
        "SQRUSH",
        "Levels/MP_002",
        "1",
        "2",
        "4",
        "10",
        "20",
        "30",
        "40",
        "0",
        "",
        "false",
        "true",
        "true",
        "99",
        "9",
        "BC2",
        "",
        "5.6.7.8:19567",
    ]);
    let i = decode_server_info(&w).unwrap();
    assert_eq!(i.team_scores, [10.0, 20.0, 30.0, 40.0]);
    assert_eq!(i.password, Some(true));
    assert_eq!(i.address.as_deref(), Some("5.6.7.8:19567"));
    let short = words(&[
        "OK",
        "x",
        "1",
        "2",
        "RUSH",
        "m",
        "0",
        "1",
        "0",
        "0",
        "NotConnected",
    ]);
    let i = decode_server_info(&short).unwrap();
    assert_eq!((i.online, i.max, i.team_scores.len()), (1, 2, 0));
    assert_eq!((i.ranked, i.address), (None, None));
}

#[test]
fn server_info_refusals() {
    let ok = ["OK", "x", "1", "2", "RUSH", "m", "0", "1"];
    for bad in [
        &["UnknownCommand"][..],
        &[][..],
        &ok[..4],
        // A team count the words cannot hold, and one past the cap.
        &["OK", "x", "1", "2", "RUSH", "m", "0", "1", "3", "1", "0"][..],
        &["OK", "x", "1", "2", "RUSH", "m", "0", "1", "2147483648"][..],
        // A count no server has.
        &[
            "OK",
            "x",
            "4294967295",
            "2",
            "RUSH",
            "m",
            "0",
            "1",
            "0",
            "0",
            "",
        ][..],
        &["OK", "x", "-1", "2", "RUSH", "m", "0", "1", "0", "0", ""][..],
    ] {
        assert!(decode_server_info(&words(bad)).is_err(), "{bad:?}");
    }
}

#[test]
fn players_and_version() {
    let w = words(&[
        "OK", "3", "name", "score", "ping", "2", "alice", "120", "35", "bob", "7", "65535",
    ]);
    let p = decode_players(&w).unwrap();
    assert_eq!(p.len(), 2);
    assert_eq!(
        (p[0].name.as_str(), p[0].score, p[0].ping),
        ("alice", Some(120), Some(35))
    );
    assert_eq!((p[1].name.as_str(), p[1].ping), ("bob", None));
    // A count the records cannot fill, and a field count past the cap.
    let short = words(&["OK", "1", "name", "3", "a"]);
    assert!(matches!(
        decode_players(&short),
        Err(DecodeError::Overrun { .. })
    ));
    assert!(decode_players(&words(&["OK", "99999"])).is_err());
    assert!(decode_players(&words(&["LogInRequired"])).is_err());
    let (game, build) = decode_game(&words(&["OK", "BF3", "1149977"])).unwrap();
    assert_eq!(
        (game.as_str(), build.as_deref()),
        ("Battlefield 3", Some("1149977"))
    );
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..200)) {
        if let Ok(Some((p, used))) = decode(&b, MAX_PACKET) {
            proptest::prop_assert!(used <= b.len());
            let _ = decode_server_info(&p.words);
            let _ = decode_players(&p.words);
        }
    }

    #[test]
    fn round_trip(w in proptest::collection::vec("[ -~]{0,20}", 0..12), n in 0u32..0x3FFF_FFFF) {
        let refs: Vec<&str> = w.iter().map(String::as_str).collect();
        let mut out = Vec::new();
        encode_request(n, &refs, &mut out);
        let (p, used) = decode(&out, MAX_PACKET).unwrap().unwrap();
        proptest::prop_assert_eq!(used, out.len());
        proptest::prop_assert_eq!(p.number(), n);
        proptest::prop_assert_eq!(p.words, w);
    }

    #[test]
    fn arbitrary_words(w in proptest::collection::vec("\\PC{0,8}", 0..40)) {
        let _ = decode_server_info(&w);
        let _ = decode_players(&w);
        let _ = decode_game(&w);
    }
}

/// A refused connect, a close before `serverInfo`'s answer and a close during the
/// best-effort `version` step: the first two fail the poll, the last keeps what came.
#[test]
fn exchange_link_failures() {
    use crate::protocol::exchange::{Exchange, Input, LinkError, Params, Step};
    use std::time::{Duration, Instant};
    let now = Instant::now();
    let deadline = now + Duration::from_secs(2);
    let mut out = Vec::new();
    let mut x = exchange::Battlefield::new(Params::default(), 1, deadline);
    assert!(matches!(x.poll(now, &mut out), Step::Connect(_)));
    x.handle(now, Input::Failed(LinkError::Refused));
    assert!(matches!(x.poll(now, &mut out), Step::Failed(_)));

    let mut x = exchange::Battlefield::new(Params::default(), 1, deadline);
    assert!(matches!(x.poll(now, &mut out), Step::Connect(_)));
    assert!(matches!(x.poll(now, &mut out), Step::Send("serverInfo")));
    x.handle(now, Input::Closed);
    assert!(matches!(x.poll(now, &mut out), Step::Failed(_)));

    let mut x = exchange::Battlefield::new(Params::default(), 1, deadline);
    x.poll(now, &mut out);
    assert!(matches!(x.poll(now, &mut out), Step::Send("serverInfo")));
    let mut reply = Vec::new();
    let info = [
        "OK",
        "srv",
        "1",
        "8",
        "RUSH",
        "m",
        "0",
        "1",
        "0",
        "0",
        "NotConnected",
    ];
    encode(RESPONSE | FROM_CLIENT | 1, &info, &mut reply);
    let rtt = Duration::from_millis(3);
    x.handle(now, Input::Received { bytes: &reply, rtt });
    assert!(matches!(x.poll(now, &mut out), Step::Send("version")));
    x.handle(now, Input::Closed);
    match x.poll(now, &mut out) {
        Step::Done(s) => {
            assert_eq!((s.name.as_str(), s.online, s.max), ("srv", 1, 8));
            assert_eq!(s.latency, rtt);
            assert_eq!(s.extras["version_error"], "incomplete");
        }
        other => panic!("{other:?}"),
    }
}

/// The fuzz target's first find (libFuzzer, base64
/// `Hx8AAGIAAAAMAAAAAAAAAAAfAAAAAAAAAAAfAB8fHwAMAFoAAAAAAAAAmx87DAAAAAAAAAAQ...`): a packet
/// whose last word's length field ends exactly at its size, leaving no byte for the NUL.
/// Indexing past the packet panicked; it is an overrun now, and nothing after it is read.
#[test]
fn word_without_room_for_its_nul_is_an_overrun() {
    // size 22: header, word "a" (length, byte, NUL), then a second word's length field 0
    // ending the packet: no byte left for its NUL.
    let mut b = Vec::new();
    b.extend_from_slice(&0u32.to_le_bytes()); // sequence
    b.extend_from_slice(&22u32.to_le_bytes()); // size
    b.extend_from_slice(&2u32.to_le_bytes()); // words
    b.extend_from_slice(&1u32.to_le_bytes()); // word 1: length 1
    b.extend_from_slice(b"a\0");
    b.extend_from_slice(&0u32.to_le_bytes()); // word 2: length 0, and no NUL
    match super::decode(&b, super::MAX_PACKET) {
        Err(crate::protocol::DecodeError::Overrun { what, .. }) => {
            assert_eq!(what, "Frostbite word length")
        }
        other => panic!("{other:?}"),
    }
    // Every prefix and the whole libFuzzer input decode without a panic.
    use base64::Engine;
    let found = base64::engine::general_purpose::STANDARD
        .decode("Hx8AAGIAAAAMAAAAAAAAAAAfAAAAAAAAAAAfAB8fHwAMAFoAAAAAAAAAmx87DAAAAAAAAAAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
        .unwrap();
    let mut rest = &found[..];
    while let Ok(Some((_, used))) = super::decode(rest, super::MAX_PACKET) {
        rest = &rest[used..];
    }
}
