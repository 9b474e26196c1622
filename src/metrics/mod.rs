//! Renders the state as Prometheus exposition text at scrape time.
//!
//! Every family (name, type, help, labels) is declared once, in [`families`]; a target's
//! label set is encoded once and cached ([`labels`]).
//!
//! Nothing lives on in metric objects: each scrape takes a snapshot out of
//! [`crate::state::State`] (one pointer per target, under a short lock) and encodes it, whole
//! ([`render`]) or in chunks into a writer ([`render_to`], what `/metrics` sends while it
//! renders), so a target removed by a reload simply stops appearing.
//!
//! # What a target publishes
//! - never polled yet: only `gameserver_queries_total 0` (no `up`, so no alert fires before the
//!   first poll had a chance; the counter makes the target visible);
//! - up: every gauge; `gameserver_players_bots` only where the protocol reports bots;
//! - down: `gameserver_up 0`, the counters, `gameserver_query_duration_seconds`,
//!   `gameserver_last_success_timestamp_seconds` (0 if it never answered, so `time() - x`
//!   alerts fire) and `gameserver_consecutive_failures`. Players, latency and info disappear.
//! - `gameserver_last_player_seen_timestamp_seconds` from the first success on, kept while
//!   down: absent before, so "empty for 30 minutes" cannot fire on a server nobody has seen
//!   up (`docs/alerting.md`).
//!
//! `gameserver_query_failures_total{reason}` appears for a reason once it has occurred.
//!
//! Opt-in per target (`players.rs`): rules listed in `rules`; with `players` on, per-player
//! gauges from the last poll's list (none when that poll got no list) and the join/leave
//! counters. `gameserver_player_seconds_total` is written for every polled target.

pub mod encode;
pub mod families;
pub mod labels;
mod players;
pub mod process;

use std::sync::Arc;
use std::time::SystemTime;

use encode::Encoder;
pub use encode::Format;
use families as F;
use process::ProcessStats;

use crate::shard::Shard;
use crate::state::{Entry, Outcome, ReloadInfo};
use crate::status::{Health, Reason};
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
    /// The replica's share of the targets (`0/1` when not sharded).
    pub shard: Shard,
}

/// The whole `/metrics` page.
pub fn render(format: Format, entries: &[Arc<Entry>], globals: &Globals) -> String {
    let mut enc = Encoder::new(format, 4096 + entries.len() * 900);
    page(&mut enc, entries, globals);
    enc.finish()
}

/// The whole `/metrics` page, written to `sink` in chunks as it is rendered (the HTTP layer
/// gzips it on the fly): the same bytes as [`render`] without holding the page.
pub fn render_to(
    format: Format,
    entries: &[Arc<Entry>],
    globals: &Globals,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut enc = Encoder::streaming(format, sink);
    page(&mut enc, entries, globals);
    enc.finish_streaming()
}

fn page(enc: &mut Encoder<'_>, entries: &[Arc<Entry>], globals: &Globals) {
    targets(enc, entries, true);

    let [protocol_label] = F::TARGETS_LABELS;
    enc.family(&F::TARGETS);
    for p in Protocol::ALL {
        let n = entries
            .iter()
            .filter(|e| e.meta.target.protocol == p)
            .count();
        enc.start(&F::TARGETS, "");
        enc.label(protocol_label, p.as_str());
        enc.value_u64(n as u64);
    }
    let [version_label] = F::BUILD_LABELS;
    enc.family(&F::BUILD_INFO);
    enc.start(&F::BUILD_INFO, "");
    enc.label(version_label, env!("CARGO_PKG_VERSION"));
    enc.value_u64(1);
    shard_info(enc, globals.shard);
    enc.family(&F::RELOAD_SUCCESSFUL);
    let ok = u64::from(globals.reload.successful);
    enc.sample_u64(&F::RELOAD_SUCCESSFUL, "", ok);
    enc.family(&F::RELOAD_SUCCESS_TIME);
    let at = unix_seconds(globals.reload.last_success);
    enc.sample_f64(&F::RELOAD_SUCCESS_TIME, "", at);
    if let Some(p) = &globals.process {
        process_families(enc, p);
    }
}

/// `gameserver_exporter_shard_info`: always present, so dashboards can group replicas and
/// check that every shard of a count is up (`count by (shards) (...)`).
fn shard_info(enc: &mut Encoder, shard: Shard) {
    let [shard_label, shards_label] = F::SHARD_LABELS;
    enc.family(&F::SHARD_INFO);
    enc.start(&F::SHARD_INFO, "");
    enc.label(shard_label, &shard.index().to_string());
    enc.label(shards_label, &shard.count().to_string());
    enc.value_u64(1);
}

/// The `/probe` answer for one target: its gauges, without the long-running counters.
pub fn render_probe(format: Format, entry: &Entry) -> String {
    let mut enc = Encoder::new(format, 1024);
    // A probe's entry is its own, not the state's: shared here only for the slice's type.
    targets(&mut enc, &[Arc::new(entry.clone())], false);
    enc.finish()
}

fn up(e: &Entry) -> Option<&crate::state::Published> {
    match &e.last {
        Some(Outcome::Up(s)) => Some(s),
        _ => None,
    }
}

fn targets(enc: &mut Encoder, entries: &[Arc<Entry>], counters: bool) {
    enc.family(&F::UP);
    for e in entries.iter().filter(|e| e.last.is_some()) {
        enc.sample_u64(&F::UP, labels::of(&e.meta), u64::from(up(e).is_some()));
    }
    enc.family(&F::PLAYERS_ONLINE);
    for e in entries {
        if let Some(s) = up(e) {
            enc.sample_u64(&F::PLAYERS_ONLINE, labels::of(&e.meta), s.online.into());
        }
    }
    enc.family(&F::PLAYERS_MAX);
    for e in entries {
        // A capacity the server does not report is absent, not 0 (`Status::max`).
        if let Some(max) = up(e).and_then(|s| s.capacity()) {
            enc.sample_u64(&F::PLAYERS_MAX, labels::of(&e.meta), max.into());
        }
    }
    enc.family(&F::PLAYERS_BOTS);
    for e in entries {
        if let Some(bots) = up(e).and_then(|s| s.bots) {
            enc.sample_u64(&F::PLAYERS_BOTS, labels::of(&e.meta), bots.into());
        }
    }
    enc.family(&F::PLAYERS_QUEUED);
    for e in entries {
        if let Some(queued) = up(e).and_then(|s| s.queued) {
            enc.sample_u64(&F::PLAYERS_QUEUED, labels::of(&e.meta), queued.into());
        }
    }
    enc.family(&F::LATENCY);
    for e in entries {
        if let Some(s) = up(e) {
            let v = s.latency().as_secs_f64();
            enc.sample_f64(&F::LATENCY, labels::of(&e.meta), v);
        }
    }
    let [name, map, game, version] = F::INFO_LABELS;
    enc.family(&F::INFO);
    for e in entries {
        if let Some(s) = up(e) {
            enc.start(&F::INFO, labels::of(&e.meta));
            enc.server_label(name, s.name());
            enc.server_label(map, s.map());
            enc.server_label(game, s.game());
            enc.server_label(version, s.version());
            enc.value_u64(1);
        }
    }
    health(enc, entries);
    players::rules(enc, entries);
    players::per_player(enc, entries);
    enc.family(&F::QUERY_DURATION);
    for e in entries.iter().filter(|e| e.last.is_some()) {
        let v = e.last_duration().as_secs_f64();
        enc.sample_f64(&F::QUERY_DURATION, labels::of(&e.meta), v);
    }
    // `/probe` stops here: its entry holds one poll, so a streak would only restate
    // `gameserver_up` and every timestamp would be the probe's own time.
    if !counters {
        return;
    }
    enc.family(&F::LAST_SUCCESS);
    for e in entries.iter().filter(|e| e.last.is_some()) {
        let v = e.last_success().map_or(0.0, unix_seconds);
        enc.sample_f64(&F::LAST_SUCCESS, labels::of(&e.meta), v);
    }
    enc.family(&F::CONSECUTIVE_FAILURES);
    for e in entries.iter().filter(|e| e.last.is_some()) {
        let n = e.consecutive_failures.into();
        enc.sample_u64(&F::CONSECUTIVE_FAILURES, labels::of(&e.meta), n);
    }
    enc.family(&F::LAST_PLAYER_SEEN);
    for e in entries {
        if let Some(t) = e.last_player_seen() {
            enc.sample_f64(&F::LAST_PLAYER_SEEN, labels::of(&e.meta), unix_seconds(t));
        }
    }
    enc.family(&F::QUERIES);
    for e in entries {
        enc.sample_u64(&F::QUERIES, labels::of(&e.meta), e.queries);
    }
    let [reason_label] = F::FAILURE_LABELS;
    enc.family(&F::QUERY_FAILURES);
    for e in entries {
        for (reason, n) in Reason::ALL.iter().zip(e.failures.counts()) {
            if n > 0 {
                enc.start(&F::QUERY_FAILURES, labels::of(&e.meta));
                enc.label(reason_label, reason.as_str());
                enc.value_u64(n);
            }
        }
    }
    players::counters(enc, entries);
}

/// The health families (`gameserver_tick_*`, frame rate, CPU, network, uptime): each series
/// only where the server reported the value, in [`F::ALL`]'s order.
fn health(enc: &mut Encoder, entries: &[Arc<Entry>]) {
    let ticks: [(&F::Family, Field); 3] = [
        (&F::TICK_RATE, |h| h.tick_rate_hertz),
        (&F::TICK_TARGET_RATE, |h| h.tick_target_rate_hertz),
        (&F::TICK_DURATION, |h| h.tick_duration_seconds),
    ];
    health_scalars(enc, entries, &ticks);
    let [quantile] = F::QUANTILE_LABELS;
    enc.family(&F::TICK_DURATION_QUANTILE);
    for e in entries {
        if let Some(q) = health_of(e).and_then(|h| h.tick_quantiles) {
            for (at, v) in [("0.5", q.p50), ("0.95", q.p95), ("0.99", q.p99)] {
                enc.start(&F::TICK_DURATION_QUANTILE, labels::of(&e.meta));
                enc.label(quantile, at);
                enc.value_f64(v);
            }
        }
    }
    let host: [(&F::Family, Field); 5] = [
        (&F::FRAME_RATE, |h| h.frame_rate_hertz),
        (&F::CPU_USAGE, |h| h.cpu_usage_ratio),
        (&F::NETWORK_RECEIVE, |h| h.network_receive_bytes_per_second),
        (&F::NETWORK_TRANSMIT, |h| {
            h.network_transmit_bytes_per_second
        }),
        (&F::UPTIME, |h| h.uptime_seconds),
    ];
    health_scalars(enc, entries, &host);
    // The admin consoles' world and memory figures (Rust WebRCON, 7 Days to Die telnet).
    let world: [(&F::Family, Field); 7] = [
        (&F::MEMORY_HEAP, |h| h.memory_heap_bytes),
        (&F::MEMORY_HEAP_MAX, |h| h.memory_heap_max_bytes),
        (&F::MEMORY_RESIDENT, |h| h.memory_resident_bytes),
        (&F::ENTITIES, |h| h.entities),
        (&F::ZOMBIES, |h| h.zombies),
        (&F::CHUNKS_LOADED, |h| h.chunks_loaded),
        (&F::PLAYERS_JOINING, |h| h.players_joining),
    ];
    health_scalars(enc, entries, &world);
}

/// One health value of a target's last status.
type Field = fn(&Health) -> Option<f64>;

fn health_of(e: &Entry) -> Option<Health> {
    up(e).and_then(|s| s.health()).copied()
}

/// One gauge family per field, a sample per target that reported it.
fn health_scalars(enc: &mut Encoder, entries: &[Arc<Entry>], fields: &[(&F::Family, Field)]) {
    for (family, field) in fields {
        enc.family(family);
        for e in entries {
            if let Some(v) = health_of(e).as_ref().and_then(field) {
                enc.sample_f64(family, labels::of(&e.meta), v);
            }
        }
    }
}

fn process_families(enc: &mut Encoder, p: &ProcessStats) {
    enc.family(&F::PROCESS_CPU);
    enc.sample_f64(&F::PROCESS_CPU, "", p.cpu_seconds);
    enc.family(&F::PROCESS_RSS);
    enc.sample_u64(&F::PROCESS_RSS, "", p.resident_bytes);
    enc.family(&F::PROCESS_VSIZE);
    enc.sample_u64(&F::PROCESS_VSIZE, "", p.virtual_bytes);
    enc.family(&F::PROCESS_OPEN_FDS);
    enc.sample_u64(&F::PROCESS_OPEN_FDS, "", p.open_fds);
    if let Some(max) = p.max_fds {
        enc.family(&F::PROCESS_MAX_FDS);
        enc.sample_u64(&F::PROCESS_MAX_FDS, "", max);
    }
    enc.family(&F::PROCESS_START_TIME);
    enc.sample_f64(&F::PROCESS_START_TIME, "", p.start_time_seconds);
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Arc;
    use std::time::Duration;

    use super::*;
    use crate::state::{State, TargetMeta};
    use crate::status::{Failure, Player, Status};
    use crate::target::{Address, PlayerSeries, Target};

    fn target(name: &str, protocol: Protocol, labels: &[(&str, &str)]) -> Target {
        Target {
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect::<BTreeMap<_, _>>(),
            ..Target::new(name, protocol, Address::parse("127.0.0.1:1").unwrap())
        }
    }

    fn player(name: &str, score: i64, duration: f32) -> Player {
        Player {
            name: name.into(),
            score: Some(score),
            duration: Some(duration),
            ..Player::default()
        }
    }

    fn at(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    /// Three targets: up (hostile name, bots, queue, players and rules on), down after a
    /// success, never polled.
    fn filled() -> (Vec<Arc<Entry>>, Globals) {
        let state = State::default();
        let a = Arc::new(TargetMeta::new(Target {
            players: Some(PlayerSeries { max_series: 2 }),
            rules: vec!["mp_timelimit".into(), "sv_contact".into(), "absent".into()].into(),
            ..target("alpha", Protocol::A2s, &[("region", "eu")])
        }));
        let b = Arc::new(TargetMeta::new(target("beta", Protocol::Minecraft, &[])));
        let c = Arc::new(TargetMeta::new(target("gamma", Protocol::Samp, &[])));
        for m in [&a, &b, &c] {
            state.insert(m.clone());
        }
        let first = Status {
            online: 2,
            players: Some(vec![player("Alice", 1, 5.0), player("Bob", 2, 6.0)]),
            ..Default::default()
        };
        state.record(&a, Ok(first), Duration::from_millis(40), at(990));
        let status = Status {
            online: 12,
            max: 32,
            bots: Some(2),
            queued: Some(4),
            name: "a\"b\\c\nd\r\te".into(),
            map: Some("de_dust2".into()),
            game: Some("Counter-Strike".into()),
            version: None,
            latency: Duration::from_millis(25),
            players: Some(vec![
                player("Eve\"\n\\", -1, 0.5),
                player("Alice", 3, 15.0),
                player("Carol", 0, 1.0),
            ]),
            rules: Some(vec![
                ("sv_contact".into(), "admin@example.org".into()),
                ("mp_timelimit".into(), " 25 ".into()),
                ("other".into(), "x".into()),
                ("mp_timelimit".into(), "99".into()),
            ]),
            // A tick rate without a target rate or percentiles: only what was reported.
            health: Some(Box::new(Health {
                tick_rate_hertz: Some(19.5),
                tick_duration_seconds: Some(0.0125),
                memory_heap_bytes: Some(536870912.0),
                entities: Some(184213.0),
                frame_rate_hertz: Some(66.67),
                uptime_seconds: Some(5700.0),
                ..Health::default()
            })),
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
            shard: Shard::parse("1/3").unwrap(),
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
# HELP gameserver_players_max Player capacity the server reports; absent where it reports none.
# TYPE gameserver_players_max gauge
gameserver_players_max{target="alpha",protocol="a2s",region="eu"} 32
# HELP gameserver_players_bots Bots online, where the protocol reports them.
# TYPE gameserver_players_bots gauge
gameserver_players_bots{target="alpha",protocol="a2s",region="eu"} 2
# HELP gameserver_players_queued Players waiting to join, where the game reports a queue.
# TYPE gameserver_players_queued gauge
gameserver_players_queued{target="alpha",protocol="a2s",region="eu"} 4
# HELP gameserver_latency_seconds Round trip of the protocol's status exchange in the last poll.
# TYPE gameserver_latency_seconds gauge
gameserver_latency_seconds{target="alpha",protocol="a2s",region="eu"} 0.025
# HELP gameserver_info What the server says about itself; always 1.
# TYPE gameserver_info gauge
gameserver_info{target="alpha",protocol="a2s",region="eu",name="a\"b\\c\nde",map="de_dust2",game="Counter-Strike",version=""} 1
# HELP gameserver_tick_rate_hertz Server ticks (or frames) per second achieved, where the game reports it.
# TYPE gameserver_tick_rate_hertz gauge
gameserver_tick_rate_hertz{target="alpha",protocol="a2s",region="eu"} 19.5
# HELP gameserver_tick_target_rate_hertz Server ticks per second the game aims for, where it reports it.
# TYPE gameserver_tick_target_rate_hertz gauge
# HELP gameserver_tick_duration_seconds Mean time one server tick (or frame) takes, where the game reports it.
# TYPE gameserver_tick_duration_seconds gauge
gameserver_tick_duration_seconds{target="alpha",protocol="a2s",region="eu"} 0.0125
# HELP gameserver_tick_duration_quantile_seconds Server tick time percentiles, where the game reports them.
# TYPE gameserver_tick_duration_quantile_seconds summary
# HELP gameserver_frame_rate_hertz Server frames per second, where the game reports frames apart from ticks.
# TYPE gameserver_frame_rate_hertz gauge
gameserver_frame_rate_hertz{target="alpha",protocol="a2s",region="eu"} 66.67
# HELP gameserver_cpu_usage_ratio The server process's CPU use (0 to 1) as the game reports it.
# TYPE gameserver_cpu_usage_ratio gauge
# HELP gameserver_network_receive_bytes_per_second Game traffic into the server, bytes per second, as the game reports it.
# TYPE gameserver_network_receive_bytes_per_second gauge
# HELP gameserver_network_transmit_bytes_per_second Game traffic out of the server, bytes per second, as the game reports it.
# TYPE gameserver_network_transmit_bytes_per_second gauge
# HELP gameserver_uptime_seconds How long the server has been running, as the game reports it.
# TYPE gameserver_uptime_seconds gauge
gameserver_uptime_seconds{target="alpha",protocol="a2s",region="eu"} 5700
# HELP gameserver_memory_heap_bytes The game's managed heap in use, bytes, as the game reports it.
# TYPE gameserver_memory_heap_bytes gauge
gameserver_memory_heap_bytes{target="alpha",protocol="a2s",region="eu"} 536870912
# HELP gameserver_memory_heap_max_bytes The game's managed heap ceiling, bytes, as the game reports it.
# TYPE gameserver_memory_heap_max_bytes gauge
# HELP gameserver_memory_resident_bytes The server process's resident memory, bytes, as the game reports it.
# TYPE gameserver_memory_resident_bytes gauge
# HELP gameserver_entities Entities in the world, as the game reports them.
# TYPE gameserver_entities gauge
gameserver_entities{target="alpha",protocol="a2s",region="eu"} 184213
# HELP gameserver_zombies Zombies alive, where the game reports them.
# TYPE gameserver_zombies gauge
# HELP gameserver_chunks_loaded World chunks loaded, where the game reports them.
# TYPE gameserver_chunks_loaded gauge
# HELP gameserver_players_joining Players connecting but not yet in the game, where the game reports them.
# TYPE gameserver_players_joining gauge
# HELP gameserver_rule_value A configured server rule whose value is a number.
# TYPE gameserver_rule_value gauge
gameserver_rule_value{target="alpha",protocol="a2s",region="eu",rule="mp_timelimit"} 25
# HELP gameserver_rule_info A configured server rule whose value is not a number; always 1.
# TYPE gameserver_rule_info gauge
gameserver_rule_info{target="alpha",protocol="a2s",region="eu",rule="sv_contact",value="admin@example.org"} 1
# HELP gameserver_player_info A player online (targets with per-player series on); always 1.
# TYPE gameserver_player_info gauge
gameserver_player_info{target="alpha",protocol="a2s",region="eu",player="Eve\"\\"} 1
gameserver_player_info{target="alpha",protocol="a2s",region="eu",player="Alice"} 1
# HELP gameserver_player_score Score of a player online (targets with per-player series on).
# TYPE gameserver_player_score gauge
gameserver_player_score{target="alpha",protocol="a2s",region="eu",player="Eve\"\\"} -1
gameserver_player_score{target="alpha",protocol="a2s",region="eu",player="Alice"} 3
# HELP gameserver_player_connected_seconds How long a player online has been connected (targets with per-player series on).
# TYPE gameserver_player_connected_seconds gauge
gameserver_player_connected_seconds{target="alpha",protocol="a2s",region="eu",player="Eve\"\\"} 0.5
gameserver_player_connected_seconds{target="alpha",protocol="a2s",region="eu",player="Alice"} 15
# HELP gameserver_player_ping_seconds Ping of a player online (targets with per-player series on).
# TYPE gameserver_player_ping_seconds gauge
# HELP gameserver_player_series_dropped Players in the last list beyond the target's max_series, not published.
# TYPE gameserver_player_series_dropped gauge
gameserver_player_series_dropped{target="alpha",protocol="a2s",region="eu"} 1
# HELP gameserver_query_duration_seconds Wall time of the last poll, DNS and retries included.
# TYPE gameserver_query_duration_seconds gauge
gameserver_query_duration_seconds{target="alpha",protocol="a2s",region="eu"} 0.04
gameserver_query_duration_seconds{target="beta",protocol="minecraft"} 0.001
# HELP gameserver_last_success_timestamp_seconds Time of the last successful poll; 0 if none yet.
# TYPE gameserver_last_success_timestamp_seconds gauge
gameserver_last_success_timestamp_seconds{target="alpha",protocol="a2s",region="eu"} 1000
gameserver_last_success_timestamp_seconds{target="beta",protocol="minecraft"} 990
# HELP gameserver_consecutive_failures Polls failed in a row; 0 after a success.
# TYPE gameserver_consecutive_failures gauge
gameserver_consecutive_failures{target="alpha",protocol="a2s",region="eu"} 0
gameserver_consecutive_failures{target="beta",protocol="minecraft"} 3
# HELP gameserver_last_player_seen_timestamp_seconds Time of the last successful poll with a player online, or of the first successful poll until one has.
# TYPE gameserver_last_player_seen_timestamp_seconds gauge
gameserver_last_player_seen_timestamp_seconds{target="alpha",protocol="a2s",region="eu"} 1000
gameserver_last_player_seen_timestamp_seconds{target="beta",protocol="minecraft"} 990
# HELP gameserver_queries_total Polls finished.
# TYPE gameserver_queries_total counter
gameserver_queries_total{target="alpha",protocol="a2s",region="eu"} 2
gameserver_queries_total{target="beta",protocol="minecraft"} 4
gameserver_queries_total{target="gamma",protocol="samp"} 0
# HELP gameserver_query_failures_total Polls failed, by reason.
# TYPE gameserver_query_failures_total counter
gameserver_query_failures_total{target="beta",protocol="minecraft",reason="timeout"} 2
gameserver_query_failures_total{target="beta",protocol="minecraft",reason="refused"} 1
# HELP gameserver_player_seconds_total Players online times the seconds between consecutive successful polls.
# TYPE gameserver_player_seconds_total counter
gameserver_player_seconds_total{target="alpha",protocol="a2s",region="eu"} 120
gameserver_player_seconds_total{target="beta",protocol="minecraft"} 0
# HELP gameserver_player_joins_total Players that appeared between consecutive player lists.
# TYPE gameserver_player_joins_total counter
gameserver_player_joins_total{target="alpha",protocol="a2s",region="eu"} 2
# HELP gameserver_player_leaves_total Players that disappeared between consecutive player lists.
# TYPE gameserver_player_leaves_total counter
gameserver_player_leaves_total{target="alpha",protocol="a2s",region="eu"} 1
# HELP gameserver_targets Configured targets by protocol.
# TYPE gameserver_targets gauge
{targets}
# HELP gameserver_exporter_build_info Build of the exporter; always 1.
# TYPE gameserver_exporter_build_info gauge
gameserver_exporter_build_info{version="0.1.0"} 1
# HELP gameserver_exporter_shard_info Share of the configured targets this replica polls (--shard I/N; 0 of 1 when not sharded); always 1.
# TYPE gameserver_exporter_shard_info gauge
gameserver_exporter_shard_info{shard="1",shards="3"} 1
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
        assert_eq!(out, TEXT.replace("{targets}\n", &targets_rows()));
    }

    /// `gameserver_targets` of [`filled`]: one row per protocol, in the vocabulary's order
    /// (a2s, minecraft and samp configured once each).
    fn targets_rows() -> String {
        Protocol::ALL
            .iter()
            .map(|p| {
                let n = u8::from(matches!(
                    p,
                    Protocol::A2s | Protocol::Minecraft | Protocol::Samp
                ));
                format!("gameserver_targets{{protocol=\"{}\"}} {n}\n", p.as_str())
            })
            .collect()
    }

    /// A page streamed in chunks is byte for byte the page rendered whole, in both formats,
    /// for a page many chunks long; a sink's error comes back.
    #[test]
    fn streamed_page_same_bytes() {
        let state = State::default();
        for i in 0..2000u32 {
            let m = Arc::new(TargetMeta::new(target(
                &format!("t{i}"),
                Protocol::A2s,
                &[("region", "eu")],
            )));
            state.insert(m.clone());
            let up = Status {
                online: i,
                name: format!("server {i}"),
                latency: Duration::from_micros(u64::from(i)),
                ..Default::default()
            };
            state.record(&m, Ok(up), Duration::from_millis(3), at(1000));
        }
        let entries = state.snapshot();
        let globals = filled().1;
        for format in [Format::Text, Format::OpenMetrics] {
            let whole = render(format, &entries, &globals);
            assert!(whole.len() > 3 * encode::CHUNK, "{}", whole.len());
            let mut sink = Vec::new();
            render_to(format, &entries, &globals, &mut sink).unwrap();
            assert!(sink == whole.as_bytes(), "streamed page differs");
        }
        struct Broken;
        impl std::io::Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("gone"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        assert!(render_to(Format::Text, &entries, &globals, &mut Broken).is_err());
    }

    /// OpenMetrics: counters typed by base name, same samples, `# EOF` at the end.
    #[test]
    fn golden_openmetrics() {
        let (entries, globals) = filled();
        let out = render(Format::OpenMetrics, &entries, &globals);
        let mut want = TEXT.replace("{targets}\n", &targets_rows());
        for counter in [
            "gameserver_queries",
            "gameserver_query_failures",
            "gameserver_player_seconds",
            "gameserver_player_joins",
            "gameserver_player_leaves",
        ] {
            want = want
                .replace(
                    &format!("# HELP {counter}_total"),
                    &format!("# HELP {counter}"),
                )
                .replace(
                    &format!("# TYPE {counter}_total counter"),
                    &format!("# TYPE {counter} counter"),
                );
        }
        let want = want + "# EOF\n";
        assert_eq!(out, want);
    }
}
