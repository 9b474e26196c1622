//! A `/metrics` page larger than one chunk is sent while it is rendered (chunked transfer
//! encoding, no `Content-Length`), plain and gzipped, over a real socket on 127.0.0.1:0, and
//! so is `/sd`: every target's series arrive once, the gzip stream inflates to the same
//! series, and a client that hangs up half-way does not disturb the next scrape; and so is
//! `/api/v1/targets`.

use crate::support::wait;
use std::collections::BTreeSet;
use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober};
use gameserver_exporter::status::Status;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::support::daemon as harness;
use crate::support::http;
use http::{dechunk, Reply};

/// Every target is up, its player count taken from its port.
struct Up;

impl Prober for Up {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        let port = req.address.to_string();
        let port = port.rsplit(':').next().unwrap_or("0").parse().unwrap_or(0);
        Box::pin(async move {
            Ok(Status {
                name: format!("server on port {port}"),
                online: port % 50,
                max: 50,
                latency: Duration::from_millis(3),
                ..Status::default()
            })
        })
    }
}

const TARGETS: u32 = 3000;

fn config() -> String {
    let mut t = String::from("[exporter]\ninterval = \"2s\"\ntimeout = \"1s\"\n");
    for i in 0..TARGETS {
        t.push_str(&harness::target(
            &format!("t{i}"),
            "a2s",
            &format!("127.0.0.1:{}", 10_000 + i),
            "",
        ));
    }
    t
}

async fn get(addr: SocketAddr, path: &str, extra: &str) -> Reply {
    http::request(addr, "GET", path, extra).await
}

/// The `gameserver_up` and `gameserver_players_online` lines of a page.
fn series(page: &str) -> BTreeSet<String> {
    page.lines()
        .filter(|l| l.starts_with("gameserver_up{") || l.starts_with("gameserver_players_online{"))
        .map(str::to_string)
        .collect()
}

async fn ready(addr: SocketAddr) {
    wait::until("/-/ready", || async move {
        let head = get(addr, "/-/ready", "").await.head;
        head.starts_with("HTTP/1.1 200").then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_page_streams() {
    let d = harness::start(&config(), Arc::new(Up)).await;
    ready(d.addr).await;

    let p = get(d.addr, "/metrics", "").await;
    assert!(p.head.starts_with("HTTP/1.1 200"), "{}", p.head);
    assert_eq!(p.header("transfer-encoding"), Some("chunked"), "{}", p.head);
    assert_eq!(p.header("content-length"), None);
    assert_eq!(p.header("content-encoding"), None);
    let (plain, chunks) = dechunk(&p.body);
    assert!(chunks > 3, "{chunks} chunks");
    let plain = String::from_utf8(plain).unwrap();
    let got = series(&plain);
    assert_eq!(got.len(), 2 * TARGETS as usize);
    for i in [0, 1234, TARGETS - 1] {
        let online = (10_000 + i) % 50;
        let up = format!("gameserver_up{{target=\"t{i}\",protocol=\"a2s\"}} 1");
        let players =
            format!("gameserver_players_online{{target=\"t{i}\",protocol=\"a2s\"}} {online}");
        assert!(got.contains(&up), "{up}");
        assert!(got.contains(&players), "{players}");
    }
    // The page is whole: its last family is there.
    assert!(plain.ends_with('\n'));
    assert!(plain.contains("\ngameserver_config_last_reload_success_timestamp_seconds "));

    let z = get(d.addr, "/metrics", "Accept-Encoding: gzip\r\n").await;
    assert_eq!(z.header("content-encoding"), Some("gzip"), "{}", z.head);
    assert_eq!(z.header("transfer-encoding"), Some("chunked"), "{}", z.head);
    let (zipped, chunks) = dechunk(&z.body);
    assert!(chunks > 1, "{chunks} chunks of gzip");
    let mut inflated = String::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_string(&mut inflated)
        .unwrap();
    assert_eq!(series(&inflated), got);

    // /sd, which http_sd polls every minute, is streamed the same way.
    let sd = get(d.addr, "/sd", "").await;
    assert_eq!(
        sd.header("transfer-encoding"),
        Some("chunked"),
        "{}",
        sd.head
    );
    let groups: serde_json::Value = serde_json::from_slice(&dechunk(&sd.body).0).unwrap();
    let groups = groups.as_array().unwrap();
    assert_eq!(groups.len(), TARGETS as usize);
    assert_eq!(
        groups[1234],
        serde_json::json!({"targets": ["t1234"], "labels": {"protocol": "a2s"}})
    );

    // /api/v1/targets too, for panels: every target once, whole.
    let api = get(d.addr, "/api/v1/targets", "").await;
    assert_eq!(
        api.header("transfer-encoding"),
        Some("chunked"),
        "{}",
        api.head
    );
    let (doc, chunks) = dechunk(&api.body);
    assert!(chunks > 1, "{chunks} chunks");
    let doc: serde_json::Value = serde_json::from_slice(&doc).unwrap();
    assert_eq!(doc["counts"]["targets"], TARGETS);
    assert_eq!(doc["counts"]["up"], TARGETS);
    let listed = doc["targets"].as_array().unwrap();
    assert_eq!(listed.len(), TARGETS as usize);
    let t1234 = listed.iter().find(|t| t["name"] == "t1234").unwrap();
    assert_eq!(t1234["players"], (10_000 + 1234) % 50);
    assert_eq!(t1234["server_name"], "server on port 11234");

    // The status page counts every target and shows the first 1,000 rows.
    let page = get(d.addr, "/", "").await;
    let page = String::from_utf8(page.body).unwrap();
    assert!(page.contains(&format!("<b>{TARGETS}</b> targets")));
    assert_eq!(page.matches("<tr class=\"up\">").count(), 1000);

    // A client hanging up after the first bytes: the next scrape is whole all the same.
    let mut s = TcpStream::connect(d.addr).await.unwrap();
    s.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut first = [0u8; 4096];
    let n = s.read(&mut first).await.unwrap();
    assert!(n > 0);
    drop(s);
    let again = get(d.addr, "/metrics", "").await;
    assert_eq!(
        series(&String::from_utf8(dechunk(&again.body).0).unwrap()),
        got
    );

    d.stop().await;
}

/// A small page still comes whole, with its length.
#[tokio::test]
async fn small_page_whole() {
    let text = format!(
        "[exporter]\ninterval = \"2s\"\ntimeout = \"1s\"\n{}",
        harness::target("one", "a2s", "127.0.0.1:10001", "")
    );
    let d = harness::start(&text, Arc::new(Up)).await;
    ready(d.addr).await;
    let r = get(d.addr, "/metrics", "").await;
    assert_eq!(r.header("transfer-encoding"), None, "{}", r.head);
    assert_eq!(
        r.header("content-length"),
        Some(r.body.len().to_string().as_str())
    );
    assert!(String::from_utf8(r.body)
        .unwrap()
        .contains("gameserver_up{target=\"one\",protocol=\"a2s\"} 1\n"));
    d.stop().await;
}
