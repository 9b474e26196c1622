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
//! bytes dumped, [`MAX_EVENTS`] events written, [`MAX_NOTE_CHARS`] per note; each cut says so.
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
use super::Refused;
use crate::handles::Daemon;
use crate::metrics::{self, Format};
use crate::protocol::DecodeError;
use crate::query::driver::Event;
use crate::query::{Error, Observer};
use crate::state::{Entry, Outcome};

/// Bytes of one datagram or chunk shown; a status reply is a few hundred bytes, and the start
/// of a larger one is where decoders usually fail.
pub const DUMP_PER_PACKET: usize = 1024;
/// Bytes shown over the whole transcript: a junk flood of 200 datagrams still yields a text
/// that fits in a bug report.
pub const DUMP_TOTAL: usize = 8 * 1024;
/// Events written; later ones are counted, not shown (the poll's end always is).
pub const MAX_EVENTS: usize = 256;
/// Characters of one note (an error text, a label) kept.
pub const MAX_NOTE_CHARS: usize = 400;

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

/// Runs the probe `q` asks for with a transcript: the whole `text/plain` answer. Refusals are
/// those of [`super::probe`], before any traffic.
pub async fn run(daemon: &Daemon, q: &[(String, String)]) -> Result<String, Refused> {
    let mut transcript = Transcript::new(Instant::now());
    let entry = super::probe_with(daemon, q, Some(&mut transcript)).await?;
    let series = metrics::render_probe(Format::Text, &entry);
    Ok(transcript.finish(&entry, &series))
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
        let _ = writeln!(out, "  timeout   {:?}", t.timeout);
        let _ = writeln!(out, "  limits    {}", safe_line(&format!("{:?}", t.limits)));
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
        out
    }

    fn outcome(&self, out: &mut String, entry: &Entry) {
        match &entry.last {
            Some(Outcome::Up(s)) => {
                let _ = writeln!(
                    out,
                    "  up: {} of {} players online, latency {:.3} ms",
                    s.online,
                    s.max,
                    s.latency.as_secs_f64() * 1e3
                );
                let _ = writeln!(out, "  name {}", safe_line(&format!("{:?}", s.name)));
            }
            Some(Outcome::Down(f)) => {
                let _ = writeln!(out, "  down: reason {}", f.reason);
                let _ = writeln!(out, "  detail {}", safe_line(&f.detail));
            }
            None => {
                let _ = writeln!(out, "  no result");
            }
        }
        if let Some(d) = self.error.as_ref().and_then(decode_error) {
            let _ = writeln!(out, "  decoder error: {}", safe_line(&d.to_string()));
            if let Some(offset) = offset(d) {
                self.point_at(out, offset);
            }
        }
        let _ = writeln!(
            out,
            "  took {:.3} ms; resends {}; challenge rounds {}; packets cut in this dump {}",
            entry.last_duration.as_secs_f64() * 1e3,
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

/// The decode error inside a poll's error, if bytes were what failed.
fn decode_error(e: &Error) -> Option<&DecodeError> {
    match e {
        Error::Garbage(d) => Some(d),
        e => e.decode(),
    }
}

/// The byte offset a decode error names, where it names one.
fn offset(d: &DecodeError) -> Option<usize> {
    match d {
        DecodeError::Truncated { offset, .. } | DecodeError::Unterminated { offset } => {
            Some(*offset)
        }
        _ => None,
    }
}

/// Characters that must not reach a terminal or a bug tracker raw: control characters and the
/// bidirectional overrides that make text read differently from what it holds.
fn unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// One line of text, unsafe characters (newlines included) escaped, at most
/// [`MAX_NOTE_CHARS`] characters kept.
pub fn safe_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len().min(MAX_NOTE_CHARS));
    for (i, c) in s.chars().enumerate() {
        if i == MAX_NOTE_CHARS {
            out.push_str("...(cut)");
            break;
        }
        if unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

/// A block of lines: newlines kept, every other unsafe character escaped. The exposition is
/// already free of them (server strings are cleaned when encoded); this keeps it so.
fn safe_block(s: &str) -> String {
    if !s.chars().any(|c| c != '\n' && unsafe_char(c)) {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c != '\n' && unsafe_char(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
