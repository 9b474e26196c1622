//! Server health from Minecraft's console over RCON: vanilla `tick query` (1.20.3+) and
//! Paper's `tps` / `mspt`, text -> [`Health`]. Pure functions, and the commands one health
//! poll runs ([`Script`], over the shared RCON dialogue), which the registry asks after a
//! successful status ping on targets with `rcon` set (docs/protocols/minecraft.md).
//!
//! Over RCON, vanilla joins a command's messages without newlines, and Paper colours its
//! numbers with `§` codes, so both parsers look for their labels anywhere in the text.

use std::time::Duration;

use crate::protocol::exchange::Error;
use crate::protocol::rcon::exchange::Script as RconScript;
use crate::protocol::DecodeError;
use crate::status::{Health, Status, TickQuantiles};

/// Vanilla's health command (1.20.3+), as RCON takes it: no slash.
pub const TICK_QUERY: &str = "tick query";
/// Paper's (and Spigot's) tick rate.
pub const PAPER_TPS: &str = "tps";
/// Paper's tick time.
pub const PAPER_MSPT: &str = "mspt";

/// One health poll: `tick query`; where the server does not know it (before 1.20.3, or a
/// server without it), Paper's `tps` and then `mspt`. At most three commands, on the one
/// connection.
#[derive(Debug, Clone, Copy, Default)]
pub struct Script;

impl RconScript for Script {
    fn next_command(&mut self, replies: &[String]) -> Option<String> {
        let cmd = match replies {
            [] => TICK_QUERY,
            [tick] if parse_tick_query(tick).is_none() => PAPER_TPS,
            [_, tps] if parse_paper_tps(tps).is_some() => PAPER_MSPT,
            _ => return None,
        };
        Some(cmd.to_string())
    }

    /// The health alone in a [`Status`] (the status ping gives the rest); an error when the
    /// server answered neither `tick query` nor `tps`.
    fn finish(&mut self, replies: Vec<String>, latency: Duration) -> Result<Status, Error> {
        let health = match replies.as_slice() {
            [tick, ..] if parse_tick_query(tick).is_some() => parse_tick_query(tick),
            [_, tps, rest @ ..] => paper(tps, rest.first().map(String::as_str)),
            _ => None,
        };
        let health = health.ok_or(DecodeError::Invalid(
            "Minecraft health: neither `tick query` nor Paper's `tps` answered",
        ))?;
        Ok(Status {
            latency,
            health: Some(Box::new(health)),
            ..Status::default()
        })
    }
}

/// The first number (digits and one `.`) at the start of `s`, after spaces and Paper's `*`
/// (a capped value).
fn number(s: &str) -> Option<f64> {
    let s = s.trim_start_matches([' ', '*']);
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    s[..end]
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v >= 0.0)
}

/// The number right after `label` in `text`.
fn after(text: &str, label: &str) -> Option<f64> {
    text.find(label)
        .and_then(|i| number(&text[i + label.len()..]))
}

/// `text` without Paper's `§x` colour codes.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '§' {
            chars.next();
        } else {
            out.push(c);
        }
    }
    out
}

/// Vanilla `tick query`: target rate, average tick time and its percentiles. The achieved
/// rate is the target while ticks fit their slot, else 1000 / average ms (what the server
/// can do when every tick runs late).
pub fn parse_tick_query(text: &str) -> Option<Health> {
    let target = after(text, "Target tick rate: ")?;
    let mean_ms = after(text, "Average time per tick: ")?;
    let quantiles = match (
        after(text, "P50: "),
        after(text, "P95: "),
        after(text, "P99: "),
    ) {
        (Some(p50), Some(p95), Some(p99)) => Some(TickQuantiles {
            p50: p50 / 1000.0,
            p95: p95 / 1000.0,
            p99: p99 / 1000.0,
        }),
        _ => None,
    };
    let achieved = if mean_ms > 0.0 {
        target.min(1000.0 / mean_ms)
    } else {
        target
    };
    Some(Health {
        tick_rate_hertz: Some(achieved),
        tick_target_rate_hertz: Some(target),
        tick_duration_seconds: Some(mean_ms / 1000.0),
        tick_quantiles: quantiles,
        ..Health::default()
    })
}

/// Paper `tps`: the last minute's rate (`TPS from last 1m, 5m, 15m: 19.9, 20.0, 20.0`).
pub fn parse_paper_tps(text: &str) -> Option<f64> {
    after(&plain(text), "TPS from last 1m, 5m, 15m:")
}

/// Paper `mspt`: the average over the last 5 s (the first of `avg/min/max` after the label
/// line's colon).
pub fn parse_paper_mspt(text: &str) -> Option<f64> {
    let text = plain(text);
    let i = text.find("Server tick times")?;
    let rest = &text[i..];
    let colon = rest.find(':')?;
    let rest = &rest[colon + 1..];
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    number(&rest[start..]).map(|ms| ms / 1000.0)
}

/// Paper's health: `tps` with `mspt` where given; the target rate is Minecraft's fixed 20.
pub fn paper(tps: &str, mspt: Option<&str>) -> Option<Health> {
    let rate = parse_paper_tps(tps)?;
    Some(Health {
        tick_rate_hertz: Some(rate),
        tick_target_rate_hertz: Some(20.0),
        tick_duration_seconds: mspt.and_then(parse_paper_mspt),
        tick_quantiles: None,
        ..Health::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vanilla 1.20.3+, messages joined as RCON joins them (no newline), and a lagging one.
    #[test]
    fn tick_query() {
        let ok = "The game is running normallyTarget tick rate: 20.0 per second.\nAverage time per tick: 2.5ms (Target: 50.0ms)Percentiles: P50: 2.1ms P95: 3.4ms P99: 5.0ms, sample: 100";
        let h = parse_tick_query(ok).unwrap();
        assert_eq!(h.tick_target_rate_hertz, Some(20.0));
        assert_eq!(h.tick_rate_hertz, Some(20.0));
        assert_eq!(h.tick_duration_seconds, Some(0.0025));
        let q = h.tick_quantiles.unwrap();
        assert_eq!(
            (q.p50, q.p95, q.p99),
            (2.1 / 1000.0, 3.4 / 1000.0, 5.0 / 1000.0)
        );
        let slow =
            "Target tick rate: 20.0 per second.\nAverage time per tick: 80.0ms (Target: 50.0ms)";
        let h = parse_tick_query(slow).unwrap();
        assert_eq!(h.tick_rate_hertz, Some(12.5));
        assert_eq!(h.tick_quantiles, None);
        assert_eq!(parse_tick_query("Unknown or incomplete command"), None);
    }

    /// Paper, with its colour codes and capped values.
    #[test]
    fn paper_tps_and_mspt() {
        let tps = "§6TPS from last 1m, 5m, 15m: §a*20.0, §a19.97, §a19.99";
        let mspt = "§6Server tick times §e(§7avg§e/§7min§e/§7max§e)§6 from last 5s§7,§6 10s§7,§6 1m§e:\n§6◴ §a1.2§7/§a0.8§7/§a3.1§7, §a1.3§7/§a0.8§7/§a4.0";
        let h = paper(tps, Some(mspt)).unwrap();
        assert_eq!(h.tick_rate_hertz, Some(20.0));
        assert_eq!(h.tick_target_rate_hertz, Some(20.0));
        assert_eq!(h.tick_duration_seconds, Some(0.0012));
        assert_eq!(
            paper("Unknown command. Type \"/help\" for help.", None),
            None
        );
    }

    /// The commands follow the answers: `tick query` alone when it answers, else `tps` and
    /// `mspt`; neither known is an error.
    #[test]
    fn script_falls_back_to_paper() {
        let tick =
            "Target tick rate: 20.0 per second.\nAverage time per tick: 2.5ms (Target: 50.0ms)";
        let unknown = "Unknown or incomplete command, see below for error";
        let tps = "TPS from last 1m, 5m, 15m: 19.5, 20.0, 20.0";
        let mut s = Script;
        assert_eq!(s.next_command(&[]).as_deref(), Some(TICK_QUERY));
        assert_eq!(s.next_command(&[tick.into()]), None);
        assert_eq!(
            s.next_command(&[unknown.into()]).as_deref(),
            Some(PAPER_TPS)
        );
        let two = [unknown.to_string(), tps.to_string()];
        assert_eq!(s.next_command(&two).as_deref(), Some(PAPER_MSPT));
        assert_eq!(s.next_command(&[unknown.into(), unknown.into()]), None);
        let h = s
            .finish(vec![tick.into()], Duration::ZERO)
            .unwrap()
            .health
            .unwrap();
        assert_eq!(h.tick_duration_seconds, Some(0.0025));
        let h = s
            .finish(two.to_vec(), Duration::ZERO)
            .unwrap()
            .health
            .unwrap();
        assert_eq!(
            (h.tick_rate_hertz, h.tick_duration_seconds),
            (Some(19.5), None)
        );
        assert!(s
            .finish(vec![unknown.into(), unknown.into()], Duration::ZERO)
            .is_err());
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_text(s in "\\PC{0,120}") {
            let _ = parse_tick_query(&s);
            let _ = paper(&s, Some(&s));
        }
    }
}
