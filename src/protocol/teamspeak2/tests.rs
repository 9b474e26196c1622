//! The TeamSpeak 2 codec on exact lines: `si` pairs, `pl`'s header and quoted cells, the
//! end lines, and arbitrary bytes.

use std::time::Duration;

use proptest::prelude::*;
use serde_json::json;

use super::*;

fn lines(text: &[u8]) -> Vec<Vec<u8>> {
    text.split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .filter(|l| !l.is_empty())
        .collect()
}

/// A TeamSpeak 2 server's `si` (2.0.24 on Linux, the field order real servers print) and
/// `pl` as bytes; every field the status reads, and quoted cells unquoted.
#[test]
fn si_and_pl() {
    let si = lines(
        b"server_id=1\r\nserver_name=Clan Room = EU\r\nserver_platform=Linux\r\n\
          server_welcomemessage=Welcome\r\nserver_webpost_linkurl=\r\nserver_webpost_posturl=\r\n\
          server_password=1\r\nserver_clan_server=0\r\nserver_udpport=8767\r\n\
          server_maxusers=50\r\nserver_allow_codec_celp51=1\r\nserver_uptime=3600\r\n\
          server_currentusers=2\r\nserver_currentchannels=4\r\n",
    );
    let info = decode_info(&si);
    assert_eq!(field(&info, "server_name"), Some("Clan Room = EU"));
    assert_eq!(field(&info, "server_webpost_linkurl"), Some(""));
    let pl = lines(
        b"p_id\tc_id\tps\tbs\tpr\tbr\tpl\tping\tlogintime\tidletime\tcprivs\tpprivs\tpflags\tip\tnick\tloginname\r\n\
          3\t1\t10\t900\t12\t1000\t0\t35\t120\t4\t0\t0\t0\t\"0.0.0.0\"\t\"Alice A\"\t\"\"\r\n\
          7\t2\t0\t0\t0\t0\t0\t80\t9\t0\t0\t0\t0\t\"0.0.0.0\"\t\"bob\"\t\"bobby\"\r\n",
    );
    let players = decode_players(&pl);
    assert_eq!(players.len(), 2);
    assert_eq!(players[0].name, "Alice A");
    assert_eq!(players[0].id.as_deref(), Some("3"));
    assert_eq!(players[0].ping, Some(35));
    assert_eq!(players[0].duration, Some(120.0));
    assert_eq!(players[1].name, "bob");
    let s = to_status(&info, Some(players), Duration::from_millis(3), true);
    assert_eq!((s.online, s.max), (2, 50));
    assert_eq!(s.name, "Clan Room = EU");
    assert_eq!(s.password, Some(true));
    assert_eq!(s.extras["platform"], json!("Linux"));
    assert_eq!(s.extras["voice_port"], json!(8767));
    assert_eq!(s.extras["uptime_seconds"], json!(3600));
    assert_eq!(s.extras["channels"], json!(4));
}

/// `OK` and `ERROR, ...` end a reply; anything else is data.
#[test]
fn ends() {
    assert_eq!(decode_end(b"OK"), Some(End::Ok));
    assert_eq!(
        decode_end(b"ERROR, invalid id"),
        Some(End::Error("invalid id".into()))
    );
    assert_eq!(decode_end(b"OKAY"), None);
    assert_eq!(decode_end(b"server_name=OK"), None);
}

/// The simulator's encoders round-trip through the decoders.
#[test]
fn round_trip() {
    let mut out = Vec::new();
    encode_player_header(&mut out);
    encode_player(5, 42, 600, "Carol", &mut out);
    let players = decode_players(&lines(&out));
    assert_eq!(players[0].name, "Carol");
    assert_eq!(
        (players[0].ping, players[0].duration),
        (Some(42), Some(600.0))
    );
    let mut out = Vec::new();
    encode_info(&[("server_name".into(), "x".into())], &mut out);
    assert_eq!(out, b"server_name=x\r\nOK\r\n");
    let mut out = Vec::new();
    encode_command("sel", Some("8767"), &mut out);
    assert_eq!(out, b"sel 8767\n");
}

/// Counts that do not parse are 0; a header without `nick` gives nameless players; a row
/// shorter than the header leaves the missing cells out.
#[test]
fn odd_replies() {
    let info = decode_info(&lines(
        b"server_currentusers=-3\nserver_maxusers=99999999999\n",
    ));
    let s = to_status(&info, None, Duration::ZERO, false);
    assert_eq!((s.online, s.max), (0, u32::MAX));
    let p = decode_players(&lines(b"p_id\tping\n1\n"));
    assert_eq!(p[0].name, "");
    assert_eq!(p[0].ping, None);
    assert!(decode_players(&[]).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn noise(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let l = lines(&bytes);
        let info = decode_info(&l);
        let players = decode_players(&l);
        prop_assert!(players.len() <= l.len());
        let _ = to_status(&info, Some(players), Duration::ZERO, true);
        let _ = decode_end(&bytes);
    }
}

mod dialogue {
    //! The exchange on a virtual clock (`protocol::exchange::replay`): whole answers, answers
    //! one byte per read, the line cap, an `ERROR` to `sel` and to `pl`.

    use std::time::{Duration, Instant};

    use crate::protocol::exchange::replay::replay;
    use crate::protocol::exchange::{Error, Params};
    use crate::protocol::teamspeak2::exchange::Ts2;
    use crate::status::{Reason, Status};

    const SI: &[u8] = b"server_name=Room\r\nserver_maxusers=8\r\nserver_currentusers=1\r\nOK\r\n";
    const PL: &[u8] = b"p_id\tping\tlogintime\tnick\r\n4\t33\t70\t\"carol\"\r\nOK\r\n";

    /// Each chunk arrives as one read, or (`bytewise`) one byte per read.
    fn run(chunks: &[&[u8]], players: bool, bytewise: bool) -> (Result<Status, Error>, usize) {
        let mut script = Vec::new();
        for c in chunks {
            let pieces: Vec<&[u8]> = if bytewise {
                c.chunks(1).collect()
            } else {
                c.chunks(255).collect()
            };
            for p in pieces {
                script.push(1);
                script.push(p.len() as u8);
                script.extend_from_slice(p);
            }
        }
        let start = Instant::now();
        let deadline = start + Duration::from_secs(5);
        let params = Params {
            players,
            ..Params::default()
        };
        let mut x = Ts2::new(params, 8767, deadline);
        let r = replay(&mut x, start, deadline, &script);
        (r.result.unwrap(), r.sent)
    }

    #[test]
    fn whole_and_bytewise() {
        for bytewise in [false, true] {
            let (s, sent) = run(&[b"[TS]\r\n", b"OK\r\n", SI, PL], true, bytewise);
            let s = s.unwrap();
            assert_eq!((s.online, s.max, s.name.as_str()), (1, 8, "Room"));
            let p = &s.players.unwrap()[0];
            assert_eq!(
                (p.name.as_str(), p.ping, p.duration),
                ("carol", Some(33), Some(70.0))
            );
            assert_eq!(sent, 3, "sel, si, pl");
        }
        let (s, sent) = run(&[b"[TS]\r\n", b"OK\r\n", SI], false, false);
        assert_eq!(s.unwrap().players, None);
        assert_eq!(sent, 2, "no pl without players");
    }

    #[test]
    fn errors() {
        let (r, _) = run(&[b"[TS]\r\n", b"ERROR, invalid id\r\n"], false, false);
        assert_eq!(r.unwrap_err().reason(), Reason::Malformed);
        let (r, _) = run(&[b"SSH-2.0-x\r\n"], false, false);
        assert_eq!(r.unwrap_err().reason(), Reason::Malformed);
        let (r, _) = run(&[b"[TS]\r\n", b"OK\r\n", SI, b"ERROR, no\r\n"], true, false);
        let s = r.unwrap();
        assert_eq!(s.players, None);
        assert!(s.extras.contains_key("players_error"));
        // 1025 data lines: past the line cap before any OK.
        let many = b"k=v\r\n".repeat(super::MAX_LINES + 1);
        let (r, _) = run(&[b"[TS]\r\n", b"OK\r\n", &many], false, false);
        assert_eq!(r.unwrap_err().reason(), Reason::TooLarge);
        // A reply whose OK never comes: the deadline.
        let (r, _) = run(
            &[b"[TS]\r\n", b"OK\r\n", b"server_name=x\r\n"],
            false,
            false,
        );
        assert_eq!(r.unwrap_err().reason(), Reason::Timeout);
    }
}
