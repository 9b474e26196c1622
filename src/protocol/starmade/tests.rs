use super::*;
use proptest::prelude::*;

fn info_params(name: &str, players: i32, max: i32) -> Vec<Param> {
    vec![
        Param::Byte(2),
        Param::Float(0.199),
        Param::Str(name.into()),
        Param::Str("A galaxy".into()),
        Param::Long(1_701_419_335_680),
        Param::Int(players),
        Param::Int(max),
    ]
}

/// The reply byte by byte: header, packet header, then each typed parameter.
#[test]
fn exact_bytes() {
    let mut out = Vec::new();
    encode_reply(
        &[Param::Byte(2), Param::Str("Hi".into()), Param::Int(3)],
        7,
        &mut out,
    );
    let want: Vec<u8> = [
        &[0, 0, 0, 21][..],           // length of what follows the header
        &[0, 0, 0, 0, 0, 0, 0, 7],    // timestamp
        &[0x2a, 0xff, 0xff, 1, 0x6f], // packet, id, command, type
        &[0, 0, 0, 3],                // three parameters
        &[6, 2],                      // byte 2
        &[4, 0, 2, b'H', b'i'],       // string "Hi"
        &[1, 0, 0, 0, 3],             // int 3
    ]
    .concat();
    assert_eq!(out, want);
    let (params, used) = decode_reply(&out, 1 << 20).unwrap().unwrap();
    assert_eq!(used, out.len());
    assert_eq!(
        params,
        [Param::Byte(2), Param::Str("Hi".into()), Param::Int(3)]
    );
}

#[test]
fn info_round_trip() {
    let mut out = Vec::new();
    encode_reply(&info_params("Orbital", 2, 32), 0, &mut out);
    // qstat's reader wants at least 54 bytes.
    assert!(out.len() >= 54);
    let (params, _) = decode_reply(&out, 1 << 20).unwrap().unwrap();
    let info = to_info(&params).unwrap();
    assert_eq!(info.version.as_deref(), Some("0.199"));
    let s = to_status(info, Duration::ZERO, true);
    assert_eq!((s.online, s.max, s.name.as_str()), (2, 32, "Orbital"));
    assert_eq!(s.extras["description"], "A galaxy");
    assert_eq!(s.extras["start_time_ms"], 1_701_419_335_680i64);
    // A version sent as a string (newer servers, gamedig's reading) is kept.
    let mut p = info_params("x", 0, 1);
    p[1] = Param::Str("0.202.108".into());
    assert_eq!(to_info(&p).unwrap().version.as_deref(), Some("0.202.108"));
}

#[test]
fn partial_and_hostile() {
    let mut out = Vec::new();
    encode_reply(&info_params("Orbital", 2, 32), 0, &mut out);
    for n in 0..out.len() {
        assert_eq!(decode_reply(&out[..n], 1 << 20).unwrap(), None, "{n}");
    }
    // A length past the cap is refused before its bytes come.
    assert!(matches!(
        decode_reply(&[0x7f, 0xff, 0xff, 0xff], 1 << 20),
        Err(DecodeError::TooLarge { .. })
    ));
    // Not a packet; a count past the cap; an unknown type; a string longer than the body.
    let mut bad = out.clone();
    bad[HEADER] = 0x20;
    assert!(decode_reply(&bad, 1 << 20).is_err());
    let mut bad = out.clone();
    bad[HEADER + 5..HEADER + 9].copy_from_slice(&1000i32.to_be_bytes());
    assert!(decode_reply(&bad, 1 << 20).is_err());
    assert!(decode_body(&[0x2a, 0, 0, 1, 0x6f, 0, 0, 0, 1, 9]).is_err());
    assert!(decode_body(&[0x2a, 0, 0, 1, 0x6f, 0, 0, 0, 1, 4, 0xff, 0xff, b'a']).is_err());
    // Negative or missing counts, a missing name.
    assert!(to_info(&info_params("x", -1, 8)).is_err());
    assert!(to_info(&info_params("x", 1, 8)[..6]).is_err());
    assert!(to_info(&[Param::Byte(2), Param::Float(0.1), Param::Int(1)]).is_err());
}

proptest! {
    /// Arbitrary bytes: never a panic; a frame never claims more than it was given.
    #[test]
    fn arbitrary_bytes(buf in proptest::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(Some((params, used))) = decode_reply(&buf, 1 << 20) {
            prop_assert!(used <= buf.len());
            prop_assert!(params.len() <= MAX_PARAMS);
            if let Ok(info) = to_info(&params) {
                let (p, m) = (info.players, info.max_players);
                let s = to_status(info, Duration::ZERO, true);
                prop_assert_eq!((s.online, s.max), (p, m));
            }
        }
    }

    /// Whatever the simulator encodes decodes to the same parameters.
    #[test]
    fn round_trip(name in ".{0,40}", players in 0i32..1000, max in 0i32..1000, t in any::<i64>()) {
        let mut out = Vec::new();
        let params = info_params(&name, players, max);
        encode_reply(&params, t, &mut out);
        let (got, used) = decode_reply(&out, 1 << 20).unwrap().unwrap();
        prop_assert_eq!(used, out.len());
        prop_assert_eq!(&got, &params);
    }
}

/// The exchange on a script: a refused connect is `refused`, a reply in two pieces is read.
#[test]
fn exchange_outcomes() {
    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::Params;
    use std::time::Instant;
    let start = Instant::now();
    let deadline = start + Duration::from_secs(2);
    let mut x = exchange::new(Params::default(), deadline);
    // Op 3 with n = 1: the link fails, refused.
    let r = replay(&mut x, start, deadline, &[0x07]);
    let e = r.result.unwrap().unwrap_err();
    assert_eq!(e.reason().as_str(), "refused", "{e:?}");
    let mut reply = Vec::new();
    encode_reply(&info_params("Orbital", 2, 32), 0, &mut reply);
    let (a, b) = reply.split_at(20);
    let mut script = vec![0x01, a.len() as u8];
    script.extend_from_slice(a);
    script.extend_from_slice(&[0x01, b.len() as u8]);
    script.extend_from_slice(b);
    let mut x = exchange::new(Params::default(), deadline);
    let s = replay(&mut x, start, deadline, &script)
        .result
        .unwrap()
        .unwrap();
    assert_eq!((s.online, s.max, s.name.as_str()), (2, 32, "Orbital"));
}
