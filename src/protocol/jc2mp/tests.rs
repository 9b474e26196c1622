//! Byte dumps of the JC2-MP dialect, field by field, and arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;

use super::*;
use crate::protocol::gamespy3::{decode_part_in, encode_request};

/// The request gamedig sends after the challenge: GameSpy 3's with `FF FF FF 02`.
#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(1, Some(0x0102_0304), FLAVOR.payload, &mut out);
    assert_eq!(
        out,
        [0xFE, 0xFD, 0x00, 0, 0, 0, 1, 1, 2, 3, 4, 0xFF, 0xFF, 0xFF, 0x02]
    );
}

/// A reply as the JC2-MP server lays it out (gamedig's reader: 11 bytes skipped after the
/// session id, key/values to an empty key, BE u16 count, name/steamid/BE u16 ping records).
fn fixture() -> Vec<u8> {
    let mut d = vec![0x00, 0, 0, 0, 7];
    d.extend_from_slice(b"splitnum\0\x80\x00");
    for field in [
        "hostname",
        "Panau Freeroam",
        "version",
        "0.2.0.3",
        "numplayers",
        "2",
        "maxplayers",
        "5000",
        "password",
        "0",
        "",
    ] {
        d.extend_from_slice(field.as_bytes());
        d.push(0);
    }
    d.extend_from_slice(&[0x00, 0x02]);
    d.extend_from_slice(b"Rico\0STEAM_0:1:42\0");
    d.extend_from_slice(&[0x01, 0x2C]); // 300 ms: big-endian
    d.extend_from_slice(b"Kane\0\0");
    d.extend_from_slice(&[0x00, 0x10]);
    d
}

#[test]
fn reply_field_by_field() {
    let d = fixture();
    let part = decode_part_in(&FLAVOR, &d, 7).unwrap();
    assert!(part.last);
    let reply = decode_body(part.body).unwrap();
    assert_eq!(reply.get("hostname"), Some("Panau Freeroam"));
    assert_eq!(reply.get("version"), Some("0.2.0.3"));
    assert_eq!(reply.info.len(), 5);
    assert_eq!(reply.count, 2);
    assert_eq!(
        reply.players,
        vec![
            Record {
                name: "Rico".into(),
                steamid: "STEAM_0:1:42".into(),
                ping: 300
            },
            Record {
                name: "Kane".into(),
                steamid: String::new(),
                ping: 16
            },
        ]
    );
    let want = Want {
        players: true,
        rules: true,
        detail: true,
    };
    let s = to_status(&reply, want, Duration::from_millis(5));
    assert_eq!((s.online, s.max), (2, 5000));
    assert_eq!(s.name, "Panau Freeroam");
    assert_eq!(s.version.as_deref(), Some("0.2.0.3"));
    assert_eq!(s.map, None);
    assert_eq!(s.password, Some(false));
    let players = s.players.unwrap();
    assert_eq!(players[0].id.as_deref(), Some("STEAM_0:1:42"));
    assert_eq!(players[0].ping, Some(300));
    assert_eq!(players[1].id, None);
    assert_eq!(s.rules.unwrap().len(), 5);
    assert_eq!(s.extras["player_count"], 2);
    // Our writer makes the same bytes.
    let mut ours = Vec::new();
    encode_reply(7, &reply, &mut ours);
    assert_eq!(ours, d);
}

/// Another session id is someone else's reply.
#[test]
fn other_session_is_a_mismatch() {
    assert!(matches!(
        decode_part_in(&FLAVOR, &fixture(), 8),
        Err(DecodeError::Mismatch(_))
    ));
}

/// Without `numplayers` the count after the key/values is the online count; records may be
/// fewer than it.
#[test]
fn count_without_numplayers() {
    let reply = Reply {
        info: vec![("hostname".into(), "x".into())],
        count: 40,
        players: Vec::new(),
    };
    let mut body = Vec::new();
    encode_body(&reply, &mut body);
    let s = to_status(
        &decode_body(&body).unwrap(),
        Want::default(),
        Duration::ZERO,
    );
    assert_eq!(s.online, 40);
}

/// Each way the body can break, and its error.
#[test]
fn broken_bodies() {
    let d = fixture();
    let body = &d[16..];
    // Cut in the last ping.
    assert!(matches!(
        decode_body(&body[..body.len() - 1]),
        Err(DecodeError::Truncated { .. })
    ));
    // Cut in the last name: it never ends.
    let cut = body.len() - 2 - 1 - 3;
    assert!(matches!(
        decode_body(&body[..cut]),
        Err(DecodeError::Unterminated { .. })
    ));
    // No count after the key/values.
    assert!(decode_body(b"a\0b\0\0\x01").is_err());
    // Key/values that never end.
    assert!(matches!(
        decode_body(b"hostname\0x"),
        Err(DecodeError::Unterminated { .. })
    ));
    // More records than the cap.
    let mut many = b"\0\xff\xff".to_vec();
    for _ in 0..=MAX_ROWS {
        many.extend_from_slice(b"\0\0\0\0");
    }
    assert!(matches!(
        decode_body(&many),
        Err(DecodeError::TooLarge { .. })
    ));
    // Exactly the cap is fine.
    many.truncate(many.len() - 4);
    assert_eq!(decode_body(&many).unwrap().players.len(), MAX_ROWS);
}

proptest! {
    /// Arbitrary bytes never panic.
    #[test]
    fn arbitrary_bodies(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode_body(&bytes);
        let _ = decode_part_in(&FLAVOR, &bytes, 7);
    }

    /// What the simulator writes reads back the same.
    #[test]
    fn round_trip(
        info in proptest::collection::vec(("[a-z]{1,8}", "[ -~]{0,12}"), 0..8),
        count: u16,
        players in proptest::collection::vec(("[^\0]{0,8}", "[0-9:A-Z_]{0,12}", any::<u16>()), 0..8),
    ) {
        let reply = Reply {
            info,
            count,
            players: players
                .into_iter()
                .map(|(name, steamid, ping)| Record { name, steamid, ping })
                .collect(),
        };
        let mut out = Vec::new();
        encode_reply(3, &reply, &mut out);
        let part = decode_part_in(&FLAVOR, &out, 3).unwrap();
        prop_assert_eq!(decode_body(part.body).unwrap(), reply);
    }
}
