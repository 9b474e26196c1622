//! Server health from a Source dedicated server's console over RCON: `stats`, text ->
//! [`Health`]. Pure functions, and the one command a health poll runs ([`Script`]), which
//! the registry asks after a successful A2S poll on targets with `rcon` set
//! (docs/protocols/a2s.md, "Server health over RCON").
//!
//! `stats` prints a header line and a line of numbers under it, in two layouts:
//! - Orange Box engines (TF2, CS:S, DoD:S, HL2DM, Garry's Mod, L4D2):
//!   `CPU   In (KB/s)  Out (KB/s)  Uptime  Map changes  FPS      Players  Connects`
//!   (TF2 since 2017 writes `In_(KB/s)`, `Out_(KB/s)`, `Map_changes`);
//! - CS:GO: `  CPU   NetIn   NetOut    Uptime  Maps   FPS   Players  Svms    +-ms   ~tick`.
//!
//! The columns are found by name, so either layout (and columns we do not read) parse the
//! same way. Units as the engine prints them: CPU in percent, traffic in KiB/s (the engine
//! divides bytes by 1024), uptime in whole minutes, FPS the server's frame rate, which is
//! not its tick rate (the engine runs frames up to `fps_max` and simulates ticks at the
//! tick rate within them), so it is published as the frame rate, not a tick family.

use std::time::Duration;

use crate::protocol::exchange::Error;
use crate::protocol::rcon::exchange::Script as RconScript;
use crate::protocol::DecodeError;
use crate::status::{Health, Status};

/// The console command printing the server's performance line.
pub const STATS: &str = "stats";

/// Multi-word column names, as one word each (the Orange Box header has spaces in them).
const JOINED: [(&str, &str); 6] = [
    ("In (KB/s)", "In"),
    ("Out (KB/s)", "Out"),
    ("In_(KB/s)", "In"),
    ("Out_(KB/s)", "Out"),
    ("Map changes", "Maps"),
    ("Map_changes", "Maps"),
];

/// One health poll: `stats`, once.
#[derive(Debug, Clone, Copy, Default)]
pub struct Script;

impl RconScript for Script {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        replies.is_empty().then(|| STATS.to_string())
    }

    /// The health alone in a [`Status`] (the A2S poll gives the rest); an error when the
    /// reply holds no `stats` table (a console without the command, e.g. CS2's).
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        let health = replies
            .first()
            .and_then(|r| parse_stats(r))
            .ok_or(DecodeError::Invalid(
                "Source health: no `stats` table in the reply",
            ))?;
        Ok(Status {
            latency,
            health: Some(Box::new(health)),
            ..Status::default()
        })
    }
}

/// `stats`' table: the header line naming `CPU` and `FPS`, and the first line after it
/// with as many numbers. `None` when there is no such pair or it reports nothing we read.
pub fn parse_stats(text: &str) -> Option<Health> {
    let mut lines = text.lines();
    let names = loop {
        let line = lines.next()?;
        let mut line = line.to_string();
        for (from, to) in JOINED {
            line = line.replace(from, to);
        }
        let names: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if names.iter().any(|n| n == "CPU") && names.iter().any(|n| n == "FPS") {
            break names;
        }
    };
    let values = lines.find_map(|line| {
        let values: Option<Vec<f64>> = line
            .split_whitespace()
            .map(|v| v.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0))
            .collect();
        values.filter(|v| v.len() == names.len())
    })?;
    let column = |name: &str| {
        names
            .iter()
            .position(|n| n == name)
            .and_then(|i| values.get(i).copied())
    };
    let kib = |name| column(name).map(|v| v * 1024.0);
    let health = Health {
        frame_rate_hertz: column("FPS"),
        cpu_usage_ratio: column("CPU").map(|p| p / 100.0),
        network_receive_bytes_per_second: kib("In").or_else(|| kib("NetIn")),
        network_transmit_bytes_per_second: kib("Out").or_else(|| kib("NetOut")),
        uptime_seconds: column("Uptime").map(|m| m * 60.0),
        ..Health::default()
    };
    (!health.is_empty()).then_some(health)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Orange Box (CS:S, Garry's Mod, L4D2), as RCON returns it.
    #[test]
    fn orange_box_stats() {
        let text = "CPU   In (KB/s)  Out (KB/s)  Uptime  Map changes  FPS      Players  Connects\n\
                    12.50 3.25       16.50       95      2            66.67    14       31\n";
        let h = parse_stats(text).unwrap();
        assert_eq!(h.cpu_usage_ratio, Some(0.125));
        assert_eq!(h.network_receive_bytes_per_second, Some(3.25 * 1024.0));
        assert_eq!(h.network_transmit_bytes_per_second, Some(16.5 * 1024.0));
        assert_eq!(h.uptime_seconds, Some(95.0 * 60.0));
        assert_eq!(h.frame_rate_hertz, Some(66.67));
        assert_eq!(h.tick_rate_hertz, None);
    }

    /// TF2's underscored header.
    #[test]
    fn tf2_stats() {
        let text =
            "CPU    In_(KB/s)  Out_(KB/s)  Uptime  Map_changes  FPS      Players  Connects\n\
                    24.46  31.19      163.22      71      4            66.67    24       88\n";
        let h = parse_stats(text).unwrap();
        assert_eq!(h.network_transmit_bytes_per_second, Some(163.22 * 1024.0));
        assert_eq!(h.uptime_seconds, Some(71.0 * 60.0));
        assert_eq!(h.frame_rate_hertz, Some(66.67));
    }

    /// CS:GO's layout, leading spaces and extra columns.
    #[test]
    fn csgo_stats() {
        let text =
            "  CPU   NetIn   NetOut    Uptime  Maps   FPS   Players  Svms    +-ms   ~tick\n  \
                    10.0      1.5      2.0       5     0  128.00       0    0.63    0.08    0.03\n";
        let h = parse_stats(text).unwrap();
        assert_eq!(h.cpu_usage_ratio, Some(0.1));
        assert_eq!(h.network_receive_bytes_per_second, Some(1536.0));
        assert_eq!(h.network_transmit_bytes_per_second, Some(2048.0));
        assert_eq!(h.uptime_seconds, Some(300.0));
        assert_eq!(h.frame_rate_hertz, Some(128.0));
    }

    /// No table (CS2's `Unknown command`), a header without its numbers, a short line, a
    /// negative or non-finite number: nothing.
    #[test]
    fn no_table_is_none() {
        assert_eq!(parse_stats("Unknown command \"stats\"\n"), None);
        assert_eq!(parse_stats("CPU In Out Uptime FPS\n"), None);
        assert_eq!(parse_stats("CPU In Out Uptime FPS\n1 2 3\n"), None);
        assert_eq!(parse_stats("CPU FPS\n-1 2\n"), None);
        assert_eq!(parse_stats("CPU FPS\nNaN 2\n"), None);
        let mut s = Script;
        assert_eq!(s.next_command(&[]).as_deref(), Some(STATS));
        assert_eq!(s.next_command(&["x".into()]), None);
        assert!(s
            .finish(vec!["Unknown command".into()], Duration::ZERO)
            .is_err());
        assert!(s.finish(vec![], Duration::ZERO).is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,160}") {
            let _ = parse_stats(&s);
            let _ = parse_stats(&format!("CPU FPS In\n{s}"));
        }
    }
}
