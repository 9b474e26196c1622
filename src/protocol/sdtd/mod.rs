//! 7 Days to Die's telnet console, the codec: the lines that matter in the dialogue, and the
//! `mem` line -> [`Health`]. Pure functions; the dialogue (password prompt, `mem`, `exit`)
//! is [`exchange`].
//!
//! The console is plain text over TCP (the game's `TelnetPort`, 8081 by default). With a
//! `TelnetPassword` set it first prints `Please enter password:`; a good password is
//! answered `Logon successful.` and a banner, a wrong one `Password incorrect, please enter
//! password:`. From then on the game's log streams to the connection, and a command's output
//! comes among those lines. `mem` prints one line of `Name: value` pairs, which the game
//! also logs now and then by itself:
//!
//! `Time: 1234.56m FPS: 35.12 Heap: 512.3MB Max: 1024.0MB Chunks: 123 CGO: 45 Ply: 3 Zom: 12
//! Ent: 20 (45) Items: 7 CO: 2 RSS: 1234.5MB`
//!
//! (as log output it carries the log's timestamp and `INF` before it). The pairs are read by
//! name, so fields added, dropped or moved by a game version read the same way; a value is
//! the first number after its name, with its unit (`m` minutes, `KB`/`MB`/`GB`).

pub mod exchange;

use crate::status::Health;

/// The console command printing the memory and world line.
pub const MEM: &str = "mem";
/// What ends the session cleanly.
pub const EXIT: &str = "exit";

/// What one line of the console means to the dialogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// The password prompt (first, or again after a wrong password: see
    /// [`Line::Incorrect`]).
    Prompt,
    /// `Password incorrect, please enter password:`.
    Incorrect,
    /// `Logon successful.`, or the banner of a console without a password.
    LoggedIn,
    Other,
}

/// Classifies a console line (or the unterminated prompt, which ends without a newline).
pub fn classify(line: &str) -> Line {
    let lower = line.trim().to_ascii_lowercase();
    if lower.contains("password incorrect") {
        Line::Incorrect
    } else if lower.ends_with("enter password:") {
        Line::Prompt
    } else if lower.starts_with("logon successful")
        || lower.starts_with("*** connected with 7dtd server")
        || lower.starts_with("press 'help' to get a list of all commands")
    {
        Line::LoggedIn
    } else {
        Line::Other
    }
}

/// The health in a `mem` line; `None` for any other line (it needs `FPS:` and `Heap:`).
pub fn parse_mem(line: &str) -> Option<Health> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let value = |name: &str| -> Option<(f64, &str)> {
        let at = words.iter().position(|w| *w == name)?;
        let word = words.get(at + 1)?;
        let end = word
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(word.len());
        let n: f64 = word[..end].parse().ok()?;
        n.is_finite().then_some((n, &word[end..]))
    };
    let bytes = |name: &str| {
        let (n, unit) = value(name)?;
        let scale = match unit {
            "B" | "" => 1.0,
            "KB" => 1024.0,
            "MB" => 1024.0 * 1024.0,
            "GB" => 1024.0 * 1024.0 * 1024.0,
            _ => return None,
        };
        Some(n * scale)
    };
    let plain = |name: &str| value(name).filter(|(_, u)| u.is_empty()).map(|(n, _)| n);
    value("FPS:")?;
    value("Heap:")?;
    let health = Health {
        frame_rate_hertz: plain("FPS:"),
        memory_heap_bytes: bytes("Heap:"),
        memory_heap_max_bytes: bytes("Max:"),
        memory_resident_bytes: bytes("RSS:"),
        chunks_loaded: plain("Chunks:"),
        zombies: plain("Zom:"),
        entities: plain("Ent:"),
        uptime_seconds: value("Time:")
            .filter(|(_, u)| *u == "m")
            .map(|(n, _)| n * 60.0),
        ..Health::default()
    };
    (!health.is_empty()).then_some(health)
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "Time: 1234.56m FPS: 35.12 Heap: 512.3MB Max: 1024.0MB Chunks: 123 \
                        CGO: 45 Ply: 3 Zom: 12 Ent: 20 (45) Items: 7 CO: 2 RSS: 1234.5MB";
    const MB: f64 = 1024.0 * 1024.0;

    #[test]
    fn mem_line() {
        let h = parse_mem(LINE).unwrap();
        assert_eq!(h.frame_rate_hertz, Some(35.12));
        assert_eq!(h.memory_heap_bytes, Some(512.3 * MB));
        assert_eq!(h.memory_heap_max_bytes, Some(1024.0 * MB));
        assert_eq!(h.memory_resident_bytes, Some(1234.5 * MB));
        assert_eq!(h.chunks_loaded, Some(123.0));
        assert_eq!(h.zombies, Some(12.0));
        assert_eq!(h.entities, Some(20.0));
        assert_eq!(h.uptime_seconds, Some(1234.56 * 60.0));
        assert_eq!(h.tick_rate_hertz, None);
        // As a log line, and with fields moved and missing.
        let logged = format!("2026-11-29T10:00:00 74074.123 INF {LINE}");
        assert_eq!(parse_mem(&logged), Some(h));
        let short = parse_mem("Heap: 1GB FPS: 20 Zom: x").unwrap();
        assert_eq!(short.memory_heap_bytes, Some(1024.0 * MB));
        assert_eq!((short.frame_rate_hertz, short.zombies), (Some(20.0), None));
    }

    #[test]
    fn other_lines() {
        assert_eq!(parse_mem("Logon successful."), None);
        assert_eq!(parse_mem("FPS: 30"), None);
        assert_eq!(parse_mem("Heap: 5MB"), None);
        assert_eq!(parse_mem("FPS: Heap: 5MB"), None);
        assert_eq!(parse_mem("FPS: -3 Heap: 5TB"), None);
        assert_eq!(classify("Please enter password:"), Line::Prompt);
        assert_eq!(
            classify("Password incorrect, please enter password:"),
            Line::Incorrect
        );
        assert_eq!(classify("Logon successful."), Line::LoggedIn);
        assert_eq!(classify("*** Connected with 7DTD server."), Line::LoggedIn);
        assert_eq!(classify(LINE), Line::Other);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,200}") {
            let _ = classify(&s);
            if let Some(h) = parse_mem(&s) {
                for v in [h.frame_rate_hertz, h.memory_heap_bytes, h.entities, h.uptime_seconds].into_iter().flatten() {
                    proptest::prop_assert!(v.is_finite() && v >= 0.0);
                }
            }
            let _ = parse_mem(&format!("FPS: 1 Heap: {s}"));
        }
    }
}
