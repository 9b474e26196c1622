//! Renders the state as Prometheus exposition text at scrape time.
//!
//! Nothing lives on in metric objects: each scrape copies a snapshot out of
//! [`crate::state::State`] (reference-counted pointers only, under a short lock) and encodes it
//! into one pre-sized string, so a target removed by a reload simply stops appearing.
//!
//! # What a target publishes
//! - never polled yet: only `gameserver_queries_total 0` (no `up`, so no alert fires before the
//!   first poll had a chance; the counter makes the target visible);
//! - up: every gauge; `gameserver_players_bots` only where the protocol reports bots;
//! - down: `gameserver_up 0`, the counters, `gameserver_query_duration_seconds` and
//!   `gameserver_last_success_timestamp_seconds` (0 if it never answered, so `time() - x`
//!   alerts fire). Players, latency and info disappear.
//!
//! `gameserver_query_failures_total{reason}` appears for a reason once it has occurred.

pub mod encode;
pub mod process;

use std::time::SystemTime;

pub use encode::Format;
use encode::{Encoder, Kind};
use process::ProcessStats;

use crate::state::{Entry, Outcome, ReloadInfo};
use crate::status::Reason;
use crate::target::Protocol;

/// Seconds since the Unix epoch, as Prometheus timestamps are written.
pub fn unix_seconds(t: SystemTime) -> f64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The exporter-wide facts besides the targets.
#[derive(Debug, Clone, Copy)]
pub struct Globals {
    pub reload: ReloadInfo,
    pub process: Option<ProcessStats>,
}

/// The whole `/metrics` page.
pub fn render(format: Format, entries: &[Entry], globals: &Globals) -> String {
    let mut enc = Encoder::new(format, 4096 + entries.len() * 900);
    targets(&mut enc, entries, true);

    enc.family(
        "gameserver_targets",
        Kind::Gauge,
        "Configured targets by protocol.",
    );
    for p in Protocol::ALL {
        let n = entries
            .iter()
            .filter(|e| e.meta.target.protocol == p)
            .count();
        enc.start("gameserver_targets", "");
        enc.label("protocol", p.as_str());
        enc.value_u64(n as u64);
    }
    enc.family(
        "gameserver_exporter_build_info",
        Kind::Gauge,
        "Build of the exporter; always 1.",
    );
    enc.start("gameserver_exporter_build_info", "");
    enc.label("version", env!("CARGO_PKG_VERSION"));
    enc.value_u64(1);
    enc.family(
        "gameserver_config_last_reload_successful",
        Kind::Gauge,
        "Whether the last configuration load succeeded.",
    );
    enc.sample_u64(
        "gameserver_config_last_reload_successful",
        "",
        u64::from(globals.reload.successful),
    );
    enc.family(
        "gameserver_config_last_reload_success_timestamp_seconds",
        Kind::Gauge,
        "Time of the last successful configuration load.",
    );
    enc.sample_f64(
        "gameserver_config_last_reload_success_timestamp_seconds",
        "",
        unix_seconds(globals.reload.last_success),
    );
    if let Some(p) = &globals.process {
        process_families(&mut enc, p);
    }
    enc.finish()
}

/// The `/probe` answer for one target: its gauges, without the long-running counters.
pub fn render_probe(format: Format, entry: &Entry) -> String {
    let mut enc = Encoder::new(format, 1024);
    targets(&mut enc, std::slice::from_ref(entry), false);
    enc.finish()
}

fn up(e: &Entry) -> Option<&crate::status::Status> {
    match &e.last {
        Some(Outcome::Up(s)) => Some(s),
        _ => None,
    }
}

fn targets(enc: &mut Encoder, entries: &[Entry], counters: bool) {
    enc.family(
        "gameserver_up",
        Kind::Gauge,
        "Whether the last poll of the server succeeded.",
    );
    for e in entries.iter().filter(|e| e.last.is_some()) {
        enc.sample_u64("gameserver_up", &e.meta.labels, u64::from(up(e).is_some()));
    }
    enc.family(
        "gameserver_players_online",
        Kind::Gauge,
        "Players online as the server reports them.",
    );
    for e in entries {
        if let Some(s) = up(e) {
            enc.sample_u64("gameserver_players_online", &e.meta.labels, s.online.into());
        }
    }
    enc.family(
        "gameserver_players_max",
        Kind::Gauge,
        "Player capacity the server reports.",
    );
    for e in entries {
        if let Some(s) = up(e) {
            enc.sample_u64("gameserver_players_max", &e.meta.labels, s.max.into());
        }
    }
    enc.family(
        "gameserver_players_bots",
        Kind::Gauge,
        "Bots online, where the protocol reports them.",
    );
    for e in entries {
        if let Some(bots) = up(e).and_then(|s| s.bots) {
            enc.sample_u64("gameserver_players_bots", &e.meta.labels, bots.into());
        }
    }
    enc.family(
        "gameserver_latency_seconds",
        Kind::Gauge,
        "Round trip of the protocol's status exchange in the last poll.",
    );
    for e in entries {
        if let Some(s) = up(e) {
            let v = s.latency.as_secs_f64();
            enc.sample_f64("gameserver_latency_seconds", &e.meta.labels, v);
        }
    }
    enc.family(
        "gameserver_info",
        Kind::Gauge,
        "What the server says about itself; always 1.",
    );
    for e in entries {
        if let Some(s) = up(e) {
            enc.start("gameserver_info", &e.meta.labels);
            enc.server_label("name", &s.name);
            enc.server_label("map", s.map.as_deref().unwrap_or(""));
            enc.server_label("game", s.game.as_deref().unwrap_or(""));
            enc.server_label("version", s.version.as_deref().unwrap_or(""));
            enc.value_u64(1);
        }
    }
    enc.family(
        "gameserver_query_duration_seconds",
        Kind::Gauge,
        "Wall time of the last poll, DNS and retries included.",
    );
    for e in entries.iter().filter(|e| e.last.is_some()) {
        let v = e.last_duration.as_secs_f64();
        enc.sample_f64("gameserver_query_duration_seconds", &e.meta.labels, v);
    }
    if !counters {
        return;
    }
    enc.family(
        "gameserver_last_success_timestamp_seconds",
        Kind::Gauge,
        "Time of the last successful poll; 0 if none yet.",
    );
    for e in entries.iter().filter(|e| e.last.is_some()) {
        let v = e.last_success.map_or(0.0, unix_seconds);
        enc.sample_f64(
            "gameserver_last_success_timestamp_seconds",
            &e.meta.labels,
            v,
        );
    }
    enc.family("gameserver_queries_total", Kind::Counter, "Polls finished.");
    for e in entries {
        enc.sample_u64("gameserver_queries_total", &e.meta.labels, e.queries);
    }
    enc.family(
        "gameserver_query_failures_total",
        Kind::Counter,
        "Polls failed, by reason.",
    );
    for e in entries {
        for (reason, n) in Reason::ALL.iter().zip(e.failures) {
            if n > 0 {
                enc.start("gameserver_query_failures_total", &e.meta.labels);
                enc.label("reason", reason.as_str());
                enc.value_u64(n);
            }
        }
    }
}

fn process_families(enc: &mut Encoder, p: &ProcessStats) {
    enc.family(
        "process_cpu_seconds_total",
        Kind::Counter,
        "Total user and system CPU time spent in seconds.",
    );
    enc.sample_f64("process_cpu_seconds_total", "", p.cpu_seconds);
    enc.family(
        "process_resident_memory_bytes",
        Kind::Gauge,
        "Resident memory size in bytes.",
    );
    enc.sample_u64("process_resident_memory_bytes", "", p.resident_bytes);
    enc.family(
        "process_virtual_memory_bytes",
        Kind::Gauge,
        "Virtual memory size in bytes.",
    );
    enc.sample_u64("process_virtual_memory_bytes", "", p.virtual_bytes);
    enc.family(
        "process_open_fds",
        Kind::Gauge,
        "Number of open file descriptors.",
    );
    enc.sample_u64("process_open_fds", "", p.open_fds);
    if let Some(max) = p.max_fds {
        enc.family(
            "process_max_fds",
            Kind::Gauge,
            "Maximum number of open file descriptors.",
        );
        enc.sample_u64("process_max_fds", "", max);
    }
    enc.family(
        "process_start_time_seconds",
        Kind::Gauge,
        "Start time of the process since unix epoch in seconds.",
    );
    enc.sample_f64("process_start_time_seconds", "", p.start_time_seconds);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::state::{State, TargetMeta};
    use crate::status::{Failure, Status};
    use crate::target::{Address, Target};

    fn target(name: &str, protocol: Protocol, labels: &[(&str, &str)]) -> Arc<TargetMeta> {
        Arc::new(TargetMeta::new(Target {
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            ..Target::new(name, protocol, Address::parse("127.0.0.1:1").unwrap())
        }))
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    /// Three targets: up (hostile name, bots), down after a success, never polled.
    fn filled() -> (Vec<Entry>, Globals) {
        let state = State::default();
        let a = target("alpha", Protocol::A2s, &[("region", "eu")]);
        let b = target("beta", Protocol::Minecraft, &[]);
        let c = target("gamma", Protocol::Samp, &[]);
        for m in [&a, &b, &c] {
            state.insert(m.clone());
        }
        let status = Status {
            online: 12,
            max: 32,
            bots: Some(2),
            name: "a\"b\\c\nd\r\te".into(),
            map: Some("de_dust2".into()),
            game: Some("Counter-Strike".into()),
            version: None,
            latency: Duration::from_millis(25),
            ..Default::default()
        };
        state.record(&a, Ok(status), Duration::from_millis(40), at(1000));
        let mc = Status {
            online: 3,
            max: 20,
            name: "A Minecraft Server".into(),
            version: Some("1.21".into()),
            latency: Duration::from_millis(5),
            ..Default::default()
        };
        state.record(&b, Ok(mc), Duration::from_millis(8), at(990));
        let fail = Failure::new(Reason::Timeout, "timed out");
        state.record(&b, Err(fail.clone()), Duration::from_secs(5), at(1005));
        state.record(&b, Err(fail), Duration::from_secs(5), at(1020));
        let refused = Failure::new(Reason::Refused, "closed");
        state.record(&b, Err(refused), Duration::from_millis(1), at(1035));
        let globals = Globals {
            reload: ReloadInfo {
                successful: true,
                last_success: at(900),
            },
            process: None,
        };
        (state.snapshot(), globals)
    }

    const TEXT: &str = r#"# HELP gameserver_up Whether the last poll of the server succeeded.
# TYPE gameserver_up gauge
gameserver_up{target="alpha",protocol="a2s",region="eu"} 1
gameserver_up{target="beta",protocol="minecraft"} 0
# HELP gameserver_players_online Players online as the server reports them.
# TYPE gameserver_players_online gauge
gameserver_players_online{target="alpha",protocol="a2s",region="eu"} 12
# HELP gameserver_players_max Player capacity the server reports.
# TYPE gameserver_players_max gauge
gameserver_players_max{target="alpha",protocol="a2s",region="eu"} 32
# HELP gameserver_players_bots Bots online, where the protocol reports them.
# TYPE gameserver_players_bots gauge
gameserver_players_bots{target="alpha",protocol="a2s",region="eu"} 2
# HELP gameserver_latency_seconds Round trip of the protocol's status exchange in the last poll.
# TYPE gameserver_latency_seconds gauge
gameserver_latency_seconds{target="alpha",protocol="a2s",region="eu"} 0.025
# HELP gameserver_info What the server says about itself; always 1.
# TYPE gameserver_info gauge
gameserver_info{target="alpha",protocol="a2s",region="eu",name="a\"b\\c\nde",map="de_dust2",game="Counter-Strike",version=""} 1
# HELP gameserver_query_duration_seconds Wall time of the last poll, DNS and retries included.
# TYPE gameserver_query_duration_seconds gauge
gameserver_query_duration_seconds{target="alpha",protocol="a2s",region="eu"} 0.04
gameserver_query_duration_seconds{target="beta",protocol="minecraft"} 0.001
# HELP gameserver_last_success_timestamp_seconds Time of the last successful poll; 0 if none yet.
# TYPE gameserver_last_success_timestamp_seconds gauge
gameserver_last_success_timestamp_seconds{target="alpha",protocol="a2s",region="eu"} 1000
gameserver_last_success_timestamp_seconds{target="beta",protocol="minecraft"} 990
# HELP gameserver_queries_total Polls finished.
# TYPE gameserver_queries_total counter
gameserver_queries_total{target="alpha",protocol="a2s",region="eu"} 1
gameserver_queries_total{target="beta",protocol="minecraft"} 4
gameserver_queries_total{target="gamma",protocol="samp"} 0
# HELP gameserver_query_failures_total Polls failed, by reason.
# TYPE gameserver_query_failures_total counter
gameserver_query_failures_total{target="beta",protocol="minecraft",reason="timeout"} 2
gameserver_query_failures_total{target="beta",protocol="minecraft",reason="refused"} 1
# HELP gameserver_targets Configured targets by protocol.
# TYPE gameserver_targets gauge
gameserver_targets{protocol="a2s"} 1
gameserver_targets{protocol="minecraft"} 1
gameserver_targets{protocol="minecraft-query"} 0
gameserver_targets{protocol="samp"} 1
# HELP gameserver_exporter_build_info Build of the exporter; always 1.
# TYPE gameserver_exporter_build_info gauge
gameserver_exporter_build_info{version="0.1.0"} 1
# HELP gameserver_config_last_reload_successful Whether the last configuration load succeeded.
# TYPE gameserver_config_last_reload_successful gauge
gameserver_config_last_reload_successful 1
# HELP gameserver_config_last_reload_success_timestamp_seconds Time of the last successful configuration load.
# TYPE gameserver_config_last_reload_success_timestamp_seconds gauge
gameserver_config_last_reload_success_timestamp_seconds 900
"#;

    /// Text 0.0.4: every family typed, down and never-polled rules, hostile name escaped.
    #[test]
    fn golden_text() {
        let (entries, globals) = filled();
        let out = render(Format::Text, &entries, &globals);
        assert_eq!(out, TEXT);
    }

    /// OpenMetrics: counters typed by base name, same samples, `# EOF` at the end.
    #[test]
    fn golden_openmetrics() {
        let (entries, globals) = filled();
        let out = render(Format::OpenMetrics, &entries, &globals);
        let want =
            TEXT.replace(
                "# HELP gameserver_queries_total",
                "# HELP gameserver_queries",
            )
            .replace(
                "# TYPE gameserver_queries_total counter",
                "# TYPE gameserver_queries counter",
            )
            .replace(
                "# HELP gameserver_query_failures_total",
                "# HELP gameserver_query_failures",
            )
            .replace(
                "# TYPE gameserver_query_failures_total counter",
                "# TYPE gameserver_query_failures counter",
            ) + "# EOF\n";
        assert_eq!(out, want);
    }
}
