use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::*;
use crate::state::TargetMeta;
use crate::status::{Failure, Status};
use crate::target::{Address, Protocol, Target};

fn entry(result: Result<Status, Failure>) -> Entry {
    let target = Target::new(
        "t",
        Protocol::A2s,
        Address::parse("127.0.0.1:27015").unwrap(),
    );
    let mut e = Entry::new(Arc::new(TargetMeta::new(target)));
    e.record(result, Duration::from_micros(1500), SystemTime::now());
    e
}

fn peer() -> SocketAddr {
    "127.0.0.1:27015".parse().unwrap()
}

/// The section between the "Transcript" heading and the outcome.
fn events(text: &str) -> &str {
    let start = text.find("Transcript (times").unwrap();
    let start = start + text[start..].find('\n').unwrap() + 1;
    let end = text.find("\nOutcome:").unwrap();
    &text[start..end]
}

/// A challenged A2S poll: every event with its time, requests and replies dumped with
/// offsets, the challenge round counted, then the outcome and the series as given.
#[test]
fn a2s_poll_transcript() {
    let t0 = Instant::now();
    let ms = |n: u64| t0 + Duration::from_millis(n);
    let mut t = Transcript::new(t0);
    let info = b"\xff\xff\xff\xffTSource Engine Query\0";
    let mut challenged = info.to_vec();
    challenged.extend_from_slice(&[0x0a, 0x0b, 0x0c, 0x0d]);
    t.event(
        ms(1),
        Event::Peer {
            addr: peer(),
            datagrams: true,
        },
    );
    t.event(
        ms(2),
        Event::Sent {
            bytes: info,
            what: "A2S_INFO",
        },
    );
    t.event(ms(600), Event::Resent { bytes: info });
    t.event(
        ms(601),
        Event::Received {
            bytes: &[0xff, 0xff, 0xff, 0xff, 0x41, 0x0a, 0x0b, 0x0c, 0x0d],
        },
    );
    t.event(
        ms(602),
        Event::Sent {
            bytes: &challenged,
            what: "A2S_INFO with the new challenge",
        },
    );
    let status = Status {
        online: 3,
        max: 16,
        name: "x\u{1b}[2J".into(),
        latency: Duration::from_micros(250),
        ..Status::default()
    };
    t.event(ms(603), Event::Finished(Ok(&status)));
    let text = t.finish(&entry(Ok(status.clone())), "gameserver_up 1\n");
    assert_eq!(
        events(&text),
        "\
[+    1.000 ms] peer 127.0.0.1:27015 (udp)
[+    2.000 ms] sent A2S_INFO: 25 bytes
                0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|
                0010  6e 65 20 51 75 65 72 79  00                       |ne Query.|
[+  600.000 ms] no answer yet: resent the same 25 bytes (resend 1)
[+  601.000 ms] received: 9 bytes
                0000  ff ff ff ff 41 0a 0b 0c  0d                       |....A....|
[+  602.000 ms] sent A2S_INFO with the new challenge (challenge round 1): 29 bytes
                0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|
                0010  6e 65 20 51 75 65 72 79  00 0a 0b 0c 0d           |ne Query.....|
[+  603.000 ms] finished: up
"
    );
    let outcome = &text[text.find("\nOutcome:").unwrap()..];
    assert_eq!(
        outcome,
        "\nOutcome:\n  up: 3 of 16 players online, latency 0.250 ms\n  name \"x\\u{1b}[2J\"\n  \
         took 1.500 ms; resends 1; challenge rounds 1; packets cut in this dump 0\n\n\
         Metrics that /probe returns without debug=true:\ngameserver_up 1\n"
    );
    assert!(text.starts_with("gameserver-exporter "));
    assert!(text.contains("  name      \"t\"\n  protocol  a2s\n  address   \"127.0.0.1:27015\"\n"));
}

/// A reply that fails to decode: the error with its offset, and that offset marked in the
/// last datagram's dump.
#[test]
fn decoder_error_with_offset() {
    let t0 = Instant::now();
    let mut t = Transcript::new(t0);
    t.event(
        t0,
        Event::Peer {
            addr: peer(),
            datagrams: true,
        },
    );
    let reply: Vec<u8> = (0u8..20).collect();
    t.event(t0, Event::Received { bytes: &reply });
    let err = Error::Garbage(DecodeError::Truncated {
        offset: 18,
        needed: 4,
        available: 2,
    });
    t.event(t0, Event::Finished(Err(&err)));
    let text = t.finish(&entry(Err(Failure::from(err.clone()))), "");
    let outcome = &text[text.find("\nOutcome:").unwrap()..];
    let want = "\nOutcome:
  down: reason malformed
  detail only undecodable replies before the deadline; last: truncated: 4 byte(s) needed at offset 18, 2 available
  decoder error: truncated: 4 byte(s) needed at offset 18, 2 available
  failed at byte offset 18 of the message the decoder read
  offset 18 in the last datagram received (if the reply was that one datagram):
    0010  10 11 12 13                                       |....|
                ^^
";
    assert!(outcome.starts_with(want), "{outcome}");
    assert!(events(&text).ends_with(
        "finished: malformed: only undecodable replies before the deadline; last: truncated: \
         4 byte(s) needed at offset 18, 2 available\n"
    ));

    // An offset at the very end of the datagram (it ended too early) is said in words.
    let mut t = Transcript::new(t0);
    t.event(
        t0,
        Event::Peer {
            addr: peer(),
            datagrams: true,
        },
    );
    t.event(t0, Event::Received { bytes: &reply[..5] });
    let err = Error::from(DecodeError::Unterminated { offset: 5 });
    t.event(t0, Event::Finished(Err(&err)));
    let text = t.finish(&entry(Err(Failure::from(err.clone()))), "");
    assert!(text.contains("  failed at byte offset 5 of the message the decoder read\n"));
    assert!(
        text.contains("holds 5 bytes: offset 5 is past its end)\n"),
        "{text}"
    );
}

/// A 64 KiB reply dumps its first DUMP_PER_PACKET bytes and says how much was left out; the
/// whole text stays small.
#[test]
fn large_reply_capped() {
    let t0 = Instant::now();
    let mut t = Transcript::new(t0);
    let reply = vec![0x41u8; 64 * 1024];
    t.event(t0, Event::Received { bytes: &reply });
    let text = t.finish(
        &entry(Err(Failure::new(crate::status::Reason::TooLarge, "x"))),
        "",
    );
    let ev = events(&text);
    assert_eq!(
        ev.lines()
            .filter(|l| l.contains("|AAAAAAAAAAAAAAAA|"))
            .count(),
        DUMP_PER_PACKET / PER_LINE
    );
    assert!(ev.contains("(64512 of 65536 bytes not shown: the limit of 1024 bytes per packet)\n"));
    assert!(text.contains("packets cut in this dump 1\n"));
    assert!(text.len() < 8 * 1024, "{}", text.len());
}

/// A flood: the dump stops at DUMP_TOTAL bytes, events at MAX_EVENTS, the end is still shown,
/// and the text stays bounded.
#[test]
fn flood_capped() {
    let t0 = Instant::now();
    let mut t = Transcript::new(t0);
    let junk = vec![0u8; 1500];
    for _ in 0..1000 {
        t.event(t0, Event::Received { bytes: &junk });
    }
    let err = Error::Garbage(DecodeError::Invalid("junk"));
    t.event(t0, Event::Finished(Err(&err)));
    let text = t.finish(&entry(Err(Failure::from(err.clone()))), "");
    let ev = events(&text);
    let dump_lines = ev
        .lines()
        .filter(|l| l.starts_with(INDENT) && l.ends_with('|'));
    assert_eq!(dump_lines.count(), DUMP_TOTAL / PER_LINE);
    assert!(ev.contains("not shown: the transcript's limit of 8192 dumped bytes)\n"));
    assert!(ev.contains("finished: malformed"));
    let shown = ev.lines().filter(|l| l.starts_with("[+")).count();
    assert_eq!(shown, MAX_EVENTS + 1);
    assert!(ev.ends_with(&format!(
        "({} more events not shown: the limit is {MAX_EVENTS})\n",
        1000 - MAX_EVENTS
    )));
    assert!(text.len() < 100 * 1024, "{}", text.len());
    // Past the total, packets are still listed, without dumps.
    assert!(ev.contains("received: 1500 bytes\n                (1500 of 1500 bytes not shown"));
}

/// Control characters, newlines and bidirectional overrides in anything written are escaped;
/// long notes are cut.
#[test]
fn hostile_text_escaped() {
    let t0 = Instant::now();
    let mut t = Transcript::new(t0);
    t.note(t0, "a\u{1b}[31mb\nc\u{202e}d\u{7f}\0");
    t.note(t0, &"x".repeat(MAX_NOTE_CHARS + 10));
    let text = t.finish(&entry(Ok(Status::default())), "up 1\nbad\u{1b}\n");
    assert!(
        text.contains("] a\\u{1b}[31mb\\u{a}c\\u{202e}d\\u{7f}\\u{0}\n"),
        "{text}"
    );
    assert!(text.contains(&format!("] {}...(cut)\n", "x".repeat(MAX_NOTE_CHARS))));
    assert!(text.ends_with("up 1\nbad\\u{1b}\n"));
    assert!(text.chars().all(|c| c == '\n' || !unsafe_char(c)));
}

/// `debug=true` asks for a transcript, `false` or nothing for the series, anything else is
/// refused.
#[test]
fn debug_parameter() {
    let q = |s: &str| crate::http::parse_query(s).unwrap();
    assert_eq!(requested(&q("target=a")), Ok(false));
    assert_eq!(requested(&q("target=a&debug=false")), Ok(false));
    assert_eq!(requested(&q("target=a&debug=true")), Ok(true));
    assert_eq!(
        requested(&q("target=a&debug=1")),
        Err(Refused::BadDebug("1".into()))
    );
}
