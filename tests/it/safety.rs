//! The exporter cannot be turned against others or knocked over: /probe sends traffic only
//! to configured targets or to resolved IPs inside `probe_allowed_networks`; the reply and
//! retry limits in the configuration are the ones applied; and the HTTP server survives slow,
//! oversized, body-carrying, malformed and massively concurrent clients.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::support::daemon as harness;
use crate::support::http;
use gameserver_exporter::protocol::a2s::split::{Format, SplitOptions};
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober, QueryProber};
use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::status::{Failure, Status};
use harness::{start, target};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Records every address it is asked to poll; answers up, after `delay`, tracking how many
/// polls are in flight at once.
#[derive(Default)]
struct Recorder {
    /// Every poll, scheduled ones included.
    polled: Mutex<Vec<String>>,
    /// Polls from /probe only. A configured target's scheduled first poll may come at any
    /// point of its interval, start-up included; those carry the scheduler's shared UDP
    /// sockets (`Request::mux`), which /probe never passes.
    probed: Mutex<Vec<String>>,
    delay: Duration,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

impl Prober for Recorder {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        self.polled.lock().unwrap().push(req.address.to_string());
        if req.mux.is_none() {
            self.probed.lock().unwrap().push(req.address.to_string());
        }
        Box::pin(async move {
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.max_in_flight.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(self.delay).await;
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            Ok::<_, Failure>(Status {
                online: 1,
                max: 2,
                name: "x".into(),
                ..Default::default()
            })
        })
    }
}

/// Sends raw bytes, returns (status, body) of the reply; status 0 if the server closed
/// without answering.
async fn raw(addr: SocketAddr, req: &[u8]) -> (u16, String) {
    status_body(http::raw(addr, req).await)
}

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    status_body(http::plain(addr, "GET", path, "").await)
}

fn status_body(reply: Option<http::Reply>) -> (u16, String) {
    match reply {
        Some(r) => (r.status, String::from_utf8_lossy(&r.body).into_owned()),
        None => (0, String::new()),
    }
}

/// Polled on its own at most once in a test: the first scheduled poll falls somewhere in the
/// 24 h, start-up included; /probe does the rest.
const IDLE: &str = "[exporter]\ninterval = \"24h\"\ntimeout = \"1s\"\n";

/// A name resolving outside the allowed networks is refused before any traffic; one inside
/// is polled at the IP that was checked, never re-resolved; configured targets cannot be
/// redirected with an extra address parameter.
#[tokio::test]
async fn probe_polls_only_the_checked_ip() {
    let rec = Arc::new(Recorder::default());
    let text = format!(
        "[exporter]\ninterval = \"24h\"\nprobe_allowed_networks = [\"10.0.0.0/8\", \"::1/128\"]\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    );
    let d = start(&text, rec.clone()).await;
    let (status, body) = get(d.addr, "/probe?protocol=samp&address=localhost:7777").await;
    assert_eq!(status, 403, "{body}");
    assert!(body.contains("resolves to 127.0.0.1"), "{body}");
    let (status, _) = get(d.addr, "/probe?protocol=samp&address=127.0.0.1:7777").await;
    assert_eq!(status, 403);
    let (status, _) = get(d.addr, "/probe?protocol=minecraft&address=192.168.1.1").await;
    assert_eq!(status, 403);
    // A configured name plus an address is ambiguous, not a redirect.
    let (status, _) = get(d.addr, "/probe?target=t&address=127.0.0.1").await;
    assert_eq!(status, 400);
    assert!(rec.probed.lock().unwrap().is_empty());
    d.stop().await;

    let text = format!(
        "[exporter]\ninterval = \"24h\"\nprobe_allowed_networks = [\"127.0.0.0/8\"]\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    );
    let d = start(&text, rec.clone()).await;
    let (status, body) = get(d.addr, "/probe?protocol=samp&address=localhost:7777").await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("gameserver_up{target=\"localhost:7777\",protocol=\"samp\"} 1\n"));
    // Minecraft: the checked IP is polled as is, so no SRV lookup can redirect it either.
    let (status, _) = get(d.addr, "/probe?protocol=minecraft&address=localhost").await;
    assert_eq!(status, 200);
    let (status, _) = get(d.addr, "/probe?target=t").await;
    assert_eq!(status, 200);
    assert_eq!(
        *rec.probed.lock().unwrap(),
        vec!["127.0.0.1:7777", "127.0.0.1:25565", "10.0.0.1:1"]
    );
    d.stop().await;
}

/// The A2S challenge bound in the configuration is the one applied: a server answering
/// every request with a new challenge gets exactly 1 + max_challenges info requests.
#[tokio::test]
async fn max_challenges_is_applied() {
    for (setting, expected_requests) in [
        ("", 4),
        ("max_challenges = 1\n", 2),
        ("max_challenges = 6\n", 7),
    ] {
        let config = simulate::a2s::A2sConfig {
            misbehaviour: simulate::a2s::Misbehaviour::ChallengeLoop,
            ..Default::default()
        };
        let counters = config.counters.clone();
        let sim = simulate::a2s::spawn(World::default(), config)
            .await
            .unwrap();
        let text = format!(
            "{IDLE}{setting}{}",
            target("loop", "a2s", &sim.addr.to_string(), "")
        );
        let d = start(&text, Arc::new(QueryProber)).await;
        let (status, body) = get(d.addr, "/probe?target=loop").await;
        assert_eq!(status, 200);
        assert!(body.contains("gameserver_up{target=\"loop\",protocol=\"a2s\"} 0\n"));
        // The target's first scheduled poll may have run at start-up too, with the same bound.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let (_, metrics) = get(d.addr, "/metrics").await;
        let scheduled = if metrics
            .contains("gameserver_queries_total{target=\"loop\",protocol=\"a2s\"} 1\n")
        {
            1
        } else {
            assert!(
                metrics.contains("gameserver_queries_total{target=\"loop\",protocol=\"a2s\"} 0\n"),
                "{metrics}"
            );
            0
        };
        assert_eq!(
            counters.info(),
            expected_requests * (1 + scheduled),
            "{setting:?}"
        );
        d.stop().await;
    }
}

/// Per-target reply caps override the [exporter] ones: the same split reply is refused
/// with too few fragments allowed, or too few bytes, and accepted with enough.
#[tokio::test]
async fn reply_limits_are_applied() {
    let world = World::new(WorldState {
        name: "n".repeat(3000),
        ..WorldState::default()
    });
    let config = simulate::a2s::A2sConfig {
        split: Some(SplitOptions {
            format: Format::Source { size_field: true },
            fragment_size: 500,
            compress: false,
        }),
        ..Default::default()
    };
    let sim = simulate::a2s::spawn(world, config).await.unwrap();
    let a = sim.addr.to_string();
    let text = format!(
        "{IDLE}max_split_packets = 4\n{}{}{}",
        target("few-packets", "a2s", &a, ""),
        target("enough", "a2s", &a, "max_split_packets = 16\n"),
        target(
            "few-bytes",
            "a2s",
            &a,
            "max_split_packets = 16\nmax_reply_bytes = 2048\n"
        ),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    for (name, up) in [("few-packets", 0), ("enough", 1), ("few-bytes", 0)] {
        let (status, body) = get(d.addr, &format!("/probe?target={name}")).await;
        assert_eq!(status, 200);
        assert!(
            body.contains(&format!(
                "gameserver_up{{target=\"{name}\",protocol=\"a2s\"}} {up}\n"
            )),
            "{name}: {body}"
        );
    }
    d.stop().await;
}

/// max_concurrent_polls bounds polls in flight across all targets of the running daemon.
#[tokio::test]
async fn max_concurrent_polls_is_applied() {
    let rec = Arc::new(Recorder {
        delay: Duration::from_millis(150),
        ..Default::default()
    });
    let mut text = String::from(
        "[exporter]\ninterval = \"200ms\"\ntimeout = \"180ms\"\nmax_concurrent_polls = 2\n",
    );
    for i in 0..8 {
        text.push_str(&target(
            &format!("t{i}"),
            "samp",
            &format!("10.0.0.{i}:1"),
            "",
        ));
    }
    let d = start(&text, rec.clone()).await;
    // Every target polled at least once: 8 polls of 150 ms, two at a time.
    let deadline = Instant::now() + Duration::from_secs(20);
    while rec.polled.lock().unwrap().len() < 8 {
        assert!(Instant::now() < deadline, "8 polls never ran");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(rec.max_in_flight.load(Ordering::SeqCst), 2);
    d.stop().await;
}

/// A client that never finishes its headers is disconnected by http_header_timeout, and the
/// server keeps serving others meanwhile and afterwards.
#[tokio::test]
async fn slowloris_client_is_cut_off() {
    let text = format!("{IDLE}http_header_timeout = \"300ms\"\n");
    let d = start(&text, Arc::new(Recorder::default())).await;
    let mut s = TcpStream::connect(d.addr).await.unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut closed = false;
    for _ in 0..40 {
        // One header byte every 100 ms: never a complete request.
        if s.write_all(b"X").await.is_err() {
            closed = true;
            break;
        }
        let mut buf = [0u8; 512];
        match tokio::time::timeout(Duration::from_millis(100), s.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => {
                closed = true;
                break;
            }
            // hyper may say 408 before closing; keep reading until the close.
            Ok(Ok(_)) => {}
            Err(_) => {}
        }
        assert_eq!(get(d.addr, "/-/healthy").await.0, 200);
    }
    assert!(
        closed,
        "slow client still connected after {:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    assert_eq!(get(d.addr, "/-/healthy").await.0, 200);
    d.stop().await;
}

/// Oversized headers, a body announced but never sent, and a body on a GET: each gets a
/// prompt 4xx or answer, never a hang, and the server keeps serving.
#[tokio::test]
async fn oversized_and_body_requests() {
    let d = start(IDLE, Arc::new(Recorder::default())).await;
    let big = format!(
        "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    assert_eq!(raw(d.addr, big.as_bytes()).await.0, 431);
    let many: String = (0..2000).map(|i| format!("X-H{i}: v\r\n")).collect();
    let req = format!("GET /metrics HTTP/1.1\r\nHost: x\r\n{many}\r\n");
    let (status, _) = raw(d.addr, req.as_bytes()).await;
    assert!((400..500).contains(&status), "{status}");
    // A huge body announced, a little sent: answered without reading (or waiting for) it.
    let req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\nabc";
    let started = Instant::now();
    let (status, body) = raw(d.addr, req).await;
    assert_eq!(status, 200);
    assert!(body.contains("gameserver_config_last_reload_successful 1"));
    assert!(started.elapsed() < Duration::from_secs(3));
    let req = b"POST /-/reload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n";
    assert_eq!(raw(d.addr, req).await.0, 200);
    // Not HTTP at all.
    let (status, _) = raw(
        d.addr,
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage\r\n\r\n",
    )
    .await;
    assert!(status == 0 || (400..500).contains(&status), "{status}");
    assert_eq!(get(d.addr, "/-/healthy").await.0, 200);
    d.stop().await;
}

/// 200 scrapes at once all succeed with a complete page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_concurrent_scrapes() {
    let mut text = String::from(IDLE);
    for i in 0..50 {
        text.push_str(&target(
            &format!("t{i}"),
            "samp",
            &format!("10.0.0.{i}:1"),
            "",
        ));
    }
    let d = start(&text, Arc::new(Recorder::default())).await;
    // Connect all first, then send, so the requests really overlap.
    let mut streams = Vec::new();
    for _ in 0..200 {
        streams.push(TcpStream::connect(d.addr).await.unwrap());
    }
    let tasks: Vec<_> = streams
        .into_iter()
        .map(|mut s| {
            tokio::spawn(async move {
                s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .await
                    .unwrap();
                let mut buf = Vec::new();
                tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf))
                    .await
                    .expect("in time")
                    .unwrap();
                String::from_utf8(buf).unwrap()
            })
        })
        .collect();
    let mut ok = 0;
    for t in tasks {
        let reply = t.await.unwrap();
        assert!(
            reply.starts_with("HTTP/1.1 200"),
            "{}",
            &reply[..reply.len().min(200)]
        );
        assert!(reply.contains("gameserver_targets{protocol=\"samp\"} 50\n"));
        ok += 1;
    }
    assert_eq!(ok, 200);
    assert_eq!(get(d.addr, "/-/healthy").await.0, 200);
    d.stop().await;
}

/// Malformed, empty, unknown and repeated query parameters are 4xx, never a poll or a crash.
#[tokio::test]
async fn bad_query_strings() {
    let rec = Arc::new(Recorder::default());
    let text = format!(
        "[exporter]\ninterval = \"24h\"\nprobe_allowed_networks = [\"127.0.0.0/8\"]\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    );
    let d = start(&text, rec.clone()).await;
    let cases: HashMap<&str, u16> = [
        ("/probe?target=%ZZ", 400),
        ("/probe?target=%", 400),
        ("/probe?target=%C3%28", 400),
        ("/probe?", 400),
        ("/probe?&&&", 400),
        ("/probe?target=", 404),
        ("/probe?target=t&target=t", 400),
        ("/probe?target=nope&target=t", 400),
        ("/probe?protocol=samp&protocol=a2s&address=127.0.0.1", 400),
        (
            "/probe?protocol=samp&address=10.1.1.1&address=127.0.0.1",
            400,
        ),
        ("/probe?protocol=samp", 400),
        ("/probe?address=127.0.0.1", 400),
        ("/probe?protocol=samp&address=", 400),
        ("/probe?protocol=samp&address=127.0.0.1:99999", 400),
        ("/probe?protocol=samp&address=%00", 400),
        ("/probe?foo=bar", 400),
    ]
    .into_iter()
    .collect();
    for (path, want) in &cases {
        let (status, body) = get(d.addr, path).await;
        assert_eq!(status, *want, "{path}: {body}");
    }
    assert!(rec.probed.lock().unwrap().is_empty());
    // Repeated parameters are refused even when both copies agree, so nothing was polled;
    // the daemon still serves.
    assert_eq!(get(d.addr, "/probe?target=t").await.0, 200);
    assert_eq!(get(d.addr, "/metrics").await.0, 200);
    d.stop().await;
}

/// A stuck prober is still cut off at the target's timeout for /probe (no hang).
#[tokio::test]
async fn probe_respects_timeout() {
    let rec = Arc::new(Recorder {
        delay: Duration::from_secs(30),
        ..Default::default()
    });
    let text = format!(
        "[exporter]\ninterval = \"24h\"\ntimeout = \"300ms\"\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    );
    let d = start(&text, rec).await;
    let started = Instant::now();
    let (status, body) = get(d.addr, "/probe?target=t").await;
    assert_eq!(status, 200);
    assert!(
        body.contains("gameserver_up{target=\"t\",protocol=\"a2s\"} 0\n"),
        "{body}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    d.stop().await;
}

/// Idle connections cannot hold the connection slots: a keep-alive connection that sends
/// nothing after its first request, and one that never sends a byte, are both closed by
/// http_header_timeout.
#[tokio::test]
async fn idle_connections_are_closed() {
    let text = format!("{IDLE}http_header_timeout = \"300ms\"\n");
    let d = start(&text, Arc::new(Recorder::default())).await;
    let mut keep = TcpStream::connect(d.addr).await.unwrap();
    keep.write_all(b"GET /-/healthy HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut silent = TcpStream::connect(d.addr).await.unwrap();
    for (what, s, reply) in [
        ("keep-alive", &mut keep, "HTTP/1.1 200"),
        ("silent", &mut silent, ""),
    ] {
        let started = Instant::now();
        let mut buf = Vec::new();
        let r = tokio::time::timeout(Duration::from_secs(3), s.read_to_end(&mut buf)).await;
        assert!(
            r.is_ok(),
            "{what} connection still open after {:?}",
            started.elapsed()
        );
        assert!(String::from_utf8_lossy(&buf).starts_with(reply), "{what}");
    }
    d.stop().await;
}
