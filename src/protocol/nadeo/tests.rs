//! Byte dumps of the framing and the XML-RPC pieces, arbitrary bytes, and the exchange over
//! scripted input on a virtual clock.

use std::time::{Duration, Instant};

use super::exchange::{Login, Nadeo};
use super::xmlrpc::{
    decode_call, decode_response, encode_call, encode_fault, encode_response, strip_formatting,
    Fault, Param, Reply, Value,
};
use super::*;
use crate::protocol::exchange::{Error, Exchange, Input, Params, Step};
use crate::protocol::DecodeError;
use crate::secret::Secret;
use crate::status::Reason;

#[test]
fn handshake_bytes() {
    let mut out = Vec::new();
    encode_handshake(HANDSHAKE, &mut out);
    assert_eq!(&out[..4], &[11, 0, 0, 0]);
    assert_eq!(&out[4..], b"GBXRemote 2");
    assert_eq!(decode_handshake(&out).unwrap(), Some(((), 15)));
    for cut in 0..out.len() {
        assert_eq!(decode_handshake(&out[..cut]).unwrap(), None, "{cut}");
    }
    let mut old = Vec::new();
    encode_handshake("GBXRemote 1", &mut old);
    assert!(matches!(
        decode_handshake(&old),
        Err(DecodeError::Invalid(_))
    ));
    let lying = [0xFF, 0xFF, 0xFF, 0x7F, b'G'];
    assert!(matches!(
        decode_handshake(&lying),
        Err(DecodeError::TooLarge {
            value: 0x7FFF_FFFF,
            ..
        })
    ));
}

#[test]
fn frame_bytes() {
    let mut out = Vec::new();
    encode_frame(0x8000_0001, b"<x/>", &mut out);
    assert_eq!(out, b"\x04\x00\x00\x00\x01\x00\x00\x80<x/>");
    let (f, used) = decode_frame(&out, 1 << 20).unwrap().unwrap();
    assert_eq!(
        (f.handle, f.xml.as_slice(), used),
        (0x8000_0001, &b"<x/>"[..], 12)
    );
    assert!(f.is_reply());
    for cut in 0..out.len() {
        assert_eq!(decode_frame(&out[..cut], 1 << 20).unwrap(), None, "{cut}");
    }
    // A length over the cap is refused from the header alone.
    let lying = b"\xFF\xFF\xFF\x7F\x01\x00\x00\x80";
    assert!(matches!(
        decode_frame(lying, 1 << 20),
        Err(DecodeError::TooLarge { .. })
    ));
    assert!(matches!(
        decode_frame(b"\x00\x00\x00\x00\x01\x00\x00\x80", 1 << 20),
        Err(DecodeError::Invalid(_))
    ));
    let callback = Frame {
        handle: 7,
        xml: Vec::new(),
    };
    assert!(!callback.is_reply());
}

#[test]
fn call_bytes() {
    let mut out = Vec::new();
    encode_call(
        "Authenticate",
        &[Param::Str("User"), Param::Str("a<b&c"), Param::Int(-3)],
        &mut out,
    );
    let text = String::from_utf8(out.clone()).unwrap();
    assert!(text.ends_with(
        "<methodCall><methodName>Authenticate</methodName><params>\
         <param><value><string>User</string></value></param>\
         <param><value><string>a&lt;b&amp;c</string></value></param>\
         <param><value><i4>-3</i4></value></param></params></methodCall>"
    ));
    let (m, p) = decode_call(&out).unwrap();
    assert_eq!(m, "Authenticate");
    assert_eq!(
        p,
        [
            Value::Str("User".into()),
            Value::Str("a<b&c".into()),
            Value::Int(-3)
        ]
    );
}

#[test]
fn response_round_trip() {
    let v = Value::Array(vec![Value::Struct(vec![
        ("Login".into(), Value::Str("x".into())),
        ("PlayerId".into(), Value::Int(236)),
        ("IsSpectator".into(), Value::Bool(false)),
        ("Ratio".into(), Value::Double(0.5)),
        ("Empty".into(), Value::Array(Vec::new())),
    ])]);
    let mut out = Vec::new();
    encode_response(&v, &mut out);
    assert_eq!(decode_response(&out).unwrap(), Reply::Value(v));
}

/// As ManiaPlanet writes them: untyped strings, whitespace between elements, `int` and `i4`,
/// character references.
#[test]
fn reads_real_shapes() {
    let xml = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<methodResponse>\n<params>\n<param><value><struct>\n\
        <member><name>Name</name><value>A&#x31; &amp; B</value></member>\n\
        <member><name>CurrentValue</name><value><int>32</int></value></member>\n\
        <member><name>Build</name><value><string> </string></value></member>\n\
        <member><name>When</name><value><dateTime.iso8601>20110101T00:00:00</dateTime.iso8601></value></member>\n\
        </struct></value></param>\n</params>\n</methodResponse>\n";
    let Reply::Value(v) = decode_response(xml).unwrap() else {
        panic!("fault");
    };
    assert_eq!(v.get("Name").and_then(Value::as_str), Some("A1 & B"));
    assert_eq!(v.get("CurrentValue").and_then(Value::as_i64), Some(32));
    assert_eq!(v.get("Build").and_then(Value::as_str), Some(" "));
    assert_eq!(v.get("When"), Some(&Value::Other));
}

#[test]
fn fault_keeps_code_not_text() {
    let mut out = Vec::new();
    encode_fault(-1000, "Permission denied.", &mut out);
    assert_eq!(
        decode_response(&out).unwrap(),
        Reply::Fault(Fault {
            code: -1000,
            denied: true
        })
    );
    out.clear();
    encode_fault(-1000, "Unknown method.", &mut out);
    assert_eq!(
        decode_response(&out).unwrap(),
        Reply::Fault(Fault {
            code: -1000,
            denied: false
        })
    );
}

#[test]
fn refuses_hostile_xml() {
    let deep = format!(
        "<methodResponse><params><param>{}{}</param></params></methodResponse>",
        "<value><array><data>".repeat(40),
        "</data></array></value>".repeat(40)
    );
    let bad: [&[u8]; 7] = [
        b"<!DOCTYPE x [<!ENTITY a \"aaaa\">]><methodResponse/>",
        b"<methodResponse><params><param><value>&a;</value></param></params></methodResponse>",
        b"<methodResponse><params><param><value>",
        b"<methodResponse><params><param><value><i4>x</i4></value></param></params></methodResponse>",
        b"<methodResponse><params><param><value><boolean>2</boolean></value></param></params></methodResponse>",
        b"\xFF\xFE",
        deep.as_bytes(),
    ];
    for b in bad {
        assert!(
            decode_response(b).is_err(),
            "{}",
            String::from_utf8_lossy(b)
        );
    }
}

#[test]
fn strips_formatting() {
    assert_eq!(
        strip_formatting("$s$o$f90Stadium$fff Demo $$5"),
        "Stadium Demo $5"
    );
    assert_eq!(strip_formatting("$l[http://x]link$l"), "[http://x]link");
    assert_eq!(strip_formatting("end$"), "end");
    assert_eq!(strip_formatting("$0a"), "");
}

proptest::proptest! {
    #[test]
    fn arbitrary_bytes(b in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
        let _ = decode_frame(&b, 1 << 20);
        let _ = decode_handshake(&b);
        let _ = decode_response(&b);
        let _ = decode_call(&b);
    }

    #[test]
    fn arbitrary_text(s in "[<>/a-z&;# ]{0,200}") {
        let _ = decode_response(s.as_bytes());
    }

    #[test]
    fn strings_round_trip(s in "\\PC{0,40}") {
        let v = Value::Str(s.clone());
        let mut out = Vec::new();
        encode_response(&v, &mut out);
        // XML normalises CR line ends; everything else comes back as sent.
        let back = decode_response(&out).unwrap();
        if !s.contains('\r') {
            proptest::prop_assert_eq!(back, Reply::Value(v));
        }
    }
}

/// A scripted server: the handshake, then each call answered from `answers` by method.
fn reply(out: &[u8], value: Result<Value, (i32, &str)>) -> Vec<u8> {
    let (frame, _) = decode_frame(out, 1 << 20).unwrap().unwrap();
    let mut xml = Vec::new();
    match value {
        Ok(v) => encode_response(&v, &mut xml),
        Err((c, t)) => encode_fault(c, t, &mut xml),
    }
    let mut b = Vec::new();
    encode_frame(frame.handle, &xml, &mut b);
    b
}

fn method_of(out: &[u8]) -> String {
    let (frame, _) = decode_frame(out, 1 << 20).unwrap().unwrap();
    decode_call(&frame.xml).unwrap().0
}

fn run(
    mut x: Nadeo,
    mut answer: impl FnMut(&str) -> Result<Value, (i32, &'static str)>,
) -> (Result<crate::status::Status, Error>, Vec<String>) {
    let t0 = Instant::now();
    let mut out = Vec::new();
    let mut sent = Vec::new();
    let mut hs = Vec::new();
    encode_handshake(HANDSHAKE, &mut hs);
    for _ in 0..50 {
        match x.poll(t0, &mut out) {
            Step::Connect(_) => x.handle(
                t0,
                Input::Received {
                    bytes: &hs,
                    rtt: Duration::ZERO,
                },
            ),
            Step::Send(_) | Step::SendSecret(_) => {
                let m = method_of(&out);
                sent.push(m.clone());
                let r = reply(&out, answer(&m));
                // One byte at a time: the framing must not care.
                for b in r.chunks(1) {
                    x.handle(
                        t0,
                        Input::Received {
                            bytes: b,
                            rtt: Duration::from_millis(3),
                        },
                    );
                }
            }
            Step::Done(s) => return (Ok(s), sent),
            Step::Failed(e) => return (Err(e), sent),
            other => panic!("{other:?}"),
        }
    }
    panic!("no end");
}

fn tm2(m: &str) -> Result<Value, (i32, &'static str)> {
    let s = |v: &str| Value::Str(v.into());
    Ok(match m {
        "Authenticate" => Value::Bool(true),
        "GetServerName" => s("$f00Red$z Server"),
        "GetPlayerList" => Value::Array(vec![
            Value::Struct(vec![
                ("Login".into(), s("a")),
                ("NickName".into(), s("$fffAlice")),
            ]),
            Value::Struct(vec![("Login".into(), s("bob"))]),
        ]),
        "GetMaxPlayers" => Value::Struct(vec![("CurrentValue".into(), Value::Int(32))]),
        "GetVersion" => Value::Struct(vec![
            ("Name".into(), s("ManiaPlanet")),
            ("TitleId".into(), s("SMStorm@nadeo")),
            ("Version".into(), s("3.3.0")),
        ]),
        "GetCurrentMapInfo" => Value::Struct(vec![("Name".into(), s("$oArena"))]),
        _ => return Err((-1000, "Unknown method.")),
    })
}

fn params() -> Params {
    Params {
        players: true,
        rules: true,
        ..Params::default()
    }
}

#[test]
fn exchange_reads_everything() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let (st, sent) = run(Nadeo::new(params(), None, 5, deadline), tm2);
    let st = st.unwrap();
    assert_eq!(
        sent,
        [
            "GetServerName",
            "GetPlayerList",
            "GetMaxPlayers",
            "GetVersion",
            "GetCurrentMapInfo"
        ]
    );
    assert_eq!(st.name, "Red Server");
    assert_eq!((st.online, st.max), (2, 32));
    assert_eq!(st.map.as_deref(), Some("Arena"));
    assert_eq!(st.game.as_deref(), Some("Shootmania"));
    assert_eq!(st.version.as_deref(), Some("3.3.0"));
    let names: Vec<_> = st.players.unwrap().into_iter().map(|p| p.name).collect();
    assert_eq!(names, ["Alice", "bob"]);
    assert_eq!(st.latency, Duration::from_millis(3));
}

#[test]
fn exchange_logs_in_and_falls_back_to_challenge() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let login = Login {
        user: "User".into(),
        password: Secret::new("pw"),
    };
    let answer = |m: &str| match m {
        "GetCurrentChallengeInfo" => Ok(Value::Struct(vec![(
            "Name".into(),
            Value::Str("A01".into()),
        )])),
        "GetVersion" | "GetCurrentMapInfo" => Err((-1000, "Unknown method.")),
        m => tm2(m),
    };
    let (st, sent) = run(Nadeo::new(params(), Some(login), 5, deadline), answer);
    let st = st.unwrap();
    assert_eq!(sent[0], "Authenticate");
    assert_eq!(sent.last().unwrap(), "GetCurrentChallengeInfo");
    assert_eq!(st.map.as_deref(), Some("A01"));
    assert_eq!(st.extras["version_error"], "malformed");
}

#[test]
fn exchange_faults_are_typed() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let login = Login {
        user: "User".into(),
        password: Secret::new("pw"),
    };
    let refuse = |m: &str| match m {
        "Authenticate" => Err((-1000, "Login unknown or password incorrect: pw")),
        m => tm2(m),
    };
    let (e, _) = run(Nadeo::new(params(), Some(login), 5, deadline), refuse);
    let e = e.unwrap_err();
    assert_eq!(e.reason(), Reason::AuthRefused);
    assert!(!e.to_string().contains("pw"), "{e}");
    let refuse_false = |m: &str| match m {
        "Authenticate" => Ok(Value::Bool(false)),
        m => tm2(m),
    };
    let login = Login {
        user: "User".into(),
        password: Secret::new("pw"),
    };
    let (e, sent) = run(Nadeo::new(params(), Some(login), 5, deadline), refuse_false);
    assert_eq!(e.unwrap_err().reason(), Reason::AuthRefused);
    assert_eq!(sent, ["Authenticate"]);
    let denied = |m: &str| match m {
        "GetServerName" => Err((-1000, "Permission denied.")),
        m => tm2(m),
    };
    let (e, _) = run(Nadeo::new(params(), None, 5, deadline), denied);
    assert!(matches!(e.unwrap_err(), Error::NoCredentials { .. }));
    let unknown = |m: &str| match m {
        "GetPlayerList" => Err((-32601, "no such method")),
        m => tm2(m),
    };
    let (e, _) = run(Nadeo::new(params(), None, 5, deadline), unknown);
    let e = e.unwrap_err();
    assert!(
        matches!(
            e,
            Error::Fault {
                method: "GetPlayerList",
                code: -32601
            }
        ),
        "{e:?}"
    );
    assert_eq!(e.reason(), Reason::Malformed);
}

/// A reply that never comes: the required call times out at the deadline, not before.
#[test]
fn exchange_times_out() {
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(2);
    let mut x = Nadeo::new(params(), None, 5, deadline);
    let mut out = Vec::new();
    assert!(matches!(x.poll(t0, &mut out), Step::Connect(_)));
    assert!(matches!(x.poll(t0, &mut out), Step::Wait(d) if d == deadline));
    assert!(matches!(
        x.poll(deadline, &mut out),
        Step::Failed(Error::Net(_))
    ));
}

/// A replay record: `bytes` arriving at once (op 1, at most 255 bytes).
fn arrive(bytes: &[u8], script: &mut Vec<u8>) {
    for piece in bytes.chunks(255) {
        script.push(1);
        script.push(piece.len() as u8);
        script.extend_from_slice(piece);
    }
}

/// The handshake and a good `GetServerName` answer to handle 0x8000_0001, so that arbitrary
/// input reaches the later calls.
fn good_start() -> Vec<u8> {
    let mut script = Vec::new();
    let mut hs = Vec::new();
    encode_handshake(HANDSHAKE, &mut hs);
    arrive(&hs, &mut script);
    let mut xml = Vec::new();
    encode_response(&Value::Str("x".into()), &mut xml);
    let mut frame = Vec::new();
    encode_frame(0x8000_0001, &xml, &mut frame);
    arrive(&frame, &mut script);
    script
}

#[test]
fn replay_reaches_the_end() {
    use crate::protocol::exchange::replay::replay;
    let t0 = Instant::now();
    let deadline = t0 + Duration::from_secs(5);
    let mut script = good_start();
    let mut xml = Vec::new();
    encode_response(&Value::Array(Vec::new()), &mut xml);
    let mut frame = Vec::new();
    encode_frame(0x8000_0002, &xml, &mut frame);
    arrive(&frame, &mut script);
    let mut x = Nadeo::new(params(), None, 1, deadline);
    let r = replay(&mut x, t0, deadline, &script);
    // The best-effort calls go unanswered: up, with name and an empty list, by the deadline.
    let st = r.result.unwrap().unwrap();
    assert_eq!((st.name.as_str(), st.online), ("x", 0));
    assert!(r.ended <= deadline);
    assert_eq!(r.sent, 5);
}

proptest::proptest! {
    /// Any input sequence, from the start or after a good beginning: the exchange finishes by
    /// its deadline, never stuck, never panicking.
    #[test]
    fn replay_arbitrary(
        tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        from_start in proptest::prelude::any::<bool>(),
        login in proptest::prelude::any::<bool>(),
    ) {
        use crate::protocol::exchange::replay::replay;
        let t0 = Instant::now();
        let deadline = t0 + Duration::from_secs(5);
        let mut script = if from_start { Vec::new() } else { good_start() };
        script.extend_from_slice(&tail);
        let login = login.then(|| Login { user: "User".into(), password: Secret::new("pw") });
        let mut x = Nadeo::new(params(), login, 1, deadline);
        let r = replay(&mut x, t0, deadline, &script);
        proptest::prop_assert!(!r.stuck());
        proptest::prop_assert!(r.ended <= deadline + Duration::from_millis(1));
    }
}
