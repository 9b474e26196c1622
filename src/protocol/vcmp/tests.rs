//! VC:MP's replies byte for byte, as the VC:MP wiki lays them out, through SA:MP's codec in
//! the VC:MP dialect.

use std::net::Ipv4Addr;

use proptest::prelude::*;

use super::DIALECT;
use crate::protocol::samp::{
    decode_clients_in, decode_info_in, decode_request_in, encode_clients_in, encode_info_in,
    encode_request_in, Client, Header, Info, Opcode,
};
use crate::protocol::DecodeError;

const H: Header = Header {
    ip: Ipv4Addr::new(127, 0, 0, 1),
    port: 8192,
};
const ENC: &encoding_rs::Encoding = encoding_rs::WINDOWS_1252;

#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request_in(&DIALECT, &H, Opcode::Info, &mut out);
    assert_eq!(out, b"VCMP\x7f\x00\x00\x01\x00\x20i");
    let req = decode_request_in(&DIALECT, &out).unwrap();
    assert_eq!((req.header, req.opcode), (H, Opcode::Info));
}

/// The wiki's `i` reply: `MP04` + the request's 7 bytes, a 12-byte version, password,
/// players, max, then hostname, gamemode and map behind u32 lengths.
fn info_fixture() -> Vec<u8> {
    let mut d = b"MP04\x7f\x00\x00\x01\x00\x20i".to_vec();
    d.extend_from_slice(b"04rel006\0\0\0\0");
    d.push(1);
    d.extend_from_slice(&[3, 0, 100, 0]);
    for s in ["Vice Deathmatch", "VC-DM 1.2", "Vice City"] {
        d.extend_from_slice(&(s.len() as u32).to_le_bytes());
        d.extend_from_slice(s.as_bytes());
    }
    d
}

#[test]
fn info_field_by_field() {
    let d = info_fixture();
    let (info, version) = decode_info_in(&DIALECT, &d, &H, ENC).unwrap();
    assert_eq!(version.as_deref(), Some("04rel006"));
    assert!(info.password);
    assert_eq!((info.players, info.max), (3, 100));
    assert_eq!(info.hostname, "Vice Deathmatch");
    assert_eq!(info.gamemode, "VC-DM 1.2");
    assert_eq!(info.language, "Vice City"); // the map, in VC:MP
    let mut ours = Vec::new();
    encode_info_in(&DIALECT, &H, &info, "04rel006", ENC, &mut ours);
    assert_eq!(ours, d);
}

/// SA:MP's magic in a reply is not VC:MP's answer, nor the other way round.
#[test]
fn magic_decides() {
    let mut d = info_fixture();
    d[..4].copy_from_slice(b"VCMP");
    assert!(matches!(
        decode_info_in(&DIALECT, &d, &H, ENC),
        Err(DecodeError::Mismatch(_))
    ));
    assert!(matches!(
        crate::protocol::samp::decode_info(&info_fixture(), &H, ENC),
        Err(DecodeError::Mismatch(_))
    ));
}

/// The wiki's `c` reply: a count, then names behind a u8 length, no scores.
#[test]
fn clients_names_only() {
    let mut d = b"MP04\x7f\x00\x00\x01\x00\x20c".to_vec();
    d.extend_from_slice(&[2, 0, 5]);
    d.extend_from_slice(b"Tommy");
    d.push(5);
    d.extend_from_slice(b"Lance");
    let list = decode_clients_in(&DIALECT, &d, &H, ENC).unwrap();
    let names: Vec<_> = list.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["Tommy", "Lance"]);
    let mut ours = Vec::new();
    let clients: Vec<Client> = names
        .iter()
        .map(|n| Client {
            name: (*n).into(),
            score: 0,
        })
        .collect();
    encode_clients_in(&DIALECT, &H, &clients, ENC, &mut ours);
    assert_eq!(ours, d);
    // A count the datagram cannot hold (one byte per name at least) is refused up front.
    let mut lying = d[..11].to_vec();
    lying.extend_from_slice(&[0xFF, 0xFF, 0]);
    assert!(matches!(
        decode_clients_in(&DIALECT, &lying, &H, ENC),
        Err(DecodeError::Overrun { .. })
    ));
}

proptest! {
    /// Arbitrary bytes after a valid header never panic.
    #[test]
    fn arbitrary_replies(body in proptest::collection::vec(any::<u8>(), 0..256)) {
        for op in [b'i', b'c'] {
            let mut d = b"MP04\x7f\x00\x00\x01\x00\x20".to_vec();
            d.push(op);
            d.extend_from_slice(&body);
            let _ = decode_info_in(&DIALECT, &d, &H, ENC);
            let _ = decode_clients_in(&DIALECT, &d, &H, ENC);
        }
    }

    /// What the simulator writes reads back the same.
    #[test]
    fn info_round_trip(
        version in "[0-9a-z]{0,12}",
        password: bool,
        players: u16,
        max: u16,
        hostname in "[ -~]{0,40}",
        gamemode in "[ -~]{0,20}",
        map in "[ -~]{0,20}",
    ) {
        let info = Info { password, players, max, hostname, gamemode, language: map };
        let mut out = Vec::new();
        encode_info_in(&DIALECT, &H, &info, &version, ENC, &mut out);
        let (back, v) = decode_info_in(&DIALECT, &out, &H, ENC).unwrap();
        prop_assert_eq!(back, info);
        prop_assert_eq!(v.unwrap(), version);
    }
}
