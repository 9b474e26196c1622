//! Every metric family the exporter writes, in one table: name, type, help and the labels
//! its samples carry. The renderer writes each family's `# HELP`/`# TYPE` lines and sample
//! names from here, so a name is spelled once; the tests below check the table against the
//! label names the config refuses and against the metric tables of docs/metrics.md.

/// A family's metric type. Here rather than in `encode.rs`, which reads the table: the table
/// is the lower file, so the two do not import each other (tests/it/architecture.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Gauge,
    Counter,
    /// Quantiles the server computed itself (`quantile` label), without `_sum`/`_count`:
    /// Prometheus (and promtool) reserve the `quantile` label for summaries.
    Summary,
}

/// Whose series a family holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One series per target, labelled with [`TARGET_LABELS`], the target's own labels and
    /// [`Family::labels`].
    Target,
    /// The exporter itself (configuration, build, process): only [`Family::labels`].
    Exporter,
}

/// One metric family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Family {
    /// The sample name (counters end in `_total`; OpenMetrics types them by the base name).
    pub name: &'static str,
    pub kind: Kind,
    pub help: &'static str,
    /// Labels the exporter adds to each sample, besides a target's label set.
    pub labels: &'static [&'static str],
    pub scope: Scope,
}

/// Labels every per-target series starts with, before the target's own.
pub const TARGET_LABELS: [&str; 2] = ["target", "protocol"];
/// What [`INFO`] adds: the server's own strings.
pub const INFO_LABELS: [&str; 4] = ["name", "map", "game", "version"];
/// What [`QUERY_FAILURES`] adds.
pub const FAILURE_LABELS: [&str; 1] = ["reason"];
/// What the per-player families add.
pub const PLAYER_LABELS: [&str; 1] = ["player"];
/// What [`TICK_DURATION_QUANTILE`] adds.
pub const QUANTILE_LABELS: [&str; 1] = ["quantile"];
/// What [`RULE_VALUE`] adds.
pub const RULE_LABELS: [&str; 1] = ["rule"];
/// What [`RULE_INFO`] adds.
pub const RULE_INFO_LABELS: [&str; 2] = ["rule", "value"];
/// What [`TARGETS`] has.
pub const TARGETS_LABELS: [&str; 1] = ["protocol"];
/// What [`BUILD_INFO`] has.
pub const BUILD_LABELS: [&str; 1] = ["version"];
/// What [`SHARD_INFO`] has.
pub const SHARD_LABELS: [&str; 2] = ["shard", "shards"];

const fn target(
    name: &'static str,
    kind: Kind,
    labels: &'static [&'static str],
    help: &'static str,
) -> Family {
    Family {
        name,
        kind,
        help,
        labels,
        scope: Scope::Target,
    }
}

const fn exporter(
    name: &'static str,
    kind: Kind,
    labels: &'static [&'static str],
    help: &'static str,
) -> Family {
    Family {
        name,
        kind,
        help,
        labels,
        scope: Scope::Exporter,
    }
}

use Kind::{Counter, Gauge};

pub const UP: Family = target(
    "gameserver_up",
    Gauge,
    &[],
    "Whether the last poll of the server succeeded.",
);
pub const PLAYERS_ONLINE: Family = target(
    "gameserver_players_online",
    Gauge,
    &[],
    "Players online as the server reports them.",
);
pub const PLAYERS_MAX: Family = target(
    "gameserver_players_max",
    Gauge,
    &[],
    "Player capacity the server reports; absent where it reports none.",
);
pub const PLAYERS_BOTS: Family = target(
    "gameserver_players_bots",
    Gauge,
    &[],
    "Bots online, where the protocol reports them.",
);
pub const PLAYERS_QUEUED: Family = target(
    "gameserver_players_queued",
    Gauge,
    &[],
    "Players waiting to join, where the game reports a queue.",
);
pub const LATENCY: Family = target(
    "gameserver_latency_seconds",
    Gauge,
    &[],
    "Round trip of the protocol's status exchange in the last poll.",
);
pub const INFO: Family = target(
    "gameserver_info",
    Gauge,
    &INFO_LABELS,
    "What the server says about itself; always 1.",
);
pub const TICK_RATE: Family = target(
    "gameserver_tick_rate_hertz",
    Gauge,
    &[],
    "Server ticks (or frames) per second achieved, where the game reports it.",
);
pub const TICK_TARGET_RATE: Family = target(
    "gameserver_tick_target_rate_hertz",
    Gauge,
    &[],
    "Server ticks per second the game aims for, where it reports it.",
);
pub const TICK_DURATION: Family = target(
    "gameserver_tick_duration_seconds",
    Gauge,
    &[],
    "Mean time one server tick (or frame) takes, where the game reports it.",
);
pub const TICK_DURATION_QUANTILE: Family = target(
    "gameserver_tick_duration_quantile_seconds",
    Kind::Summary,
    &QUANTILE_LABELS,
    "Server tick time percentiles, where the game reports them.",
);
pub const FRAME_RATE: Family = target(
    "gameserver_frame_rate_hertz",
    Gauge,
    &[],
    "Server frames per second, where the game reports frames apart from ticks.",
);
pub const CPU_USAGE: Family = target(
    "gameserver_cpu_usage_ratio",
    Gauge,
    &[],
    "The server process's CPU use (0 to 1) as the game reports it.",
);
pub const NETWORK_RECEIVE: Family = target(
    "gameserver_network_receive_bytes_per_second",
    Gauge,
    &[],
    "Game traffic into the server, bytes per second, as the game reports it.",
);
pub const NETWORK_TRANSMIT: Family = target(
    "gameserver_network_transmit_bytes_per_second",
    Gauge,
    &[],
    "Game traffic out of the server, bytes per second, as the game reports it.",
);
pub const UPTIME: Family = target(
    "gameserver_uptime_seconds",
    Gauge,
    &[],
    "How long the server has been running, as the game reports it.",
);
pub const MEMORY_HEAP: Family = target(
    "gameserver_memory_heap_bytes",
    Gauge,
    &[],
    "The game's managed heap in use, bytes, as the game reports it.",
);
pub const MEMORY_HEAP_MAX: Family = target(
    "gameserver_memory_heap_max_bytes",
    Gauge,
    &[],
    "The game's managed heap ceiling, bytes, as the game reports it.",
);
pub const MEMORY_RESIDENT: Family = target(
    "gameserver_memory_resident_bytes",
    Gauge,
    &[],
    "The server process's resident memory, bytes, as the game reports it.",
);
pub const ENTITIES: Family = target(
    "gameserver_entities",
    Gauge,
    &[],
    "Entities in the world, as the game reports them.",
);
pub const ZOMBIES: Family = target(
    "gameserver_zombies",
    Gauge,
    &[],
    "Zombies alive, where the game reports them.",
);
pub const CHUNKS_LOADED: Family = target(
    "gameserver_chunks_loaded",
    Gauge,
    &[],
    "World chunks loaded, where the game reports them.",
);
pub const PLAYERS_JOINING: Family = target(
    "gameserver_players_joining",
    Gauge,
    &[],
    "Players connecting but not yet in the game, where the game reports them.",
);
pub const RULE_VALUE: Family = target(
    "gameserver_rule_value",
    Gauge,
    &RULE_LABELS,
    "A configured server rule whose value is a number.",
);
pub const RULE_INFO: Family = target(
    "gameserver_rule_info",
    Gauge,
    &RULE_INFO_LABELS,
    "A configured server rule whose value is not a number; always 1.",
);
pub const PLAYER_INFO: Family = target(
    "gameserver_player_info",
    Gauge,
    &PLAYER_LABELS,
    "A player online (targets with per-player series on); always 1.",
);
pub const PLAYER_SCORE: Family = target(
    "gameserver_player_score",
    Gauge,
    &PLAYER_LABELS,
    "Score of a player online (targets with per-player series on).",
);
pub const PLAYER_CONNECTED: Family = target(
    "gameserver_player_connected_seconds",
    Gauge,
    &PLAYER_LABELS,
    "How long a player online has been connected (targets with per-player series on).",
);
pub const PLAYER_PING: Family = target(
    "gameserver_player_ping_seconds",
    Gauge,
    &PLAYER_LABELS,
    "Ping of a player online (targets with per-player series on).",
);
pub const PLAYER_SERIES_DROPPED: Family = target(
    "gameserver_player_series_dropped",
    Gauge,
    &[],
    "Players in the last list beyond the target's max_series, not published.",
);
pub const QUERY_DURATION: Family = target(
    "gameserver_query_duration_seconds",
    Gauge,
    &[],
    "Wall time of the last poll, DNS and retries included.",
);
pub const LAST_SUCCESS: Family = target(
    "gameserver_last_success_timestamp_seconds",
    Gauge,
    &[],
    "Time of the last successful poll; 0 if none yet.",
);
pub const CONSECUTIVE_FAILURES: Family = target(
    "gameserver_consecutive_failures",
    Gauge,
    &[],
    "Polls failed in a row; 0 after a success.",
);
pub const LAST_PLAYER_SEEN: Family = target(
    "gameserver_last_player_seen_timestamp_seconds",
    Gauge,
    &[],
    "Time of the last successful poll with a player online, or of the first successful poll until one has.",
);
pub const QUERIES: Family = target("gameserver_queries_total", Counter, &[], "Polls finished.");
pub const QUERY_FAILURES: Family = target(
    "gameserver_query_failures_total",
    Counter,
    &FAILURE_LABELS,
    "Polls failed, by reason.",
);
pub const PLAYER_SECONDS: Family = target(
    "gameserver_player_seconds_total",
    Counter,
    &[],
    "Players online times the seconds between consecutive successful polls.",
);
pub const PLAYER_JOINS: Family = target(
    "gameserver_player_joins_total",
    Counter,
    &[],
    "Players that appeared between consecutive player lists.",
);
pub const PLAYER_LEAVES: Family = target(
    "gameserver_player_leaves_total",
    Counter,
    &[],
    "Players that disappeared between consecutive player lists.",
);
pub const TARGETS: Family = exporter(
    "gameserver_targets",
    Gauge,
    &TARGETS_LABELS,
    "Configured targets by protocol.",
);
pub const BUILD_INFO: Family = exporter(
    "gameserver_exporter_build_info",
    Gauge,
    &BUILD_LABELS,
    "Build of the exporter; always 1.",
);
pub const SHARD_INFO: Family = exporter(
    "gameserver_exporter_shard_info",
    Gauge,
    &SHARD_LABELS,
    "Share of the configured targets this replica polls (--shard I/N; 0 of 1 when not sharded); always 1.",
);
pub const RELOAD_SUCCESSFUL: Family = exporter(
    "gameserver_config_last_reload_successful",
    Gauge,
    &[],
    "Whether the last configuration load succeeded.",
);
pub const RELOAD_SUCCESS_TIME: Family = exporter(
    "gameserver_config_last_reload_success_timestamp_seconds",
    Gauge,
    &[],
    "Time of the last successful configuration load.",
);
pub const PROCESS_CPU: Family = exporter(
    "process_cpu_seconds_total",
    Counter,
    &[],
    "Total user and system CPU time spent in seconds.",
);
pub const PROCESS_RSS: Family = exporter(
    "process_resident_memory_bytes",
    Gauge,
    &[],
    "Resident memory size in bytes.",
);
pub const PROCESS_VSIZE: Family = exporter(
    "process_virtual_memory_bytes",
    Gauge,
    &[],
    "Virtual memory size in bytes.",
);
pub const PROCESS_OPEN_FDS: Family = exporter(
    "process_open_fds",
    Gauge,
    &[],
    "Number of open file descriptors.",
);
pub const PROCESS_MAX_FDS: Family = exporter(
    "process_max_fds",
    Gauge,
    &[],
    "Maximum number of open file descriptors.",
);
pub const PROCESS_START_TIME: Family = exporter(
    "process_start_time_seconds",
    Gauge,
    &[],
    "Start time of the process since unix epoch in seconds.",
);

/// Every family, in the order a `/metrics` page writes them.
pub const ALL: [Family; 50] = [
    UP,
    PLAYERS_ONLINE,
    PLAYERS_MAX,
    PLAYERS_BOTS,
    PLAYERS_QUEUED,
    LATENCY,
    INFO,
    TICK_RATE,
    TICK_TARGET_RATE,
    TICK_DURATION,
    TICK_DURATION_QUANTILE,
    FRAME_RATE,
    CPU_USAGE,
    NETWORK_RECEIVE,
    NETWORK_TRANSMIT,
    UPTIME,
    MEMORY_HEAP,
    MEMORY_HEAP_MAX,
    MEMORY_RESIDENT,
    ENTITIES,
    ZOMBIES,
    CHUNKS_LOADED,
    PLAYERS_JOINING,
    RULE_VALUE,
    RULE_INFO,
    PLAYER_INFO,
    PLAYER_SCORE,
    PLAYER_CONNECTED,
    PLAYER_PING,
    PLAYER_SERIES_DROPPED,
    QUERY_DURATION,
    LAST_SUCCESS,
    CONSECUTIVE_FAILURES,
    LAST_PLAYER_SEEN,
    QUERIES,
    QUERY_FAILURES,
    PLAYER_SECONDS,
    PLAYER_JOINS,
    PLAYER_LEAVES,
    TARGETS,
    BUILD_INFO,
    SHARD_INFO,
    RELOAD_SUCCESSFUL,
    RELOAD_SUCCESS_TIME,
    PROCESS_CPU,
    PROCESS_RSS,
    PROCESS_VSIZE,
    PROCESS_OPEN_FDS,
    PROCESS_MAX_FDS,
    PROCESS_START_TIME,
];

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;
    use crate::config::{PLAYER_LABELS, RESERVED_LABELS, RULE_LABELS};

    /// Names are unique and well formed; counters end in `_total`, gauges do not.
    #[test]
    fn names() {
        let names: BTreeSet<&str> = ALL.iter().map(|f| f.name).collect();
        assert_eq!(names.len(), ALL.len());
        for f in ALL {
            assert!(
                f.name
                    .bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
                "{}",
                f.name
            );
            assert_eq!(
                f.kind == Kind::Counter,
                f.name.ends_with("_total"),
                "{}",
                f.name
            );
        }
    }

    /// A target's own labels can never collide with a label the exporter sets on its series:
    /// every one of them is in the config's reserved list. Exporter-scope families never carry
    /// a target's labels (so `shard` stays free for targets' own use, as it always was).
    #[test]
    fn reserved_labels_cover_every_family() {
        let set: BTreeSet<&str> = TARGET_LABELS
            .iter()
            .chain(
                ALL.iter()
                    .filter(|f| f.scope == Scope::Target)
                    .flat_map(|f| f.labels),
            )
            .copied()
            .collect();
        for l in set {
            assert!(
                RESERVED_LABELS.contains(&l)
                    || PLAYER_LABELS.contains(&l)
                    || RULE_LABELS.contains(&l),
                "{l} is not reserved"
            );
        }
    }

    /// The two metric tables of docs/metrics.md (before its first `##` section) list exactly
    /// these families, with their types and labels.
    #[test]
    fn documented_tables_match() {
        let page = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/metrics.md"));
        let section = page
            .split("# Metrics\n")
            .nth(1)
            .and_then(|s| s.split("\n## ").next())
            .expect("docs/metrics.md starts with its Metrics tables");
        // name -> (type cell, labels cell, table index)
        let mut rows: BTreeMap<String, (String, BTreeSet<String>, usize)> = BTreeMap::new();
        let mut table = 0;
        let mut in_table = false;
        for line in section.lines() {
            if !line.starts_with('|') {
                in_table = false;
                continue;
            }
            if !in_table {
                in_table = true;
                table += 1;
            }
            let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
            if cells.len() < 3 || !cells[0].starts_with('`') {
                continue; // header and separator rows
            }
            let labels: BTreeSet<String> = cells[2]
                .split(',')
                .map(|l| l.trim().trim_matches('`').to_string())
                .filter(|l| !l.is_empty())
                .collect();
            for name in cells[0].split(',') {
                let name = name.trim().trim_matches('`').to_string();
                rows.insert(name, (cells[1].to_string(), labels.clone(), table));
            }
        }
        let documented: BTreeSet<&str> = rows.keys().map(String::as_str).collect();
        let written: BTreeSet<&str> = ALL.iter().map(|f| f.name).collect();
        assert_eq!(documented, written);
        for f in ALL {
            let (kind, labels, table) = &rows[f.name];
            let want = match f.kind {
                Kind::Gauge => "gauge",
                Kind::Counter => "counter",
                Kind::Summary => "summary",
            };
            assert!(
                kind.contains(want),
                "{}: docs/metrics.md says {kind:?}",
                f.name
            );
            let own: BTreeSet<String> = f.labels.iter().map(|l| l.to_string()).collect();
            assert_eq!(labels, &own, "{}", f.name);
            let want_table = match f.scope {
                Scope::Target => 1,
                Scope::Exporter => 2,
            };
            assert_eq!(
                *table, want_table,
                "{} is in the wrong table of docs/metrics.md",
                f.name
            );
        }
    }
}
