//! `/probe?...&debug=true`: the poll's transcript instead of its series, for bug reports
//! (blackbox_exporter's `debug=true` does the same for its probers).
//!
//! A [`Transcript`] is the poll's [`Observer`]: it writes each event as it happens, with its
//! time from the start of the probe, each datagram or stream chunk as a hex dump
//! ([`super::hexdump`]). [`Transcript::finish`] adds the target, the outcome (with the
//! decoder's error and the byte offset where it failed) and the series `/probe` would have
//! returned.
//!
//! Everything in the text is safe to paste anywhere: bytes from the network appear only as hex
//! and dotted ASCII, strings only escaped (no control or bidirectional-override characters),
//! and the text is bounded whatever the server sends: [`DUMP_PER_PACKET`] and [`DUMP_TOTAL`]
//! bytes dumped, [`MAX_EVENTS`] events written, [`super::text::MAX_NOTE_CHARS`] per note; each cut says so.
//!
//! # Format
//! ```text
//! gameserver-exporter 0.1.0 /probe debug transcript
//! ...
//! Transcript (times from the start of the probe):
//! [+    0.041 ms] peer 127.0.0.1:27015 (udp)
//! [+    0.102 ms] sent A2S_INFO: 25 bytes
//!                 0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|
//!                 0010  6e 65 20 51 75 65 72 79  00                       |ne Query.|
//! ...
//! ```

use std::fmt::Write;

use tokio::time::Instant;

use super::hexdump::{self, PER_LINE};
use super::scrub::Scrub;
use super::text::{safe_block, safe_line};
use super::Refused;
use crate::daemon::Daemon;
use crate::query::driver::Event;
use crate::query::{Error, Observer};
use crate::state::{Entry, Outcome};
use crate::target::Credentials;

/// Bytes of one datagram or chunk shown; a status reply is a few hundred bytes, and the start
/// of a larger one is where decoders usually fail.
pub const DUMP_PER_PACKET: usize = 1024;
/// Bytes shown over the whole transcript: a junk flood of 200 datagrams still yields a text
/// that fits in a bug report.
pub const DUMP_TOTAL: usize = 8 * 1024;
/// Events written; later ones are counted, not shown (the poll's end always is).
pub const MAX_EVENTS: usize = 256;

/// Where dump lines start, under the text after the time column.
const INDENT: &str = "                ";

/// Whether `q` asks for a transcript: `debug=true`. Absent or `debug=false` is the ordinary
/// probe; anything else is refused rather than guessed.
pub fn requested(q: &[(String, String)]) -> Result<bool, Refused> {
    match super::get(q, "debug") {
        None | Some("false") => Ok(false),
        Some("true") => Ok(true),
        Some(other) => Err(Refused::BadDebug(other.to_string())),
    }
}

/// Runs the probe `q` asks for with a transcript. Refusals are those of [`super::probe`],
/// before any traffic. The caller renders the entry's series (HTTP owns rendering) and hands
/// them to [`Transcript::finish`] for the whole `text/plain` answer.
pub async fn run(daemon: &Daemon, q: &[(String, String)]) -> Result<(Transcript, Entry), Refused> {
    let mut transcript = Transcript::new(Instant::now());
    let entry = super::probe_with(daemon, q, Some(&mut transcript)).await?;
    Ok((transcript, entry))
}

/// The events of one probe, written as they come.
#[derive(Debug)]
pub struct Transcript {
    start: Instant,
    text: String,
    events: usize,
    /// Events past [`MAX_EVENTS`], not written.
    unwritten: usize,
    dumped: usize,
    /// Datagrams or chunks whose dump was cut or left out.
    cut: usize,
    resends: u32,
    challenge_rounds: u32,
    datagrams: bool,
    /// The start of the last datagram or chunk received, to point at a decoder's offset.
    last_received: Vec<u8>,
    /// The poll's error, structured, as the driver reported it.
    error: Option<Error>,
    /// The target's secrets, masked out of everything received and every line.
    scrub: Scrub,
}

impl Transcript {
    /// An empty transcript whose times count from `start`.
    pub fn new(start: Instant) -> Transcript {
        Transcript {
            start,
            text: String::with_capacity(2048),
            events: 0,
            unwritten: 0,
            dumped: 0,
            cut: 0,
            resends: 0,
            challenge_rounds: 0,
            datagrams: false,
            last_received: Vec::new(),
            error: None,
            scrub: Scrub::default(),
        }
    }

    /// Writes a line of the probe's own (resolution, allow-list): escaped and capped.
    pub fn note(&mut self, at: Instant, what: &str) {
        self.line(at, &safe_line(what), false);
    }

    /// Writes one event line; past [`MAX_EVENTS`] only counts it, unless it must be shown.
    /// Returns whether it was written.
    fn line(&mut self, at: Instant, text: &str, always: bool) -> bool {
        if self.events >= MAX_EVENTS && !always {
            self.unwritten += 1;
            return false;
        }
        self.events += 1;
        let ms = at.saturating_duration_since(self.start).as_secs_f64() * 1e3;
        let text = self.scrub.text(text);
        let _ = writeln!(self.text, "[+{ms:>9.3} ms] {text}");
        true
    }

    /// Writes a datagram or chunk: its line, then as much of its dump as the caps allow.
    fn packet(&mut self, at: Instant, head: &str, bytes: &[u8]) {
        if !self.line(at, &format!("{head}: {} bytes", bytes.len()), false) {
            return;
        }
        let room = DUMP_TOTAL.saturating_sub(self.dumped);
        let shown = bytes.len().min(DUMP_PER_PACKET).min(room);
        hexdump::dump(&mut self.text, bytes, shown, INDENT);
        self.dumped += shown;
        if shown < bytes.len() {
            self.cut += 1;
            let why = if shown == room {
                format!("the transcript's limit of {DUMP_TOTAL} dumped bytes")
            } else {
                format!("the limit of {DUMP_PER_PACKET} bytes per packet")
            };
            let _ = writeln!(
                self.text,
                "{INDENT}({} of {} bytes not shown: {why})",
                bytes.len() - shown,
                bytes.len()
            );
        }
    }

    /// The whole text: the target, the transcript so far, the outcome and `series`.
    pub fn finish(self, entry: &Entry, series: &str) -> String {
        let t = &entry.meta.target;
        let mut out = String::with_capacity(self.text.len() + series.len() + 1024);
        let _ = writeln!(
            out,
            "gameserver-exporter {} /probe debug transcript\n\
             Paste all of it into bug reports: the bytes exchanged are in hex; check the target\n\
             and address below before sharing them.\n",
            env!("CARGO_PKG_VERSION")
        );
        let _ = writeln!(out, "Target:");
        let _ = writeln!(out, "  name      {}", safe_line(&format!("{:?}", t.name)));
        let _ = writeln!(out, "  protocol  {}", t.protocol.as_str());
        if let Some(game) = t.game {
            let _ = writeln!(out, "  game      {}", safe_line(game));
        }
        let _ = writeln!(
            out,
            "  address   {}",
            safe_line(&format!("{:?}", t.address.to_string()))
        );
        if let Some(v) = t.proxy_protocol {
            let _ = writeln!(out, "  proxy     PROXY protocol {v} header first");
        }
        let _ = writeln!(out, "  timeout   {:?}", t.timeout);
        let l = t.limits;
        let _ = writeln!(
            out,
            "  limits    max_reply_bytes={} max_split_packets={} max_challenges={}",
            l.max_reply_bytes, l.max_split_packets, l.max_challenges
        );
        let _ = writeln!(out, "\nTranscript (times from the start of the probe):");
        out.push_str(&self.text);
        if self.events == 0 {
            out.push_str("(no events)\n");
        }
        if self.unwritten > 0 {
            let _ = writeln!(
                out,
                "({} more events not shown: the limit is {MAX_EVENTS})",
                self.unwritten
            );
        }
        let _ = writeln!(out, "\nOutcome:");
        self.outcome(&mut out, entry);
        let _ = writeln!(out, "\nMetrics that /probe returns without debug=true:");
        out.push_str(&safe_block(series));
        // Server text reaches the outcome and the series too (a name that echoes a secret).
        match self.scrub.text(&out) {
            std::borrow::Cow::Owned(scrubbed) => scrubbed,
            std::borrow::Cow::Borrowed(_) => out,
        }
    }

    fn outcome(&self, out: &mut String, entry: &Entry) {
        match &entry.last {
            Some(Outcome::Up(s)) => {
                let _ = writeln!(
                    out,
                    "  up: {} of {} players online, latency {:.3} ms",
                    s.online,
                    s.max,
                    s.latency().as_secs_f64() * 1e3
                );
                let _ = writeln!(out, "  name {}", safe_line(&format!("{:?}", s.name())));
            }
            Some(Outcome::Down(f)) => {
                let _ = writeln!(out, "  down: reason {}", f.reason);
                let _ = writeln!(out, "  detail {}", safe_line(&f.detail));
            }
            None => {
                let _ = writeln!(out, "  no result");
            }
        }
        let decoded = self.error.as_ref().and_then(|e| match e {
            Error::Garbage(d) => Some(d),
            e => e.decode(),
        });
        if let Some(d) = decoded {
            let _ = writeln!(out, "  decoder error: {}", safe_line(&d.to_string()));
            if let Some(offset) = d.offset() {
                self.point_at(out, offset);
            }
        }
        let _ = writeln!(
            out,
            "  took {:.3} ms; resends {}; challenge rounds {}; packets cut in this dump {}",
            entry.last_duration().as_secs_f64() * 1e3,
            self.resends,
            self.challenge_rounds,
            self.cut
        );
    }

    /// Shows the decoder's offset, and where it falls in the last datagram received (what an
    /// A2S or SA:MP decoder reads when the reply was one datagram).
    fn point_at(&self, out: &mut String, offset: usize) {
        let _ = writeln!(
            out,
            "  failed at byte offset {offset} of the message the decoder read"
        );
        if !self.datagrams || self.last_received.is_empty() {
            return;
        }
        let last = &self.last_received;
        if offset >= last.len() {
            let _ = writeln!(
                out,
                "  (the last datagram received, as dumped, holds {} bytes: offset {offset} is past its end)",
                last.len()
            );
            return;
        }
        let row = offset - offset % PER_LINE;
        let _ = writeln!(
            out,
            "  offset {offset} in the last datagram received (if the reply was that one datagram):"
        );
        let mut dumped = String::new();
        hexdump::dump(&mut dumped, &last[row..], PER_LINE, "");
        // The dump line counts from 0; give it its real offset.
        let _ = write!(out, "    {row:04x}{}", dumped.get(4..).unwrap_or(""));
        let col = offset % PER_LINE;
        let at = 6 + col * 3 + usize::from(col >= PER_LINE / 2);
        let _ = writeln!(out, "    {}^^", " ".repeat(at));
    }
}

impl Observer for Transcript {
    fn credentials(&mut self, credentials: &Credentials) {
        self.scrub = Scrub::new(credentials);
    }

    fn event(&mut self, at: Instant, event: Event<'_>) {
        match event {
            Event::Peer { addr, datagrams } => {
                self.datagrams = datagrams;
                let link = if datagrams { "udp" } else { "tcp" };
                self.line(at, &format!("peer {addr} ({link})"), false);
            }
            Event::Connected => {
                self.line(at, "connected", false);
            }
            Event::Sent { bytes, what } => {
                let mut head = format!("sent {}", safe_line(what));
                if what.contains("challenge") {
                    self.challenge_rounds += 1;
                    let _ = write!(head, " (challenge round {})", self.challenge_rounds);
                }
                self.packet(at, &head, bytes);
            }
            Event::SentSecret { len, what } => {
                let text = format!("sent {}: <redacted {len} bytes>", safe_line(what));
                self.line(at, &text, false);
            }
            Event::Resent { bytes } => {
                self.resends += 1;
                let text = format!(
                    "no answer yet: resent the same {} bytes (resend {})",
                    bytes.len(),
                    self.resends
                );
                self.line(at, &text, false);
            }
            Event::Received { bytes } => {
                // A server may echo what it was sent: masked before anything is kept.
                let masked = self.scrub.bytes(bytes);
                let bytes: &[u8] = &masked;
                self.last_received.clear();
                let keep = bytes.len().min(DUMP_PER_PACKET);
                self.last_received.extend_from_slice(&bytes[..keep]);
                self.packet(at, "received", bytes);
            }
            Event::Closed => {
                self.line(at, "the server closed the connection", false);
            }
            Event::TimedOut => {
                self.line(at, "the wait ended with nothing received", false);
            }
            Event::TransportError(e) => {
                self.line(
                    at,
                    &format!("network error: {}", safe_line(&e.to_string())),
                    false,
                );
            }
            Event::Finished(Ok(_)) => {
                self.line(at, "finished: up", true);
            }
            Event::Finished(Err(e)) => {
                let text = format!("finished: {}: {}", e.reason(), safe_line(&e.to_string()));
                self.line(at, &text, true);
                self.error = Some(e.clone());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::net::SocketAddr;
    use std::sync::Arc;
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::http::probe::text::{unsafe_char, MAX_NOTE_CHARS};
    use crate::protocol::DecodeError;
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
        assert!(
            text.contains("  name      \"t\"\n  protocol  a2s\n  address   \"127.0.0.1:27015\"\n")
        ); // Limits as the config writes them, not a Rust dump.
        assert!(text.contains(
            "  limits    max_reply_bytes=1048576 max_split_packets=32 max_challenges=3\n"
        ));
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
        assert!(
            ev.contains("(64512 of 65536 bytes not shown: the limit of 1024 bytes per packet)\n")
        );
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
        let q = |s: &str| -> Vec<(String, String)> {
            s.split('&')
                .filter_map(|kv| kv.split_once('='))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        assert_eq!(requested(&q("target=a")), Ok(false));
        assert_eq!(requested(&q("target=a&debug=false")), Ok(false));
        assert_eq!(requested(&q("target=a&debug=true")), Ok(true));
        assert_eq!(
            requested(&q("target=a&debug=1")),
            Err(Refused::BadDebug("1".into()))
        );
    }
}
