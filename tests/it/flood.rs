//! Flood-protected servers polled by the real daemon, poll after poll (issue 12's "must
//! hold"): DarkPlaces drops any request from an address within about a second of the last one
//! it answered, and some Teeworlds mods do the same per request kind. The daemon polls each
//! every interval; with the registry's minimum gap no request is ever sent too soon, so no
//! poll fails and the server drops nothing. A lossy flood-protected server still answers,
//! because the resend waits out the gap instead of being dropped.
//!
//! The test counts polls instead of watching the clock: it waits until every target has been
//! polled [`POLLS`] times (each poll after the first is one more gap the daemon had to keep),
//! which took a minute when it slept for one; the deadline only bounds a hung daemon.

use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::quake3::{self, Flavour, Quake3Config, DARKPLACES_FLOOD_GAP};
use gameserver_exporter::simulate::teeworlds::{self, Misbehaviour, TeeworldsConfig};
use gameserver_exporter::simulate::{World, WorldState};

use crate::support::daemon as harness;
use harness::{metrics, start, target};

/// Polls of each target before the verdict: the 2 s targets' (the lossy one, polled every
/// 4 s, gets half as many). Five gaps each, every one of which a too-early request would
/// have been dropped in.
const POLLS: f64 = 6.0;

/// Only a hung daemon takes this long; a loaded machine just takes longer to get there.
const DEADLINE: Duration = Duration::from_secs(180);

/// The value of the sample named exactly `series` (name and labels), if present.
fn sample(body: &str, series: &str) -> Option<f64> {
    body.lines()
        .find_map(|l| l.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn flood_protected_servers_never_fail_poll_after_poll() {
    let world = || World::new(WorldState::default());
    let dp = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        ..Quake3Config::default()
    };
    let dp_counters = dp.counters.clone();
    let dp_server = quake3::spawn(world(), dp).await.unwrap();
    let lossy = Quake3Config {
        flavour: Flavour::DarkPlaces,
        flood_gap: Some(DARKPLACES_FLOOD_GAP),
        lossy: true,
        ..Quake3Config::default()
    };
    let lossy_counters = lossy.counters.clone();
    let lossy_server = quake3::spawn(world(), lossy).await.unwrap();
    let tw = TeeworldsConfig {
        misbehaviour: Misbehaviour::FloodProtected(Duration::from_secs(1)),
        ..TeeworldsConfig::default()
    };
    let tw_server = teeworlds::spawn(world(), tw).await.unwrap();

    // Intervals an operator would pick for such servers; the lossy one needs a timeout that
    // leaves room for one resend after the 1.1 s gap.
    let text = format!(
        "[exporter]\ninterval = \"2s\"\ntimeout = \"1500ms\"\n{}{}{}",
        target("dp", "quake3", &dp_server.addr.to_string(), ""),
        target(
            "dp-lossy",
            "quake3",
            &lossy_server.addr.to_string(),
            "interval = \"4s\"\ntimeout = \"3s\"\n"
        ),
        target("tw", "teeworlds", &tw_server.addr.to_string(), ""),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let want = [
        ("dp", "quake3", POLLS),
        ("dp-lossy", "quake3", POLLS / 2.0),
        ("tw", "teeworlds", POLLS),
    ];
    let queries = |body: &str, name: &str, protocol: &str| {
        let labels = format!("{{target=\"{name}\",protocol=\"{protocol}\"}}");
        sample(body, &format!("gameserver_queries_total{labels}"))
    };
    let started = std::time::Instant::now();
    let body = loop {
        let body = metrics(d.addr).await;
        if want
            .iter()
            .all(|(n, p, at_least)| queries(&body, n, p).is_some_and(|q| q >= *at_least))
        {
            break body;
        }
        assert!(started.elapsed() < DEADLINE, "polls stalled\n{body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    d.stop().await;

    for (name, protocol, _) in want {
        let labels = format!("{{target=\"{name}\",protocol=\"{protocol}\"}}");
        assert_eq!(
            sample(&body, &format!("gameserver_up{labels}")),
            Some(1.0),
            "{name}\n{body}"
        );
        let failures: Vec<&str> = body
            .lines()
            .filter(|l| {
                l.starts_with("gameserver_query_failures_total{")
                    && l.contains(&format!("target=\"{name}\""))
                    && !l.ends_with(" 0")
            })
            .collect();
        assert!(failures.is_empty(), "{name}: {failures:?}");
    }
    assert_eq!(
        dp_counters.flooded(),
        0,
        "the daemon asked the DarkPlaces server too soon"
    );
    assert_eq!(
        lossy_counters.flooded(),
        0,
        "a resend came inside the flood gap"
    );
    assert!(lossy_counters.lost() > 0, "the lossy server lost nothing");
}
