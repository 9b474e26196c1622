//! Java servers that close on the `-1` handshake: the simulator mode that closes on unknown
//! protocol numbers, spoken to with raw frames, then the exporter's retry with a concrete
//! number through the dialogue, the `query` command and the daemon.

use std::time::Duration;

use gameserver_exporter::protocol::minecraft::slp::{
    self, Handshake, NEXT_STATE_STATUS, PROTOCOL_VERSION_PING, PROTOCOL_VERSION_RETRY,
};
use gameserver_exporter::protocol::minecraft::varint::decode_frame;
use gameserver_exporter::simulate::minecraft::{spawn, McConfig};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use gameserver_exporter::query::{self, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::SimServer;
use gameserver_exporter::target::{Address, Protocol};

use crate::support::daemon as harness;
use harness::{start, target, wait_for};

/// Sends a status handshake announcing `protocol` and a status request; returns every byte
/// the server sent before closing (or 2 s passing).
async fn status_bytes(addr: std::net::SocketAddr, protocol: i32) -> Vec<u8> {
    let mut s = TcpStream::connect(addr).await.unwrap();
    let mut out = Vec::new();
    slp::encode_handshake(
        &Handshake {
            protocol_version: protocol,
            address: "localhost".into(),
            port: addr.port(),
            next_state: NEXT_STATE_STATUS,
        },
        &mut out,
    );
    slp::encode_status_request(&mut out);
    s.write_all(&out).await.unwrap();
    let mut got = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(2), s.read(&mut chunk)).await {
            Ok(Ok(0)) | Ok(Err(_)) | Err(_) => return got,
            Ok(Ok(n)) => {
                got.extend_from_slice(&chunk[..n]);
                // The status response is complete: done.
                if let Ok(Some(_)) = decode_frame(&got, 1 << 20) {
                    return got;
                }
            }
        }
    }
}

/// `-1` and unknown numbers are refused with a silent close; a known one is answered, and
/// the server logs every handshake it saw.
#[tokio::test]
async fn closes_on_unknown_protocol_numbers() {
    let config = McConfig {
        known_protocols: Some(vec![763, PROTOCOL_VERSION_RETRY]),
        ..McConfig::default()
    };
    let seen = config.seen.clone();
    let sim = spawn(
        World::new(WorldState {
            name: "Strict".into(),
            max: 5,
            ..WorldState::default()
        }),
        config,
    )
    .await
    .unwrap();
    assert!(status_bytes(sim.addr, PROTOCOL_VERSION_PING)
        .await
        .is_empty());
    assert!(status_bytes(sim.addr, 4).await.is_empty());
    // The number the exporter retries with is answered.
    let reply = status_bytes(sim.addr, PROTOCOL_VERSION_RETRY).await;
    let (frame, _) = decode_frame(&reply, 1 << 20).unwrap().unwrap();
    let status = slp::decode_status_response(&frame).unwrap();
    assert_eq!(status.max, Some(5));
    let versions: Vec<i32> = seen
        .snapshot()
        .handshakes
        .iter()
        .map(|h| h.protocol_version)
        .collect();
    assert_eq!(versions, [-1, 4, 47]);
}

/// Without the knob any number is accepted, `-1` included (vanilla behaviour).
#[tokio::test]
async fn vanilla_accepts_minus_one() {
    let sim = spawn(World::new(WorldState::default()), McConfig::default())
        .await
        .unwrap();
    assert!(!status_bytes(sim.addr, PROTOCOL_VERSION_PING)
        .await
        .is_empty());
}

/// A server that knows only 1.8 and today's protocol, as such implementations do.
async fn strict() -> (SimServer, gameserver_exporter::simulate::minecraft::Seen) {
    let config = McConfig {
        known_protocols: Some(vec![PROTOCOL_VERSION_RETRY, 763]),
        ..McConfig::default()
    };
    let seen = config.seen.clone();
    let world = World::new(WorldState {
        name: "Strict".into(),
        max: 12,
        players: vec![("alice".into(), 0, 0.0)],
        ..WorldState::default()
    });
    (spawn(world, config).await.unwrap(), seen)
}

/// The dialogue retries with 47 after the silent close and gets the 1.7+ status: not the
/// legacy pings, not `incomplete`.
#[tokio::test]
async fn dialogue_retries_with_47() {
    let (sim, seen) = strict().await;
    let mut req = Request::new(
        Protocol::Minecraft,
        Address::parse(&sim.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    let s = query::poll(&req).await.unwrap();
    assert_eq!((s.name.as_str(), s.online, s.max), ("Strict", 1, 12));
    assert!(s.extras.get("legacy").is_none(), "{:?}", s.extras);
    let versions: Vec<i32> = seen
        .snapshot()
        .handshakes
        .iter()
        .map(|h| h.protocol_version)
        .collect();
    assert_eq!(versions, [PROTOCOL_VERSION_PING, PROTOCOL_VERSION_RETRY]);
}

/// `query minecraft` exits 0 with the true counts against the strict server.
#[test]
fn query_command_retries() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let (sim, _) = rt.block_on(strict());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
        .args(["query", "minecraft", &sim.addr.to_string(), "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["online"].as_u64(), v["max"].as_u64()),
        (Some(1), Some(12))
    );
    assert_eq!(v["name"], "Strict");
    drop(sim);
}

/// The daemon reports the strict server up with its gauges, poll after poll.
#[tokio::test]
async fn daemon_gauges_after_retry() {
    let (sim, seen) = strict().await;
    let text = format!(
        "[exporter]\ninterval = \"300ms\"\ntimeout = \"250ms\"\n{}",
        target("strict", "minecraft", &sim.addr.to_string(), ""),
    );
    let d = start(&text, std::sync::Arc::new(QueryProber)).await;
    let body = wait_for(
        d.addr,
        &[
            "gameserver_up{target=\"strict\",protocol=\"minecraft\"} 1",
            "gameserver_players_online{target=\"strict\",protocol=\"minecraft\"} 1",
            "gameserver_players_max{target=\"strict\",protocol=\"minecraft\"} 12",
        ],
    )
    .await;
    assert!(
        !body.contains("gameserver_query_failures_total{target=\"strict\""),
        "{body}"
    );
    d.stop().await;
    let retries = seen
        .snapshot()
        .handshakes
        .iter()
        .filter(|h| h.protocol_version == PROTOCOL_VERSION_RETRY)
        .count();
    assert!(retries >= 1);
}
