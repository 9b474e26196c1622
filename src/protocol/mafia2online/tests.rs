//! Mafia II Online's reply byte for byte as gamedig 5.3.3 reads it (`mafia2online.js`
//! extends `mafia2mp.js` with the magic and a ping per player).

use std::time::Duration;

use super::DIALECT;
use crate::protocol::mafia2mp::{decode_reply, encode_reply, to_status, Record, Want};

#[test]
fn reply_field_by_field() {
    let mut d = b"M2Online".to_vec();
    d.extend_from_slice(b"\x0bM2O Server\x022\x04100\x05Roam\x00");
    d.extend_from_slice(b"\x06Henry\x0372\x04Leo\x0310");
    let r = decode_reply(&DIALECT, &d).unwrap();
    assert_eq!(r.name, "M2O Server");
    assert_eq!((r.players, r.max, r.gamemode.as_str()), (2, 100, "Roam"));
    assert!(!r.password);
    assert_eq!(
        r.list,
        vec![
            Record {
                name: "Henry".into(),
                ping: Some(72)
            },
            Record {
                name: "Leo".into(),
                ping: Some(10)
            },
        ]
    );
    let s = to_status(
        &r,
        Want {
            players: true,
            detail: false,
        },
        Duration::ZERO,
    );
    let players = s.players.unwrap();
    assert_eq!(
        (players[1].name.as_str(), players[1].ping),
        ("Leo", Some(10))
    );
    let mut ours = Vec::new();
    encode_reply(&DIALECT, &r, &mut ours);
    assert_eq!(ours, d);
}

/// Cut between a name and its ping: the ping's length byte is missing.
#[test]
fn name_without_ping() {
    let mut d = b"M2Online".to_vec();
    d.extend_from_slice(b"\x02S\x021\x022\x01\x00\x06Henry");
    assert!(decode_reply(&DIALECT, &d).is_err());
}
