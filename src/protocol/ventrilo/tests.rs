//! The Ventrilo codec on exact bytes: a request scrambled by hand against the tables, a
//! reply's parts laid out and reassembled, every length, number and total checked against
//! what arrived, the text's fields, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::obfuscation::{crc16, Key};
use super::packet::*;
use super::*;
use crate::protocol::DecodeError;

const KEYS: Keys = Keys {
    header: Key::new(0x00, 0x01),
    data: Key::new(0x00, 0x01),
};

/// A detailed status request with id 0x1234, both keys (start 0, step 1), byte by byte: each
/// header byte is the plain one plus header-table entry i plus i % 5; each data byte (all 0:
/// no status password) data-table entry i plus i.
#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(CMD_DETAIL, 0x1234, KEYS, &mut out);
    let plain_header: [u8; 18] = [
        0, 0, // zero
        0, 2, // cmd
        0x12, 0x34, // id
        0, 16, // total length
        0, 16, // length
        0, 1, // total parts
        0, 0, // part
        0, 1, // data key
        0, 0, // crc of 16 NULs
    ];
    let head: [u8; 18] = [
        0x80, 0xe5, 0x0e, 0x38, 0xba, 0x63, 0x4c, 0x99, 0x88, 0x63, 0x4c, 0xd6, 0x54, 0xb8, 0x65,
        0x7e, 0xbf, 0x8a,
    ];
    let data_table: [u8; 16] = [
        0x82, 0x8b, 0x7f, 0x68, 0x90, 0xe0, 0x44, 0x09, 0x19, 0x3b, 0x8e, 0x5f, 0xc2, 0x82, 0x38,
        0x23,
    ];
    let mut want = vec![0x00, 0x01];
    for i in 0..18 {
        want.push(
            plain_header[i]
                .wrapping_add(head[i])
                .wrapping_add((i % 5) as u8),
        );
    }
    for (i, t) in data_table.iter().enumerate() {
        want.push(t.wrapping_add(i as u8));
    }
    assert_eq!(out.len(), 36);
    assert_eq!(out, want);
    // Spelled out, the first bytes: the key, 0x80+0, 0xe5+1, 0x0e+2, 0x38+3+2 (cmd's low
    // byte)...
    assert_eq!(&out[..6], &[0x00, 0x01, 0x80, 0xe6, 0x10, 0x3d]);
    let (h, data) = decode_packet(&out).unwrap();
    assert_eq!(
        (h.zero, h.cmd, h.id, h.len, h.total_parts),
        (0, 2, 0x1234, 16, 1)
    );
    assert_eq!(data, [0; 16]);
}

/// A real-shaped reply text (the layout the readers' comments and Flagship's PHP show).
const TEXT: &str = "NAME: Raid%2C Night\n\
PHONETIC: Raid Night\n\
COMMENT: Tuesdays\n\
AUTH: 1\n\
MAXCLIENTS: 8\n\
VOICECODEC: 0,GSM 6.10\n\
VOICEFORMAT: 3,44 KHz%2C 16 bit\n\
UPTIME: 1234\n\
PLATFORM: Linux-i386\n\
VERSION: 3.0.3\n\
CHANNELCOUNT: 1\n\
CHANNELFIELDS: CID,PID,PROT,NAME,COMM\n\
CHANNEL: CID=1,PID=0,PROT=0,NAME=Raid,COMM=\n\
CLIENTCOUNT: 2\n\
CLIENTFIELDS: UID,ADMIN,CID,PHAN,PING,SEC,NAME,COMM\n\
CLIENT: UID=3,ADMIN=0,CID=1,PHAN=0,PING=42,SEC=600,NAME=alice,COMM=\n\
CLIENT: UID=4,ADMIN=1,CID=0,PHAN=0,PING=7,SEC=60,NAME=b%C3%B6b,COMM=afk\n\0";

#[test]
fn text_fields() {
    let info = parse(TEXT.as_bytes()).unwrap();
    assert_eq!(info.field("NAME"), Some("Raid%2C Night"));
    assert_eq!(info.channels.len(), 1);
    assert_eq!(info.clients.len(), 2);
    let s = to_status(&info, Duration::from_millis(3), true, true, true).unwrap();
    assert_eq!(s.name, "Raid, Night");
    assert_eq!((s.online, s.max), (2, 8));
    assert_eq!(s.version.as_deref(), Some("3.0.3"));
    assert_eq!(s.password, Some(true));
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "alice");
    assert_eq!(
        (players[0].ping, players[0].duration),
        (Some(42), Some(600.0))
    );
    assert_eq!(players[1].name, "böb");
    let rules = s.rules.unwrap();
    assert_eq!(rules[0], ("NAME".into(), "Raid, Night".into()));
    assert!(rules.iter().all(|(k, _)| k != "CLIENT" && k != "CHANNEL"));
    assert_eq!(s.extras["channels"], json!(1));
    assert_eq!(s.extras["uptime_seconds"], json!(1234));
    assert_eq!(s.extras["voice_format"], json!("3,44 KHz, 16 bit"));
    assert_eq!(s.extras["platform"], json!("Linux-i386"));
    // Without players, rules or detail: none of them.
    let s = to_status(&info, Duration::ZERO, false, false, false).unwrap();
    assert!(s.players.is_none() && s.rules.is_none() && s.extras.is_empty());
}

/// No CLIENTCOUNT: the records count; counts that are not numbers, no NAME, or an ERROR
/// answer are malformed.
#[test]
fn text_failures() {
    let info = parse(b"NAME: x\nCLIENT: NAME=a\nCLIENT: NAME=b\n").unwrap();
    let s = to_status(&info, Duration::ZERO, false, false, false).unwrap();
    assert_eq!((s.online, s.max), (2, 0));
    let info = parse(b"NAME: x\nMAXCLIENTS: many\n").unwrap();
    assert!(matches!(
        to_status(&info, Duration::ZERO, false, false, false),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        parse(b"MAXCLIENTS: 8\n"),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        parse(b"ERROR: Invalid password\n"),
        Err(DecodeError::Invalid(_))
    ));
}

#[test]
fn escapes() {
    assert_eq!(unescape("a%2Cb%3d%"), "a,b=%");
    assert_eq!(unescape("%zz%4"), "%zz%4");
    assert_eq!(text::escape("a,b=c%\né"), "a%2Cb%3Dc%25%0A%C3%A9");
    assert_eq!(unescape(&text::escape("a,b=c%\né")), "a,b=c%\né");
}

fn reply(text: &[u8], part_len: usize) -> Vec<Vec<u8>> {
    encode_reply(text, 0x1234, part_len, 9)
}

fn reassemble(parts: &[Vec<u8>]) -> Result<Option<Vec<u8>>, DecodeError> {
    let mut p = Parts::new(32, 1 << 20);
    let mut last = Ok(None);
    for d in parts {
        last = p.add(decode_part(d, 0x1234)?);
        last.clone()?;
    }
    last
}

/// The text in 100-byte parts: each header says its number, the total, its length; in any
/// order, repeated, they give the text back.
#[test]
fn parts_reassemble() {
    let parts = reply(TEXT.as_bytes(), 100);
    assert_eq!(parts.len(), TEXT.len().div_ceil(100));
    let (h, data) = decode_packet(&parts[1]).unwrap();
    assert_eq!((h.part, h.total_parts, h.len), (1, parts.len() as u16, 100));
    assert_eq!((h.cmd, h.total_len), (CMD_REPLY, TEXT.len() as u16));
    assert_eq!(h.crc, crc16(TEXT.as_bytes()));
    assert_eq!(data, TEXT.as_bytes()[100..200]);
    let mut shuffled: Vec<Vec<u8>> = parts.iter().rev().cloned().collect();
    shuffled.insert(1, parts[parts.len() - 1].clone());
    assert_eq!(reassemble(&shuffled).unwrap().unwrap(), TEXT.as_bytes());
    assert_eq!(reassemble(&parts).unwrap().unwrap(), TEXT.as_bytes());
    // One part short: not yet.
    assert_eq!(reassemble(&parts[1..]).unwrap(), None);
}

fn with_header(d: &[u8], f: impl Fn(&mut Header)) -> Vec<u8> {
    let (mut h, data) = decode_packet(d).unwrap();
    f(&mut h);
    let mut out = Vec::new();
    encode_packet(&h, &data, &mut out);
    out
}

/// Every length, number and total is checked against what arrived.
#[test]
fn lies_are_refused() {
    let parts = reply(TEXT.as_bytes(), 100);
    let p0 = &parts[0];
    let part = |d: &[u8]| decode_part(d, 0x1234);
    // Another id, or not a status packet: not ours.
    assert!(matches!(
        decode_part(p0, 0x1235),
        Err(DecodeError::Mismatch(_))
    ));
    let z = with_header(p0, |h| h.zero = 1);
    assert!(matches!(part(&z), Err(DecodeError::Mismatch(_))));
    // Length past the data (however large: a lie before a size), short of it.
    let l = with_header(p0, |h| h.len += 1);
    assert!(matches!(part(&l), Err(DecodeError::Overrun { .. })));
    let l = with_header(p0, |h| h.len -= 1);
    assert!(matches!(part(&l), Err(DecodeError::Invalid(_))));
    let l = with_header(p0, |h| h.len = 600);
    assert!(matches!(part(&l), Err(DecodeError::Overrun { .. })));
    // Parts: none, too many, a number past the total.
    let t = with_header(p0, |h| h.total_parts = 0);
    assert!(matches!(part(&t), Err(DecodeError::Invalid(_))));
    let t = with_header(p0, |h| h.total_parts = 33);
    assert!(matches!(part(&t), Err(DecodeError::TooLarge { .. })));
    let t = with_header(p0, |h| h.part = h.total_parts);
    assert!(matches!(part(&t), Err(DecodeError::Invalid(_))));
    // A total length shorter than the part, longer than the parts can carry.
    let t = with_header(p0, |h| h.total_len = 10);
    assert!(matches!(part(&t), Err(DecodeError::Invalid(_))));
    let t = with_header(p0, |h| h.total_len = 60_000);
    assert!(matches!(part(&t), Err(DecodeError::Overrun { .. })));
    // Cut inside the header; a datagram past 512 bytes.
    assert!(matches!(
        part(&p0[..19]),
        Err(DecodeError::Truncated { .. })
    ));
    assert!(matches!(
        part(&vec![0; MAX_PACKET + 1]),
        Err(DecodeError::TooLarge { .. })
    ));
    // Across parts: totals that disagree, two different parts with one number, a total
    // length the parts do not fill, a checksum that is not the text's.
    let mut v = parts.clone();
    v[1] = with_header(&v[1], |h| h.crc ^= 1);
    assert!(matches!(reassemble(&v), Err(DecodeError::Invalid(_))));
    let mut v = parts.clone();
    let (h, mut data) = decode_packet(&v[0]).unwrap();
    data[0] ^= 1;
    let mut other = Vec::new();
    encode_packet(&h, &data, &mut other);
    v.insert(1, other);
    assert!(matches!(reassemble(&v), Err(DecodeError::Invalid(_))));
    let v: Vec<_> = parts
        .iter()
        .map(|d| with_header(d, |h| h.total_len += 5))
        .collect();
    assert!(matches!(reassemble(&v), Err(DecodeError::Invalid(_))));
    let v: Vec<_> = parts
        .iter()
        .map(|d| with_header(d, |h| h.crc ^= 0x0100))
        .collect();
    assert!(matches!(reassemble(&v), Err(DecodeError::Checksum { .. })));
    // The target's caps: fewer parts, fewer bytes.
    let mut p = Parts::new(2, 1 << 20);
    assert!(matches!(
        p.add(decode_part(p0, 0x1234).unwrap()),
        Err(DecodeError::TooLarge { .. })
    ));
    let mut p = Parts::new(32, 100);
    assert!(matches!(
        p.add(decode_part(p0, 0x1234).unwrap()),
        Err(DecodeError::TooLarge { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes: decoded or refused, never a panic.
    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        let mut p = Parts::new(32, 1 << 20);
        if let Ok(part) = decode_part(&bytes, 0) {
            let _ = p.add(part);
        }
        if let Ok(info) = parse(&bytes) {
            let _ = to_status(&info, Duration::ZERO, true, true, true);
        }
        let _ = unescape(&String::from_utf8_lossy(&bytes));
    }

    /// Any text, any part size, any id: the parts reassemble into it.
    #[test]
    fn round_trip(text in proptest::collection::vec(any::<u8>(), 0..3000),
                  part_len in 1usize..=MAX_PART_DATA, id in any::<u16>(), seed in any::<u8>()) {
        let parts = encode_reply(&text, id, part_len, seed);
        prop_assume!(parts.len() <= usize::from(MAX_PARTS));
        let mut p = Parts::new(32, 1 << 20);
        let mut got = None;
        for d in &parts {
            got = p.add(decode_part(d, id).unwrap()).unwrap();
        }
        prop_assert_eq!(got.unwrap(), text);
    }

    /// Any header round-trips through the scrambling.
    #[test]
    fn header_round_trip(f in any::<[u16; 8]>(), k in any::<[u8; 4]>(),
                         data in proptest::collection::vec(any::<u8>(), 0..MAX_PART_DATA)) {
        let h = Header {
            key: Key::new(k[0], k[1]),
            zero: f[0], cmd: f[1], id: f[2], total_len: f[3], len: f[4],
            total_parts: f[5], part: f[6],
            data_key: Key::new(k[2], k[3]),
            crc: f[7],
        };
        let mut out = Vec::new();
        encode_packet(&h, &data, &mut out);
        prop_assert_eq!(decode_packet(&out).unwrap(), (h, data));
    }
}

/// The checked-in `exchanges` fuzz seed (arm 30 past the first sixteen; players and detail
/// asked): [`TEXT`] as a reply to id 0x2A2A in 200-byte parts, each a replay record, is
/// what this test builds (`GSE_BLESS=1` writes it), and it finishes a poll.
#[test]
fn exchanges_seed_finishes_a_poll() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use std::time::Instant;

    let text = TEXT.as_bytes();
    // The pick byte: exchange 15 (low bits 7, top bit), players (0x08), detail (0x20).
    let mut seed = vec![0x80 | 0x20 | 0x08 | 7, 30];
    let parts = encode_reply(text, 0x2A2A, 200, 1);
    assert!(parts.len() > 1);
    for p in &parts {
        // Op 1 (bytes arrive) after 10 ms, then the length byte.
        seed.push(1 | (1 << 2));
        seed.push(u8::try_from(p.len()).unwrap());
        seed.extend_from_slice(p);
    }
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/corpus/exchanges/ventrilo-reply"
    );
    if std::env::var_os("GSE_BLESS").is_some() {
        std::fs::write(path, &seed).unwrap();
    }
    assert_eq!(
        std::fs::read(path).unwrap(),
        seed,
        "GSE_BLESS=1 rewrites it"
    );
    let params = Params {
        players: true,
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let key = Key::new(1, 1);
    let keys = Keys {
        header: key,
        data: key,
    };
    let mut x = exchange::Ventrilo::new(params, 0x2A2A, keys, deadline);
    let st = replay(&mut x, start, deadline, &seed[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!((st.online, st.max, st.name.as_str()), (2, 8, "Raid, Night"));
    assert_eq!(st.players.unwrap().len(), 2);
}

mod exchange_steps {
    use std::time::{Duration, Instant};

    use super::super::exchange::Ventrilo;
    use super::*;
    use crate::protocol::exchange::{Exchange, Input, Params, Step};
    use crate::status::Reason;

    const MS: Duration = Duration::from_millis(1);

    fn poll_of(id: u16) -> (Ventrilo, Instant, Vec<u8>) {
        let start = Instant::now();
        let params = Params {
            players: true,
            ..Params::default()
        };
        let mut x = Ventrilo::new(params, id, KEYS, start + Duration::from_secs(5));
        let mut out = Vec::new();
        assert!(matches!(x.poll(start, &mut out), Step::Send(_)));
        (x, start, out)
    }

    fn feed(x: &mut Ventrilo, now: Instant, bytes: &[u8]) {
        x.handle(now, Input::Received { bytes, rtt: MS });
    }

    /// The request asks for detail with the poll's id; parts for another id are skipped, a
    /// part that came already (the answer to a resent request) is ignored, and the reply is
    /// done when the last part is in, in whatever order they came.
    #[test]
    fn collects_parts() {
        let (mut x, t, out) = poll_of(7);
        let (h, data) = decode_packet(&out).unwrap();
        assert_eq!((h.id, h.cmd, data.len()), (7, CMD_DETAIL, 16));
        let mut out = Vec::new();
        assert!(matches!(x.poll(t, &mut out), Step::Wait(_)));
        let parts = encode_reply(TEXT.as_bytes(), 7, 200, 3);
        assert!(parts.len() > 2);
        feed(&mut x, t, &encode_reply(TEXT.as_bytes(), 8, 200, 3)[0]);
        for p in parts.iter().skip(1) {
            feed(&mut x, t, p);
            feed(&mut x, t, p);
            assert!(matches!(x.poll(t, &mut out), Step::Wait(_)));
        }
        feed(&mut x, t, &parts[0]);
        let Step::Done(s) = x.poll(t, &mut out) else {
            panic!("not done");
        };
        assert_eq!((s.online, s.max, s.name.as_str()), (2, 8, "Raid, Night"));
        assert_eq!(s.players.map(|p| p.len()), Some(2));
        assert_eq!(s.latency, MS);
    }

    /// At the deadline: nothing came is `timeout`, only other ids' parts `mismatch`, some
    /// parts `incomplete`; a lie fails at once, `malformed`.
    #[test]
    fn why_it_ends() {
        let parts = encode_reply(TEXT.as_bytes(), 7, 200, 3);
        let end = Duration::from_secs(6);
        let reason = |x: &mut Ventrilo, now: Instant| match x.poll(now, &mut Vec::new()) {
            Step::Failed(e) => e.reason(),
            other => panic!("{other:?}"),
        };
        let (mut x, t, _) = poll_of(7);
        assert_eq!(reason(&mut x, t + end), Reason::Timeout);
        let (mut x, t, _) = poll_of(9);
        feed(&mut x, t, &parts[0]);
        assert_eq!(reason(&mut x, t + end), Reason::Mismatch);
        let (mut x, t, _) = poll_of(7);
        feed(&mut x, t, &parts[0]);
        assert_eq!(reason(&mut x, t + end), Reason::Incomplete);
        let (mut x, t, _) = poll_of(7);
        let mut cut = parts[0].clone();
        cut.pop();
        feed(&mut x, t, &cut);
        assert_eq!(reason(&mut x, t), Reason::Malformed);
    }
}
