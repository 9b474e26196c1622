//! The simulator mode that closes on unknown handshake protocol numbers, spoken to with raw
//! frames: the `-1` status handshake gets the connection closed without a byte, a known
//! number gets the status. (The exporter's retry with a concrete number, through `query` and
//! the daemon, lands with the dialogue rewrite.)

use std::time::Duration;

use gameserver_exporter::protocol::minecraft::slp::{
    self, Handshake, NEXT_STATE_STATUS, PROTOCOL_VERSION_PING, PROTOCOL_VERSION_RETRY,
};
use gameserver_exporter::protocol::minecraft::varint::decode_frame;
use gameserver_exporter::simulate::minecraft::{spawn, McConfig};
use gameserver_exporter::simulate::{World, WorldState};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

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
