//! The codec against the real armagetronad-dedicated 0.2.9.1's reply, byte dumps of the
//! string and int packing, refusals, and arbitrary bytes.

use std::time::Duration;

use super::*;
use crate::protocol::Reader;

/// What the real Armagetron Advanced 0.2.9.1 (Debian bookworm `armagetronad-dedicated`
/// 0.2.9.1.0-3), started by `.ci/interop/armagetron.sh` with `SERVER_IP 127.0.0.1`,
/// `SERVER_NAME InteropAA`, `MAX_CLIENTS 9` and no one connected, sent to `big_request`
/// (after a `small_request`), byte for byte: one `big_server` message and the trailer.
pub(crate) const AA_029: &[u8] =
    b"\x00\x33\x00\x00\x00\x58\xb1\x1d\x00\x00\x00\x00\x00\x0a\x6e\x49\x65\x74\x6f\x72\x41\x70\
    \x00\x41\x00\x00\x00\x00\x00\x00\x00\x00\x00\x11\x00\x00\x00\x25\x2e\x30\x2e\x32\x2e\x39\
    \x5f\x31\x6c\x61\x68\x70\x32\x61\x32\x30\x30\x33\x32\x32\x20\x32\x6e\x75\x78\x69\x64\x20\
    \x64\x65\x63\x69\x74\x61\x64\x65\x00\x00\x00\x09\x00\x00\x00\x00\x00\x20\x6c\x41\x20\x6c\
    \x65\x73\x74\x74\x6e\x69\x73\x67\x61\x20\x20\x74\x65\x64\x61\x66\x6c\x75\x20\x74\x61\x76\
    \x75\x6c\x73\x65\x00\x2e\x00\x1c\x74\x68\x70\x74\x2f\x3a\x77\x2f\x77\x77\x61\x2e\x6d\x72\
    \x67\x61\x74\x65\x6f\x72\x61\x6e\x2e\x64\x65\x6e\x00\x74\x00\x00\x00\x04\x00\x00\x00\x00\
    \x00\x00\x00\x00\x00\x00\x00\x00\x33\x33\x00\x33\xfd\x44\x09\x3f\xaa\xab\x00\xaa\xb4\xe8\
    \x00\x01\xe0\x4e\x02\x04\x00\x00";

#[test]
fn real_server_field_by_field() {
    let messages = decode_messages(AA_029).unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].descriptor, BIG_SERVER);
    assert_eq!(messages[0].data.len(), 88 * 2);
    let i = decode_big_info(messages[0].data).unwrap();
    assert_eq!(i.port, 45341);
    assert_eq!(i.host, "");
    assert_eq!(i.name, "InteropAA");
    assert_eq!((i.users, i.max_users), (0, 9));
    assert_eq!((i.version_min, i.version_max), (0, 17));
    assert_eq!(i.release, "0.2.9.1_alpha20230222 unix dedicated");
    assert!(i.user_names.is_empty());
    assert_eq!(i.options, "All settings at default values.");
    assert_eq!(i.url, "http://www.armagetronad.net");
    assert!(i.global_ids.is_empty());
    let s = to_status(&i, true, true, Duration::from_millis(2));
    assert_eq!((s.online, s.max), (0, 9));
    assert_eq!(s.name, "InteropAA");
    assert_eq!(
        s.version.as_deref(),
        Some("0.2.9.1_alpha20230222 unix dedicated")
    );
    assert_eq!(s.players, Some(vec![]));
    let rules = s.rules.unwrap();
    assert!(rules.contains(&("protocol_max".into(), "17".into())));
}

#[test]
fn requests() {
    let mut out = Vec::new();
    encode_request(SMALL_REQUEST, &mut out);
    encode_request(BIG_REQUEST, &mut out);
    assert_eq!(
        out,
        b"\x00\x34\x00\x00\x00\x00\x00\x00\x00\x35\x00\x00\x00\x00\x00\x00"
    );
}

/// The engine packs two characters per short with signed arithmetic: a first character of
/// 128 or more borrows one from the second.
#[test]
fn string_and_int_packing() {
    let mut out = Vec::new();
    write_string("ab", &mut out);
    assert_eq!(out, b"\x00\x03\x62\x61\x00\x00");
    out.clear();
    write_string("\u{e9}x", &mut out);
    // lo = 0xE9 as -23, hi = 'x' << 8: 0x78E9 - 0x100 = 0x77E9.
    assert_eq!(out, b"\x00\x03\x77\xe9\x00\x00");
    assert_eq!(read_string(&mut Reader::new(&out)).unwrap(), "\u{e9}x");
    out.clear();
    write_string("", &mut out);
    assert_eq!(out, b"\x00\x00");
    out.clear();
    write_int(0x0001_1DB1, &mut out);
    assert_eq!(out, b"\x1d\xb1\x00\x01");
    write_int(-2, &mut out);
    let mut r = Reader::new(&out);
    assert_eq!(
        (read_int(&mut r).unwrap(), read_int(&mut r).unwrap()),
        (0x0001_1DB1, -2)
    );
    assert_eq!(
        strip_colours("0xff0000Red0xRESETT Tron0x12"),
        "Red Tron0x12"
    );
}

#[test]
fn players_and_round_trip() {
    let i = BigInfo {
        port: 4534,
        name: "0xffff00Fort\u{e9}ress".into(),
        users: 2,
        version_min: 0,
        version_max: 20,
        release: "0.2.9.2.3".into(),
        max_users: 16,
        user_names: vec!["0x00ff00alice".into(), "bob".into()],
        options: "Sumo".into(),
        url: "https://example.org".into(),
        global_ids: vec!["alice@forums".into(), "".into()],
        ..BigInfo::default()
    };
    let mut data = Vec::new();
    encode_big_info(&i, &mut data);
    let mut packet = Vec::new();
    encode_packet(BIG_SERVER, &data, &mut packet);
    let m = decode_messages(&packet).unwrap();
    let mut back = decode_big_info(m[0].data).unwrap();
    // An empty line of the id list does not survive the newline split.
    back.global_ids.resize(2, String::new());
    assert_eq!(back, i);
    let s = to_status(&back, true, false, Duration::ZERO);
    assert_eq!(s.name, "Fort\u{e9}ress");
    let p = s.players.unwrap();
    assert_eq!(p[0].name, "alice");
    assert_eq!(p[0].id.as_deref(), Some("alice@forums"));
    assert_eq!(p[1].id, None);
}

#[test]
fn refusals() {
    // A message length past the packet; a string length past the data.
    assert!(matches!(
        decode_messages(b"\x00\x33\x00\x00\xff\xff\x00\x00\x00\x00"),
        Err(DecodeError::Overrun { .. })
    ));
    assert!(matches!(
        decode_messages(b"\x00"),
        Err(DecodeError::Truncated { .. })
    ));
    let data = decode_messages(AA_029).unwrap()[0].data.to_vec();
    let mut lying = data.clone();
    lying[4] = 0xff;
    assert!(matches!(
        decode_big_info(&lying),
        Err(DecodeError::Overrun { .. })
    ));
    // A count no server has.
    let mut huge = BigInfo {
        users: 1 << 30,
        ..BigInfo::default()
    };
    let mut d = Vec::new();
    encode_big_info(&huge, &mut d);
    assert!(matches!(
        decode_big_info(&d),
        Err(DecodeError::TooLarge { .. })
    ));
    huge.users = -1;
    d.clear();
    encode_big_info(&huge, &mut d);
    assert!(matches!(
        decode_big_info(&d),
        Err(DecodeError::TooLarge { .. })
    ));
    // Cut anywhere before the URL's end: an error, never a panic.
    for n in 0..60 {
        assert!(decode_big_info(&data[..n]).is_err(), "cut at {n}");
    }
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
        if let Ok(messages) = decode_messages(&b) {
            for m in messages {
                proptest::prop_assert!(m.data.len() <= b.len());
                if let Ok(i) = decode_big_info(m.data) {
                    proptest::prop_assert!(i.users <= info::MAX_USERS);
                    let _ = to_status(&i, true, true, Duration::ZERO);
                }
            }
        }
        let _ = decode_big_info(&b);
    }

    #[test]
    fn strings_round_trip(s in "[\u{1}-\u{ff}]{0,40}") {
        let mut out = Vec::new();
        write_string(&s, &mut out);
        proptest::prop_assert_eq!(read_string(&mut Reader::new(&out)).unwrap(), s);
    }
}
