//! Soldat's file server reply byte for byte, broken replies, arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;

use super::*;

/// The reply gamedig's Soldat pull request (node-gamedig #642) published from a real
/// server, laid out byte for byte: its two 4-byte fields showed as `00 00 00` and one byte
/// of 0x80 or more; 0xB3 is this file's size (179 bytes).
fn published() -> Vec<u8> {
    let mut d = b"STARTFILES\r\n".to_vec();
    d.extend_from_slice(&[0, 0, 0, 0xB3]);
    d.extend_from_slice(b"logs/gamestat.txt\r\n");
    d.extend_from_slice(&[0, 0, 0, 0xB3]);
    d.extend_from_slice(
        b"In-Game Statistics\r\nPlayers: 0\r\nMap: ctf_Ash\r\nGamemode: Capture the Flag\r\n\
          Timeleft: 8:42\r\nTeam 1: 0\r\nTeam 2: 0\r\nTeam 3: 0\r\nTeam 4: 0\r\n\
          Players list: (name/kills/deaths/team/ping)\r\n",
    );
    d.extend_from_slice(b"ENDFILES\r\n");
    d
}

#[test]
fn request_bytes() {
    assert_eq!(REQUEST, b"STARTFILES\r\nlogs/gamestat.txt\r\nENDFILES\r\n");
    assert!(is_request(REQUEST));
}

#[test]
fn published_reply() {
    let d = published();
    let (g, used) = decode_frame(&d).unwrap().unwrap();
    assert_eq!(used, d.len());
    assert_eq!(g.players, 0);
    assert_eq!(g.map, "ctf_Ash");
    assert_eq!(g.gamemode, "Capture the Flag");
    assert_eq!(g.timeleft, "8:42");
    assert_eq!(g.teams, [0, 0, 0, 0]);
    assert!(g.list.is_empty());
    // Our writer lays it out the same, byte for byte.
    let mut file = String::new();
    encode_gamestat(&g, &mut file);
    let mut ours = Vec::new();
    encode_reply(&file, &mut ours);
    assert_eq!(ours, d);
}

/// A deathmatch (no team lines) with two players, five lines each.
#[test]
fn players_field_by_field() {
    let file = "In-Game Statistics\r\nPlayers: 2\r\nMap: Ash\r\nGamemode: Deathmatch\r\n\
                Timeleft: 1:52\r\nPlayers list: (name/kills/deaths/team/ping)\r\n\
                Major\r\n12\r\n3\r\n0\r\n45\r\nKat\r\n-1\r\n7\r\n0\r\n120\r\n";
    let mut d = Vec::new();
    encode_reply(file, &mut d);
    let (g, _) = decode_frame(&d).unwrap().unwrap();
    assert_eq!(g.teams, Vec::<i64>::new());
    assert_eq!(
        g.list[1],
        Record {
            name: "Kat".into(),
            kills: -1,
            deaths: 7,
            team: 0,
            ping: 120
        }
    );
    let s = to_status(&g, true, true, Duration::ZERO);
    assert_eq!((s.online, s.max), (2, 0));
    assert_eq!(s.map.as_deref(), Some("Ash"));
    assert_eq!(s.game.as_deref(), Some("Deathmatch"));
    let p = s.players.unwrap();
    assert_eq!(
        (p[0].name.as_str(), p[0].score, p[0].ping),
        ("Major", Some(12), Some(45))
    );
    assert_eq!(s.extras["timeleft"], "1:52");
}

/// Needs more until `ENDFILES\r\n`, at every cut.
#[test]
fn incomplete_until_the_end() {
    let d = published();
    for n in 0..d.len() {
        assert!(decode_frame(&d[..n]).unwrap().is_none(), "{n}");
    }
}

#[test]
fn broken_replies() {
    let body = |file: &str| {
        let mut d = Vec::new();
        encode_reply(file, &mut d);
        decode_frame(&d)
    };
    // Not the file server.
    assert!(decode_frame(b"HTTP/1.1 400").is_err());
    // No file: downloads or logging off.
    assert!(decode_frame(b"STARTFILES\r\nENDFILES\r\n").is_err());
    // Another file's name.
    let mut d = b"STARTFILES\r\n\0\0\0\x01maps/x.pms\r\n\0\0\0\x01xENDFILES\r\n".to_vec();
    assert!(decode_frame(&d).is_err());
    d.truncate(16);
    assert!(decode_frame(&d).unwrap().is_none());
    // A count that is no number; a record cut short; a ping that is no number.
    assert!(body("Players: lots\r\nPlayers list: x\r\n").is_err());
    assert!(body("Players: 1\r\nPlayers list: x\r\nA\r\n1\r\n2\r\n").is_err());
    assert!(body("Players: 1\r\nPlayers list: x\r\nA\r\n1\r\n2\r\n0\r\nfast\r\n").is_err());
    // No Players line at all.
    assert!(body("In-Game Statistics\r\n").is_err());
}

proptest! {
    #[test]
    fn arbitrary_bytes(body in proptest::collection::vec(any::<u8>(), 0..400)) {
        let mut d = START.to_vec();
        d.extend_from_slice(&body);
        let _ = decode_frame(&d);
        d.extend_from_slice(END);
        let _ = decode_frame(&d);
        let _ = decode_frame(&body);
    }

    #[test]
    fn round_trip(
        players: u32,
        map in "[!-~]{0,20}",
        gamemode in "[!-~]([ -~]{0,18}[!-~])?",
        teams in proptest::collection::vec(any::<i64>(), 0..=4),
        list in proptest::collection::vec(
            ("[!-~]([ -~]{0,14}[!-~])?", any::<i64>(), any::<i64>(), 0u8..5, any::<u32>()), 0..8),
    ) {
        let list = list
            .into_iter()
            .map(|(name, kills, deaths, team, ping)| Record { name, kills, deaths, team, ping })
            .collect();
        let g = Gamestat { players, map, gamemode, timeleft: "1:00".into(), teams, list };
        let mut file = String::new();
        encode_gamestat(&g, &mut file);
        let mut d = Vec::new();
        encode_reply(&file, &mut d);
        let (back, used) = decode_frame(&d).unwrap().unwrap();
        prop_assert_eq!(used, d.len());
        prop_assert_eq!(back, g);
    }
}

/// The checked-in `exchanges` fuzz seed (arm 27: the pick byte, the arm byte, then the
/// replay script, the reply in chunks of 200 bytes) reaches a status.
#[test]
fn fuzz_seed_replays_to_a_status() {
    use std::time::Instant;

    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;

    let seed = include_bytes!("../../../fuzz/corpus/exchanges/soldat-gamestat");
    let params = Params {
        players: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = exchange::Soldat::new(params, deadline);
    let r = replay(&mut x, start, deadline, &seed[2..]);
    let status = r.result.unwrap().unwrap();
    assert_eq!(status.online, 2);
    assert_eq!(status.map.as_deref(), Some("ctf_Ash"));
    assert_eq!(status.players.unwrap()[1].name, "Kat");
}

/// A refused connect fails the poll `refused`, not as a stream that closed.
#[test]
fn refused_connect() {
    use std::time::Instant;

    use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};

    let t0 = Instant::now();
    let mut x = exchange::Soldat::new(Params::default(), t0 + Duration::from_secs(5));
    let mut out = Vec::new();
    assert!(matches!(x.poll(t0, &mut out), Step::Connect(_)));
    x.handle(t0, Input::Failed(LinkError::Refused));
    assert!(matches!(
        x.poll(t0, &mut out),
        Step::Failed(Error::Net(LinkError::Refused))
    ));
}
