//! PROXY protocol headers on the wire: a gate on 127.0.0.1 that behaves like HAProxy with
//! `accept-proxy` (reads the v1 or v2 header, refuses a connection without one) records each
//! connection's header and forwards the rest to the Minecraft simulator. Polls through it
//! with v1, v2 and none; the legacy fallback chain (a header on every connection); and the
//! `/probe?debug=true` transcript showing the header as sent bytes.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gameserver_exporter::protocol::proxy_header::SIGNATURE;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::minecraft::{spawn, McConfig, Mode};
use gameserver_exporter::simulate::{tcp, World, WorldState};
use gameserver_exporter::status::{Failure, Reason, Status};
use gameserver_exporter::target::{Address, Protocol, ProxyProtocol};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};

use crate::support::daemon as harness;
use crate::support::http;

/// The v2 LOCAL header, byte for byte (haproxy's proxy-protocol.txt, section 2.2).
const V2_LOCAL: [u8; 16] = [
    0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x20, 0x00, 0x00, 0x00,
];

/// What the gate saw on one connection.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Seen {
    /// The header as it arrived; `None`: the connection did not start with one (refused).
    header: Option<Vec<u8>>,
    /// The client's address and the gate's, as the gate's socket has them.
    client: SocketAddr,
    gate: SocketAddr,
}

/// A gate in front of `backend`: every connection's [`Seen`], in order.
async fn gate(backend: SocketAddr) -> (SocketAddr, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    tcp::accept_loop(listener, move |mut conn, client| {
        let gate = conn.local_addr().unwrap();
        let log = log.clone();
        async move {
            let header = read_header(&mut conn).await;
            let ok = header.is_some();
            log.lock().unwrap().push(Seen {
                header,
                client,
                gate,
            });
            if !ok {
                return; // dropped: the client sees a close, as from HAProxy
            }
            let mut up = TcpStream::connect(backend).await.unwrap();
            let _ = tokio::io::copy_bidirectional(&mut conn, &mut up).await;
        }
    });
    (addr, seen)
}

/// Reads exactly one v1 or v2 header off the stream (nothing past it), like a receiver
/// would; `None` if the stream does not start with one.
async fn read_header(conn: &mut TcpStream) -> Option<Vec<u8>> {
    let mut head = vec![0u8; 16];
    tokio::time::timeout(Duration::from_secs(5), conn.read_exact(&mut head))
        .await
        .ok()?
        .ok()?;
    if head[..12] == SIGNATURE {
        let len = usize::from(u16::from_be_bytes([head[14], head[15]]));
        let mut block = vec![0u8; len];
        conn.read_exact(&mut block).await.ok()?;
        head.extend_from_slice(&block);
        return Some(head);
    }
    if !head.starts_with(b"PROXY ") {
        return None;
    }
    // v1: up to CRLF, at most 107 bytes.
    while !head.ends_with(b"\r\n") {
        if head.len() >= 107 {
            return None;
        }
        let mut b = [0u8; 1];
        conn.read_exact(&mut b).await.ok()?;
        head.push(b[0]);
    }
    Some(head)
}

fn world() -> World {
    World::new(WorldState {
        name: "Behind a Proxy".into(),
        version: "1.21.4".into(),
        max: 40,
        players: vec![("Alex".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

async fn poll_via(gate: SocketAddr, version: Option<ProxyProtocol>) -> Result<Status, Failure> {
    let mut req = Request::new(
        Protocol::Minecraft,
        Address::parse(&gate.to_string()).unwrap(),
    );
    req.timeout = Duration::from_secs(2);
    req.proxy_protocol = version;
    poll(&req).await
}

fn seen(log: &Mutex<Vec<Seen>>) -> Vec<Seen> {
    log.lock().unwrap().clone()
}

/// v2: the status comes through, and the one connection started with the 16-byte LOCAL
/// header and nothing else of the PROXY protocol.
#[tokio::test]
async fn v2_sends_local() {
    let sim = spawn(world(), McConfig::default()).await.unwrap();
    let (addr, log) = gate(sim.addr).await;
    let s = poll_via(addr, Some(ProxyProtocol::V2)).await.unwrap();
    assert_eq!(
        (s.name.as_str(), s.online, s.max),
        ("Behind a Proxy", 1, 40)
    );
    let seen = seen(&log);
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].header.as_deref(), Some(&V2_LOCAL[..]));
}

/// v1: the status comes through, and the header names the connection's own endpoints,
/// the exporter's address and port first, the server's second.
#[tokio::test]
async fn v1_names_real_endpoints() {
    let sim = spawn(world(), McConfig::default()).await.unwrap();
    let (addr, log) = gate(sim.addr).await;
    let s = poll_via(addr, Some(ProxyProtocol::V1)).await.unwrap();
    assert_eq!(
        (s.name.as_str(), s.online, s.max),
        ("Behind a Proxy", 1, 40)
    );
    let seen = seen(&log);
    assert_eq!(seen.len(), 1, "{seen:?}");
    let (c, g) = (seen[0].client, seen[0].gate);
    let want = format!(
        "PROXY TCP4 {} {} {} {}\r\n",
        c.ip(),
        g.ip(),
        c.port(),
        g.port()
    );
    assert_eq!(seen[0].header.as_deref(), Some(want.as_bytes()));
}

/// No header: the gate refuses every connection, so the poll fails; each of its attempts
/// (the 1.7+ ping, its retry, the legacy pings) was a connection without a header.
#[tokio::test]
async fn none_is_refused() {
    let sim = spawn(world(), McConfig::default()).await.unwrap();
    let (addr, log) = gate(sim.addr).await;
    let f = poll_via(addr, None).await.unwrap_err();
    // The refusal leaves the request unread, so the close is a reset (HAProxy's too).
    assert_eq!(f.reason, Reason::Network, "{f:?}");
    let seen = seen(&log);
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|s| s.header.is_none()), "{seen:?}");
}

/// A legacy server: the fallback chain opens a connection per attempt, and each one
/// starts with its own header (v1: its own source port).
#[tokio::test]
async fn every_connection_gets_a_header() {
    let sim = spawn(
        world(),
        McConfig {
            mode: Mode::Legacy14,
            ..McConfig::default()
        },
    )
    .await
    .unwrap();
    for version in ProxyProtocol::ALL {
        let (addr, log) = gate(sim.addr).await;
        let s = poll_via(addr, Some(version)).await.unwrap();
        assert_eq!((s.online, s.max), (1, 40));
        assert!(s.extras.contains_key("legacy"), "{s:?}");
        let seen = seen(&log);
        assert!(seen.len() >= 2, "{version}: {seen:?}");
        for c in &seen {
            let header = c.header.as_deref().unwrap();
            match version {
                ProxyProtocol::V2 => assert_eq!(header, V2_LOCAL),
                ProxyProtocol::V1 => {
                    let port = format!(" {} {}\r\n", c.client.port(), c.gate.port());
                    assert!(header.ends_with(port.as_bytes()), "{header:?}");
                }
            }
        }
    }
}

/// A configured target with `proxy_protocol = "v2"` in the daemon: `/probe?debug=true` finds
/// it up through the gate, and its transcript shows the header as sent bytes, before the
/// handshake.
#[tokio::test]
async fn daemon_and_transcript() {
    let sim = spawn(world(), McConfig::default()).await.unwrap();
    let (addr, _log) = gate(sim.addr).await;
    let config = format!(
        "[exporter]\ninterval = \"24h\"\ntimeout = \"2s\"\n{}",
        harness::target(
            "mc",
            "minecraft",
            &addr.to_string(),
            "proxy_protocol = \"v2\"\n"
        )
    );
    // The scheduler's first poll may come any time in the 24 h: `/probe` polls now.
    let d = harness::start(&config, Arc::new(QueryProber)).await;
    let reply = http::plain(d.addr, "GET", "/probe?target=mc&debug=true", "")
        .await
        .unwrap();
    let body = reply.text();
    assert!(
        body.contains("  proxy     PROXY protocol v2 header first\n"),
        "{body}"
    );
    let lines: Vec<&str> = body.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.ends_with("] sent PROXY protocol v2 header (LOCAL): 16 bytes"))
        .unwrap_or_else(|| panic!("{body}"));
    assert_eq!(
        lines[at + 1].trim(),
        "0000  0d 0a 0d 0a 00 0d 0a 51  55 49 54 0a 20 00 00 00  |.......QUIT. ...|"
    );
    assert!(
        lines[at + 2].contains("] sent handshake + status request: "),
        "{body}"
    );
    assert!(body.contains("finished: up"), "{body}");
    assert!(
        body.contains("gameserver_up{target=\"mc\",protocol=\"minecraft\"} 1\n"),
        "{body}"
    );
    d.stop().await;
}
