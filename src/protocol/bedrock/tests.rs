use proptest::prelude::*;

use super::*;

const TIME: i64 = 0x0000_0000_0012_d687; // 1234567 ms
const GUID: u64 = 0x1122_3344_5566_7788;

/// The ping is id, time, magic, client GUID: 33 bytes.
#[test]
fn ping_layout() {
    let mut out = Vec::new();
    encode_ping(TIME, GUID, &mut out);
    let mut want = vec![0x01]; // unconnected ping
    want.extend_from_slice(&[0, 0, 0, 0, 0, 0x12, 0xd6, 0x87]); // client time, i64 BE
    want.extend_from_slice(&[
        0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, // magic
        0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78,
    ]);
    want.extend_from_slice(&[0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88]); // client GUID
    assert_eq!(out, want);
    assert_eq!(out.len(), PING_LEN);
    assert_eq!(
        decode_ping(&out),
        Ok(Ping {
            time: TIME,
            client_guid: GUID,
            open_connections: false
        })
    );
}

/// A server reads 0x02 pings too, and refuses other ids and a wrong magic.
#[test]
fn ping_variants() {
    let mut out = Vec::new();
    encode_ping(TIME, GUID, &mut out);
    out[0] = UNCONNECTED_PING_OPEN;
    assert!(decode_ping(&out).unwrap().open_connections);
    out[0] = 0x05;
    assert!(matches!(
        decode_ping(&out),
        Err(DecodeError::UnexpectedType { .. })
    ));
    out[0] = 0x01;
    out[9] ^= 1;
    assert_eq!(decode_ping(&out), Err(DecodeError::Invalid("RakNet magic")));
    for n in 0..PING_LEN {
        assert!(decode_ping(&out[..n]).is_err(), "{n}");
    }
}

/// A pong in the vanilla server's layout (the documented Bedrock Dedicated Server example),
/// laid out field by field.
fn vanilla_pong() -> Vec<u8> {
    let id = b"MCPE;Dedicated Server;390;1.14.60;0;10;13253860892328930865;Bedrock level;Survival;1;19132;19133;";
    let mut p = vec![0x1c]; // unconnected pong
    p.extend_from_slice(&TIME.to_be_bytes()); // echoed client time
    p.extend_from_slice(&0xb7ee_7e5b_5c36_6d31u64.to_be_bytes()); // server GUID
    p.extend_from_slice(&MAGIC);
    p.extend_from_slice(&(id.len() as u16).to_be_bytes()); // ID string length
    p.extend_from_slice(id);
    p
}

#[test]
fn vanilla_pong_decodes() {
    let pong = decode_pong(&vanilla_pong(), TIME).unwrap();
    assert_eq!(pong.time, TIME);
    assert_eq!(pong.server_guid, 0xb7ee_7e5b_5c36_6d31);
    assert_eq!(
        pong.id,
        ServerId {
            edition: "MCPE".into(),
            motd: "Dedicated Server".into(),
            protocol: Some(390),
            version: "1.14.60".into(),
            online: 0,
            max: 10,
            guid: Some("13253860892328930865".into()),
            level: Some("Bedrock level".into()),
            game_mode: Some("Survival".into()),
            game_mode_number: Some(1),
            port_v4: Some(19132),
            port_v6: Some(19133),
        }
    );
    let s = to_status(&pong, Duration::from_millis(4), true);
    assert_eq!((s.online, s.max), (0, 10));
    assert_eq!(s.name, "Dedicated Server");
    assert_eq!(s.map.as_deref(), Some("Bedrock level"));
    assert_eq!(s.game.as_deref(), Some("Survival"));
    assert_eq!(s.version.as_deref(), Some("1.14.60"));
    assert_eq!(s.latency, Duration::from_millis(4));
    for (k, v) in [
        ("edition", json!("MCPE")),
        ("protocol", json!(390)),
        ("server_guid", json!(0xb7ee_7e5b_5c36_6d31u64.to_string())),
        ("id_guid", json!("13253860892328930865")),
        ("game_mode_number", json!(1)),
        ("port_v4", json!(19132)),
        ("port_v6", json!(19133)),
    ] {
        assert_eq!(s.extras[k], v, "{k}");
    }
    assert!(to_status(&pong, Duration::ZERO, false).extras.is_empty());
}

/// Every cut of the pong header or the ID string is an error, never a panic: before the
/// length field it is truncation; a length beyond the datagram is truncation too.
#[test]
fn every_cut_is_an_error() {
    let p = vanilla_pong();
    for n in 0..p.len() {
        assert!(decode_pong(&p[..n], TIME).is_err(), "{n}");
    }
    let mut long = p.clone();
    long[PONG_HEADER_LEN - 2..PONG_HEADER_LEN].copy_from_slice(&4000u16.to_be_bytes());
    assert!(matches!(
        decode_pong(&long, TIME),
        Err(DecodeError::Truncated { needed: 4000, .. })
    ));
}

/// Bad magic and another time are mismatches; another packet id is malformed; an ID string
/// above the cap is too large before anything is read.
#[test]
fn pong_checks() {
    let p = vanilla_pong();
    assert_eq!(
        decode_pong(&p, TIME + 1),
        Err(DecodeError::Mismatch("RakNet pong time"))
    );
    let mut bad = p.clone();
    bad[17 + 15] ^= 0xff;
    assert_eq!(
        decode_pong(&bad, TIME),
        Err(DecodeError::Mismatch("RakNet magic"))
    );
    let mut other = p.clone();
    other[0] = 0x1d;
    assert!(matches!(
        decode_pong(&other, TIME),
        Err(DecodeError::UnexpectedType { found: 0x1d, .. })
    ));
    let mut huge = p[..PONG_HEADER_LEN].to_vec();
    huge[PONG_HEADER_LEN - 2..].copy_from_slice(&u16::MAX.to_be_bytes());
    huge.resize(PONG_HEADER_LEN + usize::from(u16::MAX), b'A');
    assert!(matches!(
        decode_pong(&huge, TIME),
        Err(DecodeError::TooLarge { value: 65_535, .. })
    ));
}

/// The pong captured from bedrock-protocol 3.59.0 (npm, pure-JS `jsp-raknet` backend) started
/// on 127.0.0.1 with maxPlayers 7, motd `§aP1 §lInterop`, levelName `interop level`, to our
/// ping with time 1234567: 133 bytes.
fn captured_jsp_raknet() -> Vec<u8> {
    let mut p = vec![0x1c]; // unconnected pong
    p.extend_from_slice(&[0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0xd6, 0x87]); // time 1234567 echoed
    p.extend_from_slice(&[0x6c, 0xfc, 0x01, 0x25, 0x2d, 0x54, 0x3b, 0x22]); // server GUID
    p.extend_from_slice(&[
        0x00, 0xff, 0xff, 0x00, 0xfe, 0xfe, 0xfe, 0xfe, // magic
        0xfd, 0xfd, 0xfd, 0xfd, 0x12, 0x34, 0x56, 0x78,
    ]);
    p.extend_from_slice(&[0x00, 0x62]); // ID string length: 98
    p.extend_from_slice(
        "MCPE;§aP1 §lInterop;2169;1.26.45;0;7;7853153109413215010;interop level;Creative;1;39460;39460;0;"
            .as_bytes(),
    );
    p
}

/// bedrock-protocol's server: its own GUID in the ID string, the port twice, one field more
/// than the vanilla layout (a `0`) and a trailing `;`; colour codes stripped.
#[test]
fn captured_jsp_raknet_pong() {
    let p = captured_jsp_raknet();
    assert_eq!(p.len(), 133);
    let pong = decode_pong(&p, TIME).unwrap();
    assert_eq!(pong.server_guid, 0x6cfc_0125_2d54_3b22);
    assert_eq!(
        pong.id,
        ServerId {
            edition: "MCPE".into(),
            motd: "P1 Interop".into(),
            protocol: Some(2169),
            version: "1.26.45".into(),
            online: 0,
            max: 7,
            guid: Some("7853153109413215010".into()),
            level: Some("interop level".into()),
            game_mode: Some("Creative".into()),
            game_mode_number: Some(1),
            port_v4: Some(39460),
            port_v6: Some(39460),
        }
    );
    let s = to_status(&pong, Duration::ZERO, false);
    assert_eq!((s.name.as_str(), s.online, s.max), ("P1 Interop", 0, 7));
}

fn id_of(s: &str) -> Result<ServerId, DecodeError> {
    id::decode(s.as_bytes())
}

/// The ID string cut after every field: six fields are needed, everything after is decoded
/// as far as it goes and the rest stays unknown.
#[test]
fn id_cut_after_each_field() {
    let full = "MCPE;Dedicated Server;390;1.14.60;3;10;1325;Bedrock level;Survival;1;19132;19133";
    let fields: Vec<&str> = full.split(';').collect();
    for n in 0..=fields.len() {
        let text = fields[..n].join(";");
        let got = id_of(&text);
        if n < 6 {
            assert!(got.is_err(), "{n} fields: {got:?}");
            continue;
        }
        let id = got.unwrap();
        assert_eq!((id.online, id.max), (3, 10));
        assert_eq!(id.guid.is_some(), n > 6, "{n}");
        assert_eq!(id.level.is_some(), n > 7, "{n}");
        assert_eq!(id.game_mode.is_some(), n > 8, "{n}");
        assert_eq!(id.game_mode_number.is_some(), n > 9, "{n}");
        assert_eq!(id.port_v4.is_some(), n > 10, "{n}");
        assert_eq!(id.port_v6.is_some(), n > 11, "{n}");
        // A trailing `;` changes nothing.
        assert_eq!(id_of(&format!("{text};")), Ok(id), "{n}");
    }
}

/// What other implementations send: a 0 GUID, extra fields, a non-numeric protocol or port,
/// MCEE, formatting codes in both MOTD lines.
#[test]
fn id_variants() {
    let id = id_of(
        "MCEE;§l§bEdu §rWorld;;1.21.0;1;40;0;§6Sub§r motd;Creative;x;19132;19133;extra;more;",
    )
    .unwrap();
    assert_eq!(id.edition, "MCEE");
    assert_eq!(id.motd, "Edu World");
    assert_eq!(id.protocol, None);
    assert_eq!(id.guid.as_deref(), Some("0"));
    assert_eq!(id.level.as_deref(), Some("Sub motd"));
    assert_eq!(id.game_mode.as_deref(), Some("Creative"));
    assert_eq!(id.game_mode_number, None);
    assert_eq!((id.port_v4, id.port_v6), (Some(19132), Some(19133)));
    // Counts that do not parse are malformed: without them there is no status.
    assert!(id_of("MCPE;x;1;1.0;many;10").is_err());
    assert!(id_of("MCPE;x;1;1.0;1;-1").is_err());
    // Invalid UTF-8 becomes U+FFFD rather than an error.
    let raw = b"MCPE;\xff\xfe;1;1.0;1;2";
    assert_eq!(id::decode(raw).unwrap().motd, "\u{fffd}\u{fffd}");
}

/// The simulator's encoder round-trips through the decoder.
#[test]
fn id_encode_round_trip() {
    let id = id_of("MCPE;A;1;1.0;1;2;99;L;Survival;0;1;2").unwrap();
    assert_eq!(id_of(&id::encode(&id, 5)), Ok(id));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Arbitrary bytes never panic the decoders; what decodes as a pong held its whole ID.
    #[test]
    fn decoders_survive_noise(bytes in proptest::collection::vec(any::<u8>(), 0..128), time in any::<i64>()) {
        let _ = decode_ping(&bytes);
        if let Ok(p) = decode_pong(&bytes, time) {
            prop_assert_eq!(p.time, time);
            let len = usize::from(u16::from_be_bytes([bytes[33], bytes[34]]));
            prop_assert!(PONG_HEADER_LEN + len <= bytes.len());
        }
    }

    /// A valid header around arbitrary ID bytes decodes or fails cleanly, and lengths add up.
    #[test]
    fn arbitrary_id_strings(id in proptest::collection::vec(any::<u8>(), 0..300), extra in proptest::collection::vec(any::<u8>(), 0..8)) {
        let mut p = Vec::new();
        encode_pong(TIME, GUID, &id, &mut p);
        prop_assert_eq!(p.len(), PONG_HEADER_LEN + id.len());
        p.extend_from_slice(&extra);
        let _ = decode_pong(&p, TIME);
    }

    /// Any ID built from printable fields round-trips through pong encode/decode.
    #[test]
    fn pong_round_trip(motd in "[a-zA-Z0-9 ]{0,40}", level in "[a-zA-Z0-9 ]{1,40}", version in "[0-9.]{1,10}",
                       online in any::<u32>(), max in any::<u32>(), protocol in proptest::option::of(any::<u32>()),
                       ports in any::<(u16, u16)>(), guid in any::<u64>(), time in any::<i64>()) {
        let id = ServerId {
            edition: "MCPE".into(),
            motd,
            protocol,
            version,
            online,
            max,
            guid: Some(guid.to_string()),
            level: Some(level),
            game_mode: Some("Survival".into()),
            game_mode_number: Some(1),
            port_v4: Some(ports.0),
            port_v6: Some(ports.1),
        };
        let mut p = Vec::new();
        encode_pong(time, guid, id::encode(&id, guid).as_bytes(), &mut p);
        let pong = decode_pong(&p, time).unwrap();
        prop_assert_eq!(pong.id, id);
        prop_assert_eq!(pong.server_guid, guid);
    }

    /// Any ping round-trips.
    #[test]
    fn ping_round_trip(time in any::<i64>(), guid in any::<u64>()) {
        let mut out = Vec::new();
        encode_ping(time, guid, &mut out);
        prop_assert_eq!(decode_ping(&out), Ok(Ping { time, client_guid: guid, open_connections: false }));
    }
}
