//! Byte dumps laid out field by field, and proptests.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

/// A Multi Theft Auto 1.6 reply as its server writes one: the nine fixed strings, one rule,
/// the empty key, then players with flags 3F (every field; team, skin and time empty).
const MTA: &[u8] = b"EYE1\
\x04mta\
\x0622003\
\x13Default MTA Server\
\x09Freeroam\
\x05None\
\x041.6\
\x020\
\x022\
\x0332\
\x08weather\x021\
\x01\
\x3f\x0d#FF0000alice\x01\x01\x020\x0345\x01\
\x3f\x04bob\x01\x01\x0312\x04200\x01";

fn mta() -> Reply {
    let some = |s: &str| Some(s.to_string());
    let player = |name: &str, score: &str, ping: &str| Player {
        name: some(name),
        team: some(""),
        skin: some(""),
        score: some(score),
        ping: some(ping),
        time: some(""),
    };
    Reply {
        game: "mta".into(),
        port: "22003".into(),
        name: "Default MTA Server".into(),
        gametype: "Freeroam".into(),
        map: "None".into(),
        version: "1.6".into(),
        password: "0".into(),
        players_online: "2".into(),
        players_max: "32".into(),
        rules: vec![("weather".into(), "1".into())],
        players: vec![
            player("#FF0000alice", "0", "45"),
            player("bob", "12", "200"),
        ],
    }
}

#[test]
fn dump_mta_reply() {
    assert_eq!(decode_reply(MTA), Ok(mta()));
    let mut out = Vec::new();
    encode_reply(&mta(), &mut out);
    assert_eq!(out, MTA);
    assert_eq!(decode_request(b"s"), Ok(()));
    assert!(decode_request(b"s\0").is_err());
    assert!(decode_request(b"p").is_err());
}

/// The length byte counts itself: 01 is empty, 00 is invalid, one past the end truncated.
#[test]
fn strings_count_their_length_byte() {
    let head = |tail: &[u8]| {
        let mut d = b"EYE1".to_vec();
        d.extend_from_slice(tail);
        d
    };
    let empty_fields = head(&[1; 9]);
    let r = decode_reply(&empty_fields).unwrap();
    assert_eq!(r, Reply::default());
    assert_eq!(
        decode_reply(&head(&[0])),
        Err(DecodeError::Invalid("ASE string length 0"))
    );
    assert!(matches!(
        decode_reply(&head(b"\x05abc")),
        Err(DecodeError::Truncated { offset: 4, .. })
    ));
    assert!(matches!(
        decode_reply(b"EYE2\x01"),
        Err(DecodeError::Mismatch(_))
    ));
    for n in 0..MTA.len() {
        // Cut anywhere: an error, or a shorter list, never a panic.
        if let Ok(r) = decode_reply(&MTA[..n]) {
            assert!(r.players.len() <= 2 && r.rules.len() <= 1, "{n}");
        }
    }
}

/// Flags pick fields; 0 ends the list, and so does a flags byte with nothing after it.
#[test]
fn player_flags() {
    let mut d = MTA[..MTA.iter().position(|&b| b == 0x3f).unwrap()].to_vec();
    d.extend_from_slice(b"\x09\x04ann\x027\x00\x11ignored");
    let r = decode_reply(&d).unwrap();
    assert_eq!(
        r.players,
        vec![Player {
            name: Some("ann".into()),
            score: Some("7".into()),
            ..Player::default()
        }]
    );
    d.truncate(d.len() - 9);
    d.push(0x3f);
    assert_eq!(decode_reply(&d).unwrap().players.len(), 1);
}

#[test]
fn status_mapping() {
    let s = to_status(
        &mta(),
        Want {
            detail: true,
            players: true,
            rules: true,
        },
        Duration::from_millis(3),
    );
    assert_eq!(s.name, "Default MTA Server");
    // MTA's "None" is no map, not a map of that name.
    assert_eq!(s.map, None);
    assert_eq!(s.game.as_deref(), Some("mta"));
    assert_eq!(s.version.as_deref(), Some("1.6"));
    assert_eq!((s.online, s.max, s.password), (2, 32, Some(false)));
    let players = s.players.unwrap();
    assert_eq!(players[0].name, "alice");
    assert_eq!((players[1].score, players[1].ping), (Some(12), Some(200)));
    assert_eq!(s.extras["port"], serde_json::json!(22003));
    assert_eq!(s.extras["gametype"], serde_json::json!("Freeroam"));
    // Other games keep their strings as sent.
    let mut other = mta();
    other.game = "bf1942".into();
    let s = to_status(
        &other,
        Want {
            players: true,
            ..Want::default()
        },
        Duration::ZERO,
    );
    assert_eq!(s.players.unwrap()[0].name, "#FF0000alice");
}

#[test]
fn colour_codes() {
    assert_eq!(strip_mta_colors("#FF0000red#00ff00green"), "redgreen");
    assert_eq!(strip_mta_colors("#1 server #12345"), "#1 server #12345");
    assert_eq!(strip_mta_colors("é#ABCDEFü"), "éü");
}

/// Strings over 254 bytes are cut on a character boundary.
#[test]
fn long_strings_cut() {
    let mut r = Reply {
        name: "é".repeat(200),
        ..Reply::default()
    };
    let mut out = Vec::new();
    encode_reply(&r, &mut out);
    r.name = "é".repeat(127);
    assert_eq!(decode_reply(&out), Ok(r));
}

fn text() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ .é#-]{0,30}"
}

fn player() -> impl Strategy<Value = Player> {
    (
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
        proptest::option::of(text()),
    )
        .prop_filter("a player has a field", |p| {
            p.0.is_some()
                || p.1.is_some()
                || p.2.is_some()
                || p.3.is_some()
                || p.4.is_some()
                || p.5.is_some()
        })
        .prop_map(|(name, team, skin, score, ping, time)| Player {
            name,
            team,
            skin,
            score,
            ping,
            time,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Arbitrary bytes never panic, and every decoded item took bytes.
    #[test]
    fn decoder_survives_noise(bytes in proptest::collection::vec(any::<u8>(), 0..300), eye in any::<bool>()) {
        let mut d = if eye { MAGIC.to_vec() } else { Vec::new() };
        d.extend_from_slice(&bytes);
        if let Ok(r) = decode_reply(&d) {
            prop_assert!(4 + 9 + r.rules.len() * 2 + r.players.len() <= d.len());
        }
        let _ = decode_request(&bytes);
    }

    /// One mutated byte of the MTA dump never panics.
    #[test]
    fn mutations(at in 0..MTA.len(), byte in any::<u8>()) {
        let mut d = MTA.to_vec();
        d[at] = byte;
        let _ = decode_reply(&d);
    }

    /// decode(encode(x)) == x.
    #[test]
    fn round_trip(fixed in proptest::collection::vec(text(), 9),
                  rules in proptest::collection::vec(("[a-z_]{1,12}", text()), 0..10),
                  players in proptest::collection::vec(player(), 0..20)) {
        let reply = Reply {
            game: fixed[0].clone(),
            port: fixed[1].clone(),
            name: fixed[2].clone(),
            gametype: fixed[3].clone(),
            map: fixed[4].clone(),
            version: fixed[5].clone(),
            password: fixed[6].clone(),
            players_online: fixed[7].clone(),
            players_max: fixed[8].clone(),
            rules,
            players,
        };
        let mut out = Vec::new();
        encode_reply(&reply, &mut out);
        prop_assert_eq!(decode_reply(&out), Ok(reply));
    }
}
