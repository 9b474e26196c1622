//! The codec against the real OpenTTD 13.0's reply, byte dumps of every version's layout,
//! refusals, and arbitrary bytes.

use std::time::Duration;

use super::info::{date, DAYS_TO_1920_FOR_TESTS};
use super::*;

/// What the real OpenTTD 13.0 (Debian bookworm `openttd` 13.0-2 with `openttd-opengfx`),
/// started by `.ci/interop/openttd.sh` as `openttd -D 127.0.0.1:<port> -g` with
/// `server_name = InteropTTD`, `max_clients = 7`, `max_companies = 5` and a 64x64 map,
/// answered to `03 00 07` four game days after start, byte for byte.
pub(crate) const OPENTTD_13: &[u8] = b"\x30\x00\x06\x06\x01\xff\xff\xff\xff\x00\x00\x23\xde\x0a\x00\x1f\xde\x0a\x00\x05\x00\x07InteropTTD\x0013.0\x00\x00\x07\x00\x00\x40\x00\x40\x00\x00\x01";

#[test]
fn real_openttd_13_field_by_field() {
    let (p, used) = decode_packet(OPENTTD_13, MAX_PACKET).unwrap().unwrap();
    assert_eq!((used, p.kind), (48, SERVER_GAME_INFO));
    let g = decode_game_info(&p.body).unwrap();
    assert_eq!(
        g,
        GameInfo {
            version: 6,
            ticks_playing: None,
            gamescript: Some((-1, String::new())),
            grfs: vec![],
            game_date: Some(712_227),
            start_date: Some(712_223),
            companies_max: Some(5),
            companies_on: Some(0),
            spectators_max: Some(7),
            name: "InteropTTD".into(),
            revision: "13.0".into(),
            language: None,
            password: false,
            clients_max: 7,
            clients_on: 0,
            spectators_on: 0,
            map_name: None,
            map_width: 64,
            map_height: 64,
            landscape: 0,
            dedicated: true,
        }
    );
    assert_eq!(date(712_223), "1950-01-01");
    assert_eq!(date(712_227), "1950-01-05");
    let s = to_status(&g, true, true, Duration::from_millis(3));
    assert_eq!((s.online, s.max), (0, 7));
    assert_eq!(s.name, "InteropTTD");
    assert_eq!(s.version.as_deref(), Some("13.0"));
    assert_eq!(s.map.as_deref(), Some("64x64 temperate"));
    assert_eq!(s.password, Some(false));
    let rules = s.rules.unwrap();
    assert!(rules.contains(&("companies_max".into(), "5".into())));
    assert!(rules.contains(&("start_date".into(), "1950-01-01".into())));
    assert!(!rules.iter().any(|(k, _)| k == "gamescript"));
    assert_eq!(s.extras["companies"], 0);
}

#[test]
fn request_bytes() {
    let mut out = Vec::new();
    encode_request(&mut out);
    assert_eq!(out, [0x03, 0x00, 0x07]);
}

/// Version 7 (OpenTTD 14) puts the ticks in front; a NewGRF with its name (type 1).
#[test]
fn version_7_byte_dump() {
    let g = GameInfo {
        version: 7,
        ticks_playing: Some(0x0102),
        gamescript: Some((3, "GS".into())),
        grfs: vec![Grf {
            id: 0x4433_2211,
            md5: Some([0xAA; 16]),
            name: Some("N".into()),
        }],
        game_date: Some(1),
        start_date: Some(2),
        companies_max: Some(15),
        companies_on: Some(2),
        spectators_max: Some(10),
        name: "S".into(),
        revision: "14.1".into(),
        password: true,
        clients_max: 25,
        clients_on: 3,
        spectators_on: 1,
        map_width: 256,
        map_height: 512,
        landscape: 1,
        dedicated: true,
        ..GameInfo::default()
    };
    let mut out = Vec::new();
    encode_game_info(&g, &mut out);
    let mut want = vec![7, 2, 1, 0, 0, 0, 0, 0, 0, 1, 3, 0, 0, 0, b'G', b'S', 0, 1];
    want.extend_from_slice(&[0x11, 0x22, 0x33, 0x44]);
    want.extend_from_slice(&[0xAA; 16]);
    want.extend_from_slice(b"N\0");
    want.extend_from_slice(&[1, 0, 0, 0, 2, 0, 0, 0, 15, 2, 10]);
    want.extend_from_slice(b"S\x0014.1\0");
    want.extend_from_slice(&[1, 25, 3, 1, 0, 1, 0, 2, 1, 1]);
    assert_eq!(out, want);
    assert_eq!(decode_game_info(&out).unwrap(), g);
    let s = to_status(&g, true, false, Duration::ZERO);
    assert_eq!((s.online, s.max, s.password), (3, 25, Some(true)));
    assert_eq!(s.map.as_deref(), Some("256x512 arctic"));
    let rules = s.rules.unwrap();
    assert!(rules.contains(&("gamescript".into(), "GS".into())));
    assert!(rules.contains(&("ticks_playing".into(), "258".into())));
}

/// Version 4 (OpenTTD 0.7-1.0): language and map name, NewGRFs without names, 32-bit dates.
/// Version 1: 16-bit dates since 1920.
#[test]
fn old_versions_byte_dumps() {
    let mut v4 = vec![4u8, 1];
    v4.extend_from_slice(&1u32.to_le_bytes());
    v4.extend_from_slice(&[0; 16]);
    v4.extend_from_slice(&[5, 0, 0, 0, 6, 0, 0, 0, 8, 1, 0]);
    v4.extend_from_slice(b"Old\x000.7.0\x00\x01\x00\x0a\x02\x00Random Map\x00");
    v4.extend_from_slice(&[0x00, 0x01, 0x00, 0x01, 0x03, 0x00]);
    let v4 = &v4[..];
    let g = decode_game_info(v4).unwrap();
    assert_eq!(g.grfs.len(), 1);
    assert_eq!(g.grfs[0].id, 1);
    assert_eq!(g.grfs[0].name, None);
    assert_eq!((g.game_date, g.companies_max), (Some(5), Some(8)));
    assert_eq!(
        (g.language, g.map_name.as_deref()),
        (Some(1), Some("Random Map"))
    );
    assert_eq!((g.clients_max, g.clients_on, g.map_width), (10, 2, 256));
    assert_eq!(
        to_status(&g, false, false, Duration::ZERO).map.as_deref(),
        Some("Random Map")
    );
    let mut again = Vec::new();
    encode_game_info(&g, &mut again);
    assert_eq!(&again[..], v4);

    let v1 = b"\x01A\x000.4\x00\x00\x00\x08\x01\x00\x02\x00\x01\x00m\x00\x40\x00\x40\x00\x02\x00";
    let g = decode_game_info(v1).unwrap();
    assert_eq!(g.game_date, Some(DAYS_TO_1920_FOR_TESTS + 2));
    assert_eq!(date(g.game_date.unwrap()), "1920-01-03");
    assert_eq!(g.companies_max, None);
}

#[test]
fn refusals() {
    // Size below the header, above OpenTTD's own cap, above ours.
    assert!(matches!(
        decode_packet(b"\x02\x00\x06", MAX_PACKET),
        Err(DecodeError::Invalid(_))
    ));
    assert!(matches!(
        decode_packet(b"\xff\xff\x06", usize::MAX),
        Err(DecodeError::TooLarge {
            value: 65535,
            limit: 32767,
            ..
        })
    ));
    assert!(matches!(
        decode_packet(b"\x00\x01\x06", 100),
        Err(DecodeError::TooLarge {
            value: 256,
            limit: 100,
            ..
        })
    ));
    // Incomplete: more to come.
    assert_eq!(decode_packet(&OPENTTD_13[..47], MAX_PACKET), Ok(None));
    // Version 0 and 8, an unknown NewGRF serialisation.
    for v in [0u8, 8] {
        assert!(matches!(
            decode_game_info(&[v]),
            Err(DecodeError::UnexpectedType { .. })
        ));
    }
    let mut bad = OPENTTD_13[3..].to_vec();
    bad[1] = 3;
    assert!(matches!(
        decode_game_info(&bad),
        Err(DecodeError::Invalid(_))
    ));
    // A name that never ends; a packet cut anywhere.
    let body = &OPENTTD_13[3..];
    assert!(matches!(
        decode_game_info(&body[..24]),
        Err(DecodeError::Unterminated { .. })
    ));
    for n in 0..body.len() {
        assert!(decode_game_info(&body[..n]).is_err(), "cut at {n}");
    }
    // 255 NewGRFs announced, none sent.
    let mut lying = body[..8].to_vec();
    lying.push(255);
    assert!(matches!(
        decode_game_info(&lying),
        Err(DecodeError::Truncated { .. })
    ));
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes(b in proptest::collection::vec(proptest::num::u8::ANY, 0..300)) {
        if let Ok(Some((p, used))) = decode_packet(&b, MAX_PACKET) {
            proptest::prop_assert!(used <= b.len() && used >= HEADER);
            let _ = decode_game_info(&p.body);
        }
        if let Ok(g) = decode_game_info(&b) {
            proptest::prop_assert!(g.grfs.len() <= 255);
        }
    }

    #[test]
    fn round_trip(
        version in 1u8..=7,
        name in "[ -~]{0,30}",
        on in proptest::num::u8::ANY,
        max in proptest::num::u8::ANY,
        grfs in 0usize..5,
        days in 701_265u32..766_800,
    ) {
        let g = GameInfo {
            version,
            ticks_playing: (version >= 7).then_some(99),
            gamescript: (version >= 5).then(|| (-1, String::new())),
            grfs: if version >= 4 {
                (0..grfs).map(|i| Grf {
                    id: i as u32,
                    md5: Some([i as u8; 16]),
                    name: (version >= 6).then(|| format!("grf{i}")),
                }).collect()
            } else { vec![] },
            game_date: Some(days),
            start_date: Some(days),
            companies_max: (version >= 2).then_some(15),
            companies_on: (version >= 2).then_some(1),
            spectators_max: (version >= 2).then_some(4),
            name,
            revision: "r1".into(),
            language: (version <= 5).then_some(0),
            clients_on: on,
            clients_max: max,
            map_name: (version <= 5).then(|| "m".into()),
            map_width: 64,
            map_height: 128,
            ..GameInfo::default()
        };
        let mut body = Vec::new();
        encode_game_info(&g, &mut body);
        let mut packet = Vec::new();
        encode_packet(SERVER_GAME_INFO, &body, &mut packet);
        let (p, used) = decode_packet(&packet, MAX_PACKET).unwrap().unwrap();
        proptest::prop_assert_eq!(used, packet.len());
        proptest::prop_assert_eq!(decode_game_info(&p.body).unwrap(), g);
    }
}
