//! `demo`: every protocol's simulator comes up and is polled within 10 s of start.

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
    let task = tokio::spawn(demo::run_on(listener, async {
        let _ = rx.await;
    }));
    // Every protocol's simulator starts and is configured: one target per protocol.
    loop {
        let body = metrics(addr).await;
        if body.contains("gameserver_targets") {
            for p in Protocol::ALL {
                let line = format!("gameserver_targets{{protocol=\"{p}\"}} 1");
                assert!(body.contains(&line), "no demo target for {p}:\n{body}");
            }
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let expected = Protocol::ALL.len() as u32;
    loop {
        let body = metrics(addr).await;
        let up = body
            .lines()
            .filter(|l| l.starts_with("gameserver_up{") && l.ends_with(" 1"))
            .count() as u32;
        if up == expected {
            assert!(body.contains("env=\"demo\""));
            assert!(body.contains("gameserver_players_online{"));
            // Satisfactory's HTTPS API answered the demo target (token, pinned certificate).
            assert!(
                body.lines()
                    .any(|l| l.starts_with("gameserver_tick_rate_hertz{")
                        && l.contains("target=\"demo-satisfactory\"")),
                "{body}"
            );
            break;
        }
        assert!(
            started.elapsed() < crate::support::daemon::DEADLINE,
            "only {up} of {expected} up:\n{body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let _ = tx.send(());
    task.await.unwrap().unwrap();
}
