//! Byte dumps from Debian's quakespasm 0.95.1 (`-dedicated 6`, hostname InteropNQ, map start,
//! one client "Ranger" with `color 4 12`), captured on 127.0.0.1 while writing
//! .ci/interop/netquake.sh; decoded field by field. Then round trips and arbitrary bytes.

use std::time::{Duration, Instant};

use proptest::prelude::*;

use super::exchange::{NetQuake, MAX_RULES};
use super::*;
use crate::protocol::exchange::{Error, Exchange, Input, LinkError, Params, Step};

/// quakespasm's CCREP_SERVER_INFO with one client connected.
const SERVER_INFO: &[u8] =
    b"\x80\x00\x00\x28\x83127.0.0.1:26000\x00InteropNQ\x00start\x00\x01\x06\x03";
/// quakespasm's CCREP_PLAYER_INFO for index 0: colours 0x4c, 0 frags, connected 1 s.
const PLAYER_INFO: &[u8] = b"\x80\x00\x00\x29\x84\x00Ranger\x00\x4c\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00127.0.0.1:37004\x00";
/// quakespasm's first CCREP_RULE_INFO (asked with no name at all) and its last (empty).
const FIRST_RULE: &[u8] = b"\x80\x00\x00\x11\x85fraglimit\x000\x00";
const NO_MORE_RULES: &[u8] = b"\x80\x00\x00\x05\x85";

#[test]
fn requests_are_the_bytes_quakespasm_answers() {
    let mut out = Vec::new();
    encode_request(&Request::ServerInfo, &mut out);
    assert_eq!(out, b"\x80\x00\x00\x0c\x02QUAKE\x00\x03");
    encode_request(&Request::PlayerInfo(1), &mut out);
    assert_eq!(out, b"\x80\x00\x00\x06\x03\x01");
    encode_request(&Request::RuleInfo(b"fraglimit".to_vec()), &mut out);
    assert_eq!(out, b"\x80\x00\x00\x0f\x04fraglimit\x00");
    encode_request(&Request::RuleInfo(Vec::new()), &mut out);
    assert_eq!(out, b"\x80\x00\x00\x06\x04\x00");
    assert_eq!(
        parse_request(b"\x80\x00\x00\x0c\x02QUAKE\x00\x03"),
        Some(Request::ServerInfo)
    );
    // quakespasm answers a rule request without any name (the first rule).
    assert_eq!(
        parse_request(b"\x80\x00\x00\x05\x04"),
        Some(Request::RuleInfo(Vec::new()))
    );
    // Another game name, or a length that is not the datagram's: ignored, as quakespasm does.
    assert_eq!(parse_request(b"\x80\x00\x00\x0c\x02QUAKX\x00\x03"), None);
    assert_eq!(parse_request(b"\x80\x00\x00\x0d\x02QUAKE\x00\x03"), None);
}

#[test]
fn server_info_from_quakespasm() {
    let Reply::Server(info) = decode(SERVER_INFO).unwrap() else {
        panic!("not server info")
    };
    assert_eq!(
        info,
        ServerInfo {
            address: "127.0.0.1:26000".into(),
            name: "InteropNQ".into(),
            map: "start".into(),
            players: 1,
            max: 6,
            version: 3,
        }
    );
    let s = to_status(&info, Duration::from_millis(3), true);
    assert_eq!((s.online, s.max, s.map.as_deref()), (1, 6, Some("start")));
    assert_eq!(s.extras["net_protocol"], 3);
    let mut out = Vec::new();
    encode(&Reply::Server(info), &mut out);
    assert_eq!(out, SERVER_INFO);
}

#[test]
fn player_info_from_quakespasm() {
    let Reply::Player(p) = decode(PLAYER_INFO).unwrap() else {
        panic!("not player info")
    };
    assert_eq!(
        p,
        PlayerInfo {
            index: 0,
            name: "Ranger".into(),
            colours: 0x4c,
            frags: 0,
            seconds: 1,
            address: "127.0.0.1:37004".into(),
        }
    );
    let player = to_player(&p);
    assert_eq!((player.score, player.duration), (Some(0), Some(1.0)));
    let mut out = Vec::new();
    encode(&Reply::Player(p), &mut out);
    assert_eq!(out, PLAYER_INFO);
}

#[test]
fn rule_info_from_quakespasm() {
    let Reply::Rule(Some(rule)) = decode(FIRST_RULE).unwrap() else {
        panic!("not a rule")
    };
    assert_eq!(
        (rule.name.as_str(), rule.value.as_str()),
        ("fraglimit", "0")
    );
    assert_eq!(decode(NO_MORE_RULES).unwrap(), Reply::Rule(None));
    let mut out = Vec::new();
    encode(&Reply::Rule(Some(rule)), &mut out);
    assert_eq!(out, FIRST_RULE);
}

#[test]
fn broken_replies_say_what_broke() {
    // The length field longer than the datagram, and shorter.
    let mut long = SERVER_INFO.to_vec();
    long[3] = 0x40;
    assert!(matches!(
        decode(&long),
        Err(DecodeError::Overrun { value: 0x40, .. })
    ));
    let mut short = SERVER_INFO.to_vec();
    short[3] = 0x20;
    assert!(matches!(decode(&short), Err(DecodeError::Invalid(_))));
    // A string that never ends (length fixed to agree).
    let cut = b"\x80\x00\x00\x0a\x83127.0";
    assert_eq!(decode(cut), Err(DecodeError::Unterminated { offset: 5 }));
    // The counts missing.
    let mut counts = SERVER_INFO[..SERVER_INFO.len() - 2].to_vec();
    counts[3] = counts.len() as u8;
    assert!(matches!(
        decode(&counts),
        Err(DecodeError::Truncated { .. })
    ));
    // Game data, not control: someone else's traffic.
    let mut data = SERVER_INFO.to_vec();
    data[0] = 0x00;
    assert!(matches!(decode(&data), Err(DecodeError::Mismatch(_))));
    // A request kind echoed back, and over the cap.
    assert!(matches!(
        decode(b"\x80\x00\x00\x05\x02"),
        Err(DecodeError::UnexpectedType { found: 2, .. })
    ));
    assert!(matches!(
        decode(&vec![0x80; MAX_REPLY + 1]),
        Err(DecodeError::TooLarge { .. })
    ));
}

#[test]
fn quake_text_drops_the_colour_bit() {
    assert_eq!(text(b"Ranger"), "Ranger");
    assert_eq!(text(&[0xd2, 0xe1, b'n', 0x01]), "Ran?");
    assert_eq!(text("Jörg".as_bytes()), "Jörg");
}

/// Drives an exchange with `answer` standing in for the server, until it ends.
fn run(
    params: Params,
    mut answer: impl FnMut(&[u8]) -> Vec<Vec<u8>>,
) -> (Vec<String>, Result<Status, Error>) {
    let t0 = Instant::now();
    let mut x = NetQuake::new(params, t0 + Duration::from_secs(5));
    let mut out = Vec::new();
    let mut labels = Vec::new();
    for _ in 0..1000 {
        match x.poll(t0, &mut out) {
            Step::Send(label) => {
                labels.push(label.to_string());
                for reply in answer(&out) {
                    x.handle(
                        t0,
                        Input::Received {
                            bytes: &reply,
                            rtt: Duration::from_millis(2),
                        },
                    );
                }
            }
            Step::Wait(_) => x.handle(t0, Input::Failed(LinkError::Timeout)),
            Step::Done(s) => return (labels, Ok(s)),
            Step::Failed(e) => return (labels, Err(e)),
            other => panic!("unexpected step {other:?}"),
        }
    }
    panic!("the exchange never ended")
}

fn quakespasm(req: &[u8]) -> Vec<Vec<u8>> {
    match parse_request(req) {
        Some(Request::ServerInfo) => vec![SERVER_INFO.to_vec()],
        Some(Request::PlayerInfo(0)) => vec![PLAYER_INFO.to_vec()],
        Some(Request::RuleInfo(p)) if p.is_empty() => vec![FIRST_RULE.to_vec()],
        Some(Request::RuleInfo(_)) => vec![NO_MORE_RULES.to_vec()],
        _ => Vec::new(),
    }
}

#[test]
fn a_poll_asks_info_then_each_player_then_the_rules() {
    let params = Params {
        players: true,
        rules: true,
        ..Params::default()
    };
    let (labels, status) = run(params, quakespasm);
    assert_eq!(
        labels,
        [
            "CCREQ_SERVER_INFO",
            "CCREQ_PLAYER_INFO",
            "CCREQ_RULE_INFO",
            "CCREQ_RULE_INFO"
        ]
    );
    let s = status.unwrap();
    assert_eq!(s.name, "InteropNQ");
    assert_eq!(s.players.unwrap()[0].name, "Ranger");
    assert_eq!(
        s.rules.unwrap(),
        [("fraglimit".to_string(), "0".to_string())]
    );
    // Without players or rules: one request.
    let (labels, status) = run(Params::default(), quakespasm);
    assert_eq!(labels, ["CCREQ_SERVER_INFO"]);
    assert!(status.unwrap().players.is_none());
}

#[test]
fn an_endless_rule_chain_and_late_duplicates_stay_bounded() {
    let params = Params {
        rules: true,
        ..Params::default()
    };
    let mut n = 0u32;
    let (labels, status) = run(params, |req| match parse_request(req) {
        Some(Request::ServerInfo) => vec![SERVER_INFO.to_vec()],
        Some(Request::RuleInfo(_)) => {
            n += 1;
            let rule = |i: u32| {
                let mut out = Vec::new();
                let name = format!("r{i}");
                encode(
                    &Reply::Rule(Some(Rule {
                        raw_name: name.clone().into_bytes(),
                        name,
                        value: "1".into(),
                    })),
                    &mut out,
                );
                out
            };
            // A late duplicate of the previous answer first, then the new rule.
            vec![rule(n.saturating_sub(1)), rule(n)]
        }
        _ => Vec::new(),
    });
    assert_eq!(labels.len(), 1 + MAX_RULES);
    let s = status.unwrap();
    assert_eq!(s.rules.unwrap().len(), MAX_RULES);
    assert!(s.extras.contains_key("rules_note"));
}

#[test]
fn a_player_reply_for_another_index_is_not_taken() {
    let params = Params {
        players: true,
        ..Params::default()
    };
    let (_, status) = run(params, |req| match parse_request(req) {
        Some(Request::ServerInfo) => vec![SERVER_INFO.to_vec()],
        Some(Request::PlayerInfo(_)) => {
            let mut wrong = PLAYER_INFO.to_vec();
            wrong[5] = 7;
            vec![wrong]
        }
        _ => Vec::new(),
    });
    let s = status.unwrap();
    assert_eq!(s.players.unwrap(), []);
    assert!(s.extras.contains_key("players_note"));
}

#[test]
fn broken_server_info_fails_the_poll() {
    let (_, status) = run(Params::default(), |_| {
        vec![b"\x80\x00\x00\x0a\x83127.0".to_vec()]
    });
    assert!(
        matches!(status, Err(Error::Net(LinkError::Decode(_)))),
        "{status:?}"
    );
}

proptest! {
    /// Arbitrary bytes never panic the decoder or the request parser.
    #[test]
    fn arbitrary_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = decode(&bytes);
        let _ = parse_request(&bytes);
    }

    /// Arbitrary bytes behind a valid control header of the right length never panic either
    /// (the decoder gets past the framing).
    #[test]
    fn arbitrary_bodies(kind in 0x83u8..=0x85, body in proptest::collection::vec(any::<u8>(), 0..200)) {
        let mut bytes = vec![0x80, 0x00, 0, 0, kind];
        bytes.extend_from_slice(&body);
        let len = bytes.len() as u16;
        bytes[2..4].copy_from_slice(&len.to_be_bytes());
        let _ = decode(&bytes);
    }

    /// Any server info round trips through the encoder the simulator uses.
    #[test]
    fn server_info_round_trips(name in "[a-zA-Z0-9 ]{0,40}", map in "[a-z0-9]{0,16}", players: u8, max: u8) {
        let info = ServerInfo { address: "127.0.0.1:26000".into(), name, map, players, max, version: 3 };
        let mut out = Vec::new();
        encode(&Reply::Server(info.clone()), &mut out);
        prop_assert_eq!(decode(&out).unwrap(), Reply::Server(info));
    }
}

/// The checked-in `exchanges` fuzz seed (arm 32; players, rules and detail asked) is the four
/// quakespasm replies above, and finishes a poll with them.
#[test]
fn exchanges_seed_finishes_a_poll() {
    use crate::protocol::exchange::replay::replay;

    let seed = include_bytes!("../../../fuzz/corpus/exchanges/netquake-quakespasm");
    let mut expected = vec![0xbf, 32];
    for reply in [SERVER_INFO, PLAYER_INFO, FIRST_RULE, NO_MORE_RULES] {
        expected.extend_from_slice(&[1, reply.len() as u8]);
        expected.extend_from_slice(reply);
    }
    assert_eq!(seed[..], expected[..]);
    let params = Params {
        players: true,
        rules: true,
        detail: true,
        ..Params::default()
    };
    let start = Instant::now();
    let deadline = start + Duration::from_secs(5);
    let mut x = NetQuake::new(params, deadline);
    let st = replay(&mut x, start, deadline, &seed[2..])
        .result
        .unwrap()
        .unwrap();
    assert_eq!((st.online, st.max, st.name.as_str()), (1, 6, "InteropNQ"));
    assert_eq!(st.players.unwrap()[0].name, "Ranger");
    assert_eq!(st.rules.unwrap().len(), 1);
}
