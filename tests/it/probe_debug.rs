//! `/probe?...&debug=true` against the daemon in-process with the real dialogues: the
//! transcript of an A2S poll (request bytes, challenge round, reply, series), a Minecraft poll
//! (TCP chunks), a malformed reply (the decoder's error and offset), a 64 KiB reply (caps), the
//! ad-hoc form (resolution and allow-list), and the refusals `/probe` makes.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::support::daemon as harness;
use crate::support::http;
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::{self, World, WorldState};
use harness::{start, target};
use tokio::net::UdpSocket;

async fn get(addr: SocketAddr, path: &str) -> http::Text {
    http::request_text(addr, "GET", path, "").await
}

fn world() -> WorldState {
    WorldState {
        name: "evil\u{1b}[2J\u{202e}name".into(),
        map: "de_dust2".into(),
        game: "Counter-Strike".into(),
        version: "1.0".into(),
        max: 16,
        bots: 0,
        players: vec![("alice".into(), 5, 10.0)],
        rules: Vec::new(),
        password: false,
    }
}

/// The event lines (`[+ ... ms] ...`) of a transcript, without their times.
fn events(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|l| l.starts_with("[+"))
        .filter_map(|l| l.split_once("] ").map(|(_, e)| e))
        .collect()
}

/// A UDP server on 127.0.0.1 that answers every datagram with `reply`.
async fn udp_replying(reply: Vec<u8>) -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let s = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    let addr = s.local_addr().unwrap();
    let task = tokio::spawn(async move {
        let mut buf = [0u8; 2048];
        while let Ok((_, from)) = s.recv_from(&mut buf).await {
            let _ = s.send_to(&reply, from).await;
        }
    });
    (addr, task)
}

const EXPORTER: &str = "[exporter]\ninterval = \"24h\"\ntimeout = \"1s\"\n";

/// An A2S server that demands a challenge: the transcript shows the request bytes, the
/// challenge and the request with it, the reply, the outcome and the series; without debug
/// (or with debug=false) /probe answers exactly as before.
#[tokio::test]
async fn a2s_transcript() {
    let sim = simulate::a2s::spawn(
        World::new(world()),
        simulate::a2s::A2sConfig {
            challenge: simulate::a2s::Challenge::Fixed([0x0a, 0x0b, 0x0c, 0x0d]),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let text = format!(
        "{EXPORTER}{}",
        target("a2s", "a2s", &sim.addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=a2s&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.head
            .to_ascii_lowercase()
            .contains("content-type: text/plain; charset=utf-8"),
        "{}",
        r.head
    );
    let body = &r.body;
    assert_eq!(
        events(body),
        [
            "poll starts",
            &format!("peer {} (udp)", sim.addr),
            "sent A2S_INFO: 25 bytes",
            "received: 9 bytes",
            "sent A2S_INFO with the new challenge (challenge round 1): 29 bytes",
            events(body)[5],
            "finished: up",
        ],
        "{body}"
    );
    assert!(events(body)[5].starts_with("received: "), "{body}");
    // The request, byte for byte: header, 'T', "Source Engine Query\0".
    assert!(body.contains(
        "  0000  ff ff ff ff 54 53 6f 75  72 63 65 20 45 6e 67 69  |....TSource Engi|\n"
    ));
    // The challenge (type 'A') and the request carrying it back.
    assert!(
        body.contains("  0000  ff ff ff ff 41 0a 0b 0c  0d                       |....A....|\n")
    );
    assert!(body
        .contains("  0010  6e 65 20 51 75 65 72 79  00 0a 0b 0c 0d           |ne Query.....|\n"));
    // The info reply (type 'I').
    assert!(body.contains("  0000  ff ff ff ff 49 "), "{body}");
    assert!(body.contains("  up: 1 of 16 players online"), "{body}");
    assert!(body.contains("challenge rounds 1;"), "{body}");
    // The hostile name is escaped in the outcome; the series have it cleaned as /probe does.
    assert!(
        body.contains("  name \"evil\\u{1b}[2J\\u{202e}name\"\n"),
        "{body}"
    );
    assert!(body.chars().all(|c| c == '\n' || !c.is_control()));
    let series = body
        .split_once("Metrics that /probe returns without debug=true:\n")
        .unwrap()
        .1;
    assert!(series.contains("gameserver_up{target=\"a2s\",protocol=\"a2s\"} 1\n"));

    // Without debug, and with debug=false: the exposition as before.
    for path in ["/probe?target=a2s", "/probe?target=a2s&debug=false"] {
        let r = get(d.addr, path).await;
        assert_eq!(r.status, 200);
        assert!(r.head.contains("version=0.0.4"), "{}", r.head);
        assert!(r.body.starts_with("# HELP"), "{}", r.body);
        assert!(!r.body.contains("Transcript"));
        // Times differ between polls; otherwise the series are the same (the exposition
        // drops the bidirectional override, so the transcript has nothing left to escape).
        let same = |l: &&str| {
            !l.starts_with("gameserver_query_duration_seconds{")
                && !l.starts_with("gameserver_latency_seconds{")
        };
        assert!(!r.body.contains('\u{202e}'), "{}", r.body);
        assert_eq!(
            r.body.lines().filter(same).collect::<Vec<_>>(),
            series.lines().filter(same).collect::<Vec<_>>()
        );
    }
    d.stop().await;
}

/// Minecraft over TCP: the connection, the handshake sent, and the reply in several chunks.
#[tokio::test]
async fn minecraft_transcript_shows_chunks() {
    let sim = simulate::minecraft::spawn(
        World::new(world()),
        simulate::minecraft::McConfig {
            chunks: Some((64, Duration::from_millis(20))),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let text = format!(
        "{EXPORTER}{}",
        target("mc", "minecraft", &sim.addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=mc&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let ev = events(&r.body);
    assert_eq!(ev[1], format!("peer {} (tcp)", sim.addr), "{}", r.body);
    assert_eq!(ev[2], "connected");
    assert!(
        ev[3].starts_with("sent handshake + status request: "),
        "{}",
        r.body
    );
    let chunks = ev.iter().filter(|e| e.starts_with("received: ")).count();
    assert!(chunks >= 3, "{}", r.body);
    assert!(ev.contains(&"sent ping: 10 bytes"), "{}", r.body);
    assert_eq!(ev.last(), Some(&"finished: up"));
    // 64-byte chunks: four full dump lines each.
    assert!(r.body.contains("received: 64 bytes\n"), "{}", r.body);
    assert!(r
        .body
        .contains("gameserver_up{target=\"mc\",protocol=\"minecraft\"} 1\n"));
    d.stop().await;
}

/// A reply that breaks off inside the server name: `malformed`, the decoder's error with its
/// offset, and the offset marked in the datagram.
#[tokio::test]
async fn malformed_reply_shows_offset() {
    // Header, 'I', protocol 17, then a name without its terminating NUL.
    let (addr, server) = udp_replying(b"\xff\xff\xff\xffI\x11AB".to_vec()).await;
    let text = format!(
        "[exporter]\ninterval = \"24h\"\ntimeout = \"300ms\"\n{}",
        target("bad", "a2s", &addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=bad&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let body = &r.body;
    assert!(body.contains("  0000  ff ff ff ff 49 11 41 42  "), "{body}");
    assert!(body.contains("  down: reason malformed\n"), "{body}");
    assert!(
        body.contains("  decoder error: unterminated string at offset 6\n"),
        "{body}"
    );
    assert!(
        body.contains(
            "  failed at byte offset 6 of the message the decoder read\n\
         \x20 offset 6 in the last datagram received (if the reply was that one datagram):\n\
         \x20   0000  ff ff ff ff 49 11 41 42                           |....I.AB|\n\
         \x20                           ^^\n"
        ),
        "{body}"
    );
    assert!(body.contains("gameserver_up{target=\"bad\",protocol=\"a2s\"} 0\n"));
    server.abort();
    d.stop().await;
}

/// A 64 KiB datagram: its first 1024 bytes are dumped, the rest is announced as cut, and the
/// transcript stays small.
#[tokio::test]
async fn large_reply_capped() {
    let (addr, server) = udp_replying(vec![0x41; 65_000]).await;
    let text = format!(
        "[exporter]\ninterval = \"24h\"\ntimeout = \"300ms\"\n{}",
        target("big", "a2s", &addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=big&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r.body.contains("received: 65000 bytes\n"), "{}", r.body);
    assert!(r
        .body
        .contains("(63976 of 65000 bytes not shown: the limit of 1024 bytes per packet)\n"));
    assert!(r.body.contains("  down: reason malformed\n"), "{}", r.body);
    assert!(r.body.len() < 32 * 1024, "{}", r.body.len());
    server.abort();
    d.stop().await;
}

/// The ad-hoc form: the resolution and the allowed network it fell in are in the transcript;
/// an address outside the allowed networks, a bad or repeated debug value are refused as
/// /probe refuses.
#[tokio::test]
async fn ad_hoc_and_refusals() {
    let sim = simulate::a2s::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let text = "[exporter]\ninterval = \"24h\"\ntimeout = \"1s\"\n\
                probe_allowed_networks = [\"127.0.0.0/8\"]\n";
    let d = start(text, Arc::new(QueryProber)).await;
    let port = sim.addr.port();
    let r = get(
        d.addr,
        &format!("/probe?protocol=a2s&address=localhost:{port}&debug=true"),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let ev = events(&r.body);
    assert_eq!(
        ev[0],
        format!(
            "resolved \"localhost:{port}\" to 127.0.0.1:{port}, inside allowed network 127.0.0.0/8"
        ),
        "{}",
        r.body
    );
    assert_eq!(ev.last(), Some(&"finished: up"));
    assert!(r.body.contains("  name      \"localhost:"), "{}", r.body);

    let r = get(d.addr, "/probe?protocol=a2s&address=10.1.2.3&debug=true").await;
    assert_eq!(r.status, 403);
    assert!(!r.body.contains("Transcript"));
    let r = get(d.addr, "/probe?protocol=a2s&address=127.0.0.1&debug=yes").await;
    assert_eq!(r.status, 400);
    assert_eq!(r.body, "debug must be true or false, not \"yes\"\n");
    let r = get(
        d.addr,
        "/probe?protocol=a2s&address=127.0.0.1&debug=false&debug=true",
    )
    .await;
    assert_eq!(r.status, 400);
    assert_eq!(
        get(d.addr, "/probe?target=nope&debug=true").await.status,
        404
    );
    d.stop().await;
}

/// The landing page links each target's transcript next to its probe.
#[tokio::test]
async fn landing_page_links_debug() {
    let text = format!("{EXPORTER}{}", target("a b", "a2s", "127.0.0.1:9", ""));
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/").await;
    assert!(
        r.body.contains(
            "<a href=\"/probe?target=a%20b\">probe</a> \
             <a href=\"/probe?target=a%20b&amp;debug=true\">debug</a>"
        ),
        "{}",
        r.body
    );
    d.stop().await;
}

/// A server that answers every request with a flood of junk datagrams: the transcript stays
/// bounded, says what it left out, and holds no raw control characters.
#[tokio::test]
async fn junk_flood_bounded() {
    let sim = simulate::a2s::spawn(
        World::new(world()),
        simulate::a2s::A2sConfig {
            misbehaviour: simulate::a2s::Misbehaviour::JunkFlood,
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let text = format!(
        "[exporter]\ninterval = \"24h\"\ntimeout = \"1500ms\"\n{}",
        target("flood", "a2s", &sim.addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=flood&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let body = &r.body;
    assert!(
        body.contains("more events not shown: the limit is 256)\n"),
        "{body}"
    );
    assert!(body.contains("  down: reason "), "{body}");
    assert!(body.len() < 100 * 1024, "{}", body.len());
    assert!(body.chars().all(|c| c == '\n' || !c.is_control()));
    d.stop().await;
}

/// A protocol added through the registry gets transcripts without code of its own: Quake 3
/// `getstatus` (out-of-band header `ff ff ff ff`) and its reply.
#[tokio::test]
async fn quake3_transcript() {
    let sim = simulate::quake3::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let text = format!(
        "{EXPORTER}{}",
        target("q3", "quake3", &sim.addr.to_string(), "")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let r = get(d.addr, "/probe?target=q3&debug=true").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let ev = events(&r.body);
    assert_eq!(ev[1], format!("peer {} (udp)", sim.addr), "{}", r.body);
    assert!(ev[2].starts_with("sent "), "{}", r.body);
    assert!(
        r.body.contains("  0000  ff ff ff ff 67 65 74 73  "),
        "{}",
        r.body
    );
    assert!(ev.iter().any(|e| e.starts_with("received: ")), "{}", r.body);
    assert_eq!(ev.last(), Some(&"finished: up"), "{}", r.body);
    assert!(r
        .body
        .contains("gameserver_up{target=\"q3\",protocol=\"quake3\"} 1\n"));
    d.stop().await;
}
