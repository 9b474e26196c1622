//! `demo`: every protocol's simulator comes up and is polled within 10 s of start; with
//! `--allow-probes`, a blackbox-style probe of a simulator's address answers.

use std::time::{Duration, Instant};

use gameserver_exporter::demo;
use gameserver_exporter::target::Protocol;
use tokio::net::TcpListener;

use crate::support::http;

async fn metrics(addr: std::net::SocketAddr) -> String {
    http::get_ok(addr, "/metrics").await
}

/// Every started simulator comes up, with players online.
#[tokio::test]
async fn demo_brings_every_protocol_up() {
    let started = Instant::now();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let options = demo::Options { allow_probes: true };
    let task = tokio::spawn(demo::run_on(listener, options, async {
        let _ = rx.await;
    }));
    // Every protocol's simulator starts and is configured: one target per protocol.
    loop {
        let body = metrics(addr).await;
        if body.contains("gameserver_targets") {
            for p in Protocol::ALL {
                // A2S also carries the console titles.
                let n = if p == Protocol::A2s {
                    1 + demo::CONSOLE_TITLES.len()
                } else {
                    1
                };
                let line = format!("gameserver_targets{{protocol=\"{p}\"}} {n}");
                assert!(body.contains(&line), "no demo target for {p}:\n{body}");
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let expected = (Protocol::ALL.len() + demo::CONSOLE_TITLES.len()) as u32;
    // Health and console families, each from its own simulator: Satisfactory's HTTPS API
    // (token, pinned certificate), the A2S server's srcds console (`stats`), and each console
    // title's console. A console that missed a poll's timeout on a loaded machine fills in
    // on a later poll, so these are waited for, not expected on the first.
    let families = [
        ("demo-satisfactory", "gameserver_tick_rate_hertz{"),
        ("demo-a2s", "gameserver_frame_rate_hertz{"),
        ("demo-rust", "gameserver_entities{"),
        ("demo-rust", "gameserver_players_joining{"),
        ("demo-rust", "gameserver_memory_resident_bytes{"),
        ("demo-sdtd", "gameserver_zombies{"),
        ("demo-sdtd", "gameserver_chunks_loaded{"),
        ("demo-sdtd", "gameserver_memory_heap_bytes{"),
        ("demo-projectzomboid", "gameserver_player_info{"),
        ("demo-conanexiles", "gameserver_player_info{"),
    ];
    loop {
        let body = metrics(addr).await;
        let up = body
            .lines()
            .filter(|l| l.starts_with("gameserver_up{") && l.ends_with(" 1"))
            .count() as u32;
        let missing: Vec<_> = families
            .iter()
            .filter(|(target, family)| {
                let label = format!("target=\"{target}\"");
                !body
                    .lines()
                    .any(|l| l.starts_with(family) && l.contains(&label))
            })
            .collect();
        if up == expected && missing.is_empty() {
            assert!(body.contains("env=\"demo\""));
            assert!(body.contains("gameserver_players_online{"));
            break;
        }
        assert!(
            started.elapsed() < crate::support::daemon::DEADLINE,
            "only {up} of {expected} up, missing {missing:?}:\n{body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // `--allow-probes`: the README's blackbox-style probe, by module, of a simulator's address.
    let targets: serde_json::Value =
        serde_json::from_str(&http::get_ok(addr, "/api/v1/targets").await).unwrap();
    let minecraft = targets["targets"]
        .as_array()
        .and_then(|ts| ts.iter().find(|t| t["name"] == "demo-minecraft"))
        .and_then(|t| t["address"].as_str())
        .map(str::to_string)
        .expect("the demo's minecraft target and its address");
    let probe = http::get_ok(addr, &format!("/probe?module=minecraft&target={minecraft}")).await;
    assert!(
        probe
            .lines()
            .any(|l| l.starts_with("gameserver_up{") && l.ends_with(" 1")),
        "{probe}"
    );
    let _ = tx.send(());
    task.await.unwrap().unwrap();
}
