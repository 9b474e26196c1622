//! The daemon in-process on 127.0.0.1:0, spoken to with raw HTTP/1.1 over TCP: against a fake
//! prober (exact values, down rules, reload, /probe, /sd, readiness) and against the real
//! simulators of every protocol.

use crate::support::wait;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::daemon as harness;
use crate::support::http;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober, QueryProber};
use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::status::{Failure, Reason, Status};
use harness::{start, target};

/// Answers by the polled host: a scripted result per address, `timeout` for the rest.
#[derive(Default)]
struct Fake {
    answers: Mutex<HashMap<String, Result<Status, Failure>>>,
    /// Every address polled, scheduled polls included (they run on the poller thread).
    polled: Mutex<Vec<String>>,
}

impl Fake {
    fn set(&self, host: &str, r: Result<Status, Failure>) {
        self.answers.lock().unwrap().insert(host.into(), r);
    }
}

impl Prober for Fake {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        self.polled.lock().unwrap().push(req.address.to_string());
        let r = self
            .answers
            .lock()
            .unwrap()
            .get(&req.address.to_string())
            .cloned()
            .unwrap_or_else(|| Err(Failure::new(Reason::Timeout, "no answer scripted")));
        Box::pin(async move { r })
    }
}

async fn request(addr: SocketAddr, method: &str, path: &str, extra: &str) -> http::Text {
    http::request_text(addr, method, path, extra).await
}

async fn get(addr: SocketAddr, path: &str) -> http::Text {
    request(addr, "GET", path, "").await
}

/// The sample lines of `body` that start with `prefix`.
fn lines<'a>(body: &'a str, prefix: &str) -> Vec<&'a str> {
    body.lines()
        .filter(|l| !l.starts_with('#') && l.starts_with(prefix))
        .collect()
}

/// Waits until `cond` holds for the metrics page (2 s at most).
async fn metrics_until(addr: SocketAddr, cond: impl Fn(&str) -> bool) -> String {
    let cond = &cond;
    wait::until("metrics matching", || async move {
        let body = get(addr, "/metrics").await.body;
        cond(&body).then_some(body)
    })
    .await
}

const FAST: &str = "[exporter]\ninterval = \"200ms\"\ntimeout = \"100ms\"\n";

fn up_status() -> Status {
    Status {
        online: 7,
        max: 16,
        bots: Some(1),
        name: "a\"b\\c\nd".into(),
        map: Some("de_dust2".into()),
        game: Some("cs".into()),
        version: Some("1.0".into()),
        latency: Duration::from_millis(12),
        ..Default::default()
    }
}

/// Up, down and never-polled targets publish exactly the documented series.
#[tokio::test]
async fn fake_up_down_and_pending() {
    let fake = Arc::new(Fake::default());
    fake.set("10.0.0.1:1", Ok(up_status()));
    fake.set(
        "10.0.0.2:1",
        Err(Failure::new(Reason::Refused, "connection refused")),
    );
    let text = format!(
        "{FAST}{}{}{}",
        target("up", "a2s", "10.0.0.1:1", "labels = { region = \"eu\" }\n"),
        target("down", "samp", "10.0.0.2:1", ""),
        target("pending", "minecraft", "10.0.0.3:1", "interval = \"24h\"\n"),
    );
    let d = start(&text, fake.clone()).await;
    let body = metrics_until(d.addr, |b| {
        b.contains("gameserver_queries_total{target=\"down\",protocol=\"samp\"} 2")
    })
    .await;
    let up = r#"{target="up",protocol="a2s",region="eu"}"#;
    assert!(lines(&body, "gameserver_up{").contains(&format!("gameserver_up{up} 1").as_str()));
    assert!(body.contains(&format!("gameserver_players_online{up} 7\n")));
    assert!(body.contains(&format!("gameserver_players_max{up} 16\n")));
    assert!(body.contains(&format!("gameserver_players_bots{up} 1\n")));
    assert!(body.contains(&format!("gameserver_latency_seconds{up} 0.012\n")));
    assert!(body.contains(
        r#"gameserver_info{target="up",protocol="a2s",region="eu",name="a\"b\\c\nd",map="de_dust2",game="cs",version="1.0"} 1"#
    ));
    // Down: up 0, counters, duration, last success 0; no players, latency or info.
    let down = r#"{target="down",protocol="samp"}"#;
    assert!(body.contains(&format!("gameserver_up{down} 0\n")));
    assert!(body.contains(&format!(
        "gameserver_last_success_timestamp_seconds{down} 0\n"
    )));
    assert!(body.contains(&format!("gameserver_query_duration_seconds{down} ")));
    assert!(body.contains(
        r#"gameserver_query_failures_total{target="down",protocol="samp",reason="refused"} "#
    ));
    for family in [
        "gameserver_players_online",
        "gameserver_players_max",
        "gameserver_latency_seconds",
        "gameserver_info",
    ] {
        assert!(
            !body.contains(&format!("{family}{{target=\"down\"")),
            "{family}"
        );
    }
    // The failure streak: every poll of `down` failed, so it equals its poll count on the
    // same page; `up` has none. Last player seen: `up` has had 7 players, `down` never
    // answered, so it has no such series.
    let count = |family: &str, labels: &str| -> u64 {
        let prefix = format!("{family}{labels} ");
        let line = lines(&body, &prefix);
        assert_eq!(line.len(), 1, "{prefix}");
        line[0][prefix.len()..].parse().unwrap()
    };
    let polls = count("gameserver_queries_total", down);
    assert!(polls >= 2);
    assert_eq!(count("gameserver_consecutive_failures", down), polls);
    assert_eq!(count("gameserver_consecutive_failures", up), 0);
    let seen = lines(
        &body,
        &format!("gameserver_last_player_seen_timestamp_seconds{up} "),
    );
    let secs: f64 = seen[0].rsplit(' ').next().unwrap().parse().unwrap();
    assert!(secs > 1.7e9 && secs.fract() == 0.0, "{secs}");
    assert!(!body.contains(&format!(
        "gameserver_last_player_seen_timestamp_seconds{down}"
    )));
    // No reason series before that reason occurred.
    assert!(!body.contains("reason=\"timeout\""));
    // Never polled: only the query counter, at 0.
    let pending: Vec<&str> = body
        .lines()
        .filter(|l| l.contains("target=\"pending\""))
        .collect();
    assert_eq!(
        pending,
        vec![r#"gameserver_queries_total{target="pending",protocol="minecraft"} 0"#]
    );
    assert!(body.contains("gameserver_targets{protocol=\"minecraft\"} 1\n"));
    assert!(body.contains("gameserver_config_last_reload_successful 1\n"));
    assert!(body.contains("gameserver_exporter_build_info{version=\""));
    assert!(body.contains("\nprocess_resident_memory_bytes "));
    // Not ready while a target was never polled.
    assert_eq!(get(d.addr, "/-/ready").await.status, 503);
    d.stop().await;
}

/// Content negotiation: OpenMetrics when asked, with `# EOF`; text 0.0.4 otherwise.
#[tokio::test]
async fn formats() {
    let d = start(FAST, Arc::new(Fake::default())).await;
    let r = get(d.addr, "/metrics").await;
    assert_eq!(r.status, 200);
    assert!(r
        .head
        .contains("content-type: text/plain; version=0.0.4; charset=utf-8"));
    assert!(!r.body.contains("# EOF"));
    let r = request(
        d.addr,
        "GET",
        "/metrics",
        "Accept: application/openmetrics-text;version=1.0.0\r\n",
    )
    .await;
    assert!(r
        .head
        .contains("content-type: application/openmetrics-text; version=1.0.0; charset=utf-8"));
    assert!(r.body.ends_with("# EOF\n"));
    assert!(r.body.contains("# TYPE gameserver_queries counter\n"));
    d.stop().await;
}

/// Reload adds, removes and changes targets; a bad file is refused and the old one keeps
/// running; unchanged targets keep their counters.
#[tokio::test]
async fn reload_by_diff_and_refusal() {
    let fake = Arc::new(Fake::default());
    for h in ["10.0.0.1:1", "10.0.0.2:1", "10.0.0.3:1"] {
        fake.set(h, Ok(up_status()));
    }
    let text = format!(
        "{FAST}{}{}",
        target("keep", "a2s", "10.0.0.1:1", ""),
        target("gone", "a2s", "10.0.0.2:1", ""),
    );
    let d = start(&text, fake.clone()).await;
    metrics_until(d.addr, |b| {
        b.contains("gameserver_queries_total{target=\"keep\",protocol=\"a2s\"} 2")
    })
    .await;
    assert_eq!(get(d.addr, "/-/ready").await.status, 200);

    d.write_config(&format!(
        "{FAST}{}{}",
        target("keep", "a2s", "10.0.0.1:1", ""),
        target("new", "samp", "10.0.0.3:1", ""),
    ));
    let r = request(d.addr, "POST", "/-/reload", "").await;
    assert_eq!(r.status, 200, "{}", r.body);
    let body = get(d.addr, "/metrics").await.body;
    assert!(!body.contains("target=\"gone\""));
    let keep = lines(&body, "gameserver_queries_total{target=\"keep\"");
    let n: u64 = keep[0].rsplit(' ').next().unwrap().parse().unwrap();
    assert!(n >= 2, "kept target kept its counter: {n}");
    metrics_until(d.addr, |b| {
        b.contains("gameserver_up{target=\"new\",protocol=\"samp\"} 1")
    })
    .await;

    // Changed labels restart the target under its new label set.
    d.write_config(&format!(
        "{FAST}{}{}",
        target(
            "keep",
            "a2s",
            "10.0.0.1:1",
            "labels = { tier = \"gold\" }\n"
        ),
        target("new", "samp", "10.0.0.3:1", ""),
    ));
    assert_eq!(request(d.addr, "POST", "/-/reload", "").await.status, 200);
    let body = get(d.addr, "/metrics").await.body;
    assert!(!body.contains("{target=\"keep\",protocol=\"a2s\"}"));
    assert!(
        body.contains("gameserver_queries_total{target=\"keep\",protocol=\"a2s\",tier=\"gold\"} ")
    );

    // A bad file is refused with its error, naming the target by its name; the running
    // targets stay.
    d.write_config(&format!(
        "{FAST}{}",
        target("keep", "quake", "10.0.0.1:1", "")
    ));
    let r = request(d.addr, "POST", "/-/reload", "").await;
    assert_eq!(r.status, 500);
    assert!(
        r.body
            .contains(":6: target \"keep\".protocol: unknown protocol \"quake\""),
        "{}",
        r.body
    );
    let body = get(d.addr, "/metrics").await.body;
    assert!(body.contains("gameserver_config_last_reload_successful 0\n"));
    assert!(body.contains("target=\"new\""));
    assert!(body.contains("tier=\"gold\""));
    d.stop().await;
}

/// /probe polls a configured target now, 404s unknown ones and guards ad-hoc addresses.
#[tokio::test]
async fn probe() {
    let fake = Arc::new(Fake::default());
    fake.set("10.0.0.1:1", Ok(up_status()));
    fake.set("127.0.0.1:7777", Ok(up_status()));
    let text = format!(
        "[exporter]\ninterval = \"24h\"\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    );
    let d = start(&text, fake.clone()).await;
    let r = get(d.addr, "/probe?target=t").await;
    assert_eq!(r.status, 200);
    assert!(r
        .body
        .contains("gameserver_up{target=\"t\",protocol=\"a2s\"} 1\n"));
    assert!(r
        .body
        .contains("gameserver_players_online{target=\"t\",protocol=\"a2s\"} 7\n"));
    assert!(!r.body.contains("gameserver_queries_total"));
    assert!(!r.body.contains("gameserver_targets"));
    // One poll has no streak and no history of players: /metrics only.
    assert!(!r.body.contains("gameserver_consecutive_failures"));
    assert!(!r
        .body
        .contains("gameserver_last_player_seen_timestamp_seconds"));
    assert_eq!(get(d.addr, "/probe?target=nope").await.status, 404);
    assert_eq!(get(d.addr, "/probe").await.status, 400);
    assert_eq!(get(d.addr, "/probe?target=%zz").await.status, 400);
    // No networks configured: ad-hoc probes are refused before any traffic.
    let r = get(d.addr, "/probe?protocol=samp&address=127.0.0.1").await;
    assert_eq!(r.status, 403);
    assert!(
        !fake
            .polled
            .lock()
            .unwrap()
            .iter()
            .any(|a| a.starts_with("127.")),
        "{:?}",
        fake.polled.lock().unwrap()
    );

    d.write_config(&format!(
        "[exporter]\ninterval = \"24h\"\nprobe_allowed_networks = [\"127.0.0.0/8\"]\n{}",
        target("t", "a2s", "10.0.0.1:1", "")
    ));
    assert_eq!(request(d.addr, "POST", "/-/reload", "").await.status, 200);
    let r = get(d.addr, "/probe?protocol=samp&address=127.0.0.1").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r
        .body
        .contains("gameserver_up{target=\"127.0.0.1\",protocol=\"samp\"} 1\n"));
    // The name resolves to an allowed IP, which is what gets polled.
    let r = get(d.addr, "/probe?protocol=samp&address=localhost").await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(r
        .body
        .contains("gameserver_up{target=\"localhost\",protocol=\"samp\"} 1\n"));
    let r = get(d.addr, "/probe?protocol=samp&address=10.1.2.3").await;
    assert_eq!(r.status, 403);
    assert_eq!(
        get(d.addr, "/probe?protocol=doom&address=127.0.0.1")
            .await
            .status,
        400
    );
    d.stop().await;
}

/// /sd lists one group per target; the small endpoints answer as documented.
#[tokio::test]
async fn sd_health_ready_and_errors() {
    let fake = Arc::new(Fake::default());
    let text = format!(
        "{FAST}{}{}",
        target("a", "a2s", "10.0.0.1:1", "labels = { region = \"eu\" }\n"),
        target("b", "minecraft", "mc.example.org", ""),
    );
    let d = start(&text, fake).await;
    let r = get(d.addr, "/sd").await;
    assert_eq!(r.status, 200);
    assert!(r.head.contains("content-type: application/json"));
    let v: serde_json::Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(
        v,
        serde_json::json!([
            {"targets": ["a"], "labels": {"protocol": "a2s", "region": "eu"}},
            {"targets": ["b"], "labels": {"protocol": "minecraft"}}
        ])
    );
    assert_eq!(get(d.addr, "/-/healthy").await.status, 200);
    assert_eq!(get(d.addr, "/-/reload").await.status, 405);
    assert_eq!(get(d.addr, "/nope").await.status, 404);
    assert_eq!(request(d.addr, "POST", "/metrics", "").await.status, 405);
    // Failing targets still count as polled.
    wait::until("/-/ready", || async {
        (get(d.addr, "/-/ready").await.status == 200).then_some(())
    })
    .await;
    let page = get(d.addr, "/").await;
    assert!(page.body.contains("<a href=\"/probe?target=a\">"));
    assert!(page.body.contains("timeout: no answer scripted"));
    d.stop().await;
}

/// Oversized request headers are refused instead of buffered.
#[tokio::test]
async fn huge_headers_refused() {
    let d = start(FAST, Arc::new(Fake::default())).await;
    let big = format!("X-Big: {}\r\n", "a".repeat(64 * 1024));
    let req = format!("GET /metrics HTTP/1.1\r\nHost: x\r\n{big}\r\n");
    let reply = http::raw(d.addr, req.as_bytes())
        .await
        .expect("an HTTP reply");
    assert_eq!(reply.status, 431, "{}", reply.head);
    d.stop().await;
}

fn world() -> WorldState {
    WorldState {
        name: "a\"b\\c\nd".into(),
        map: "dm_lockdown".into(),
        game: "Half-Life 2: Deathmatch".into(),
        version: "2.0.0.1".into(),
        max: 24,
        bots: 2,
        players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        rules: Vec::new(),
        password: false,
    }
}

/// Every landed simulator, polled by the real dialogues: exact values per protocol, and a
/// hostile server name escaped in gameserver_info.
#[tokio::test]
async fn real_simulators() {
    let a2s = simulate::a2s::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let samp = simulate::samp::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let mcq = simulate::mcquery::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let mc = simulate::minecraft::spawn(World::new(world()), Default::default())
        .await
        .unwrap();
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}{}{}",
        target("a2s", "a2s", &a2s.addr.to_string(), ""),
        target("samp", "samp", &samp.addr.to_string(), ""),
        target("mcq", "minecraft-query", &mcq.addr.to_string(), ""),
        target("mc", "minecraft", &mc.addr.to_string(), ""),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    // Up on a poll that came back within the short timeout: on a loaded machine an earlier
    // one may not have.
    let body = metrics_until(d.addr, |b| {
        let up = lines(b, "gameserver_up{");
        up.len() == 4 && up.iter().all(|l| l.ends_with(" 1"))
    })
    .await;
    let expect = [
        // A2S counts bots among players online and reports them separately.
        "gameserver_up{target=\"a2s\",protocol=\"a2s\"} 1",
        "gameserver_players_online{target=\"a2s\",protocol=\"a2s\"} 4",
        "gameserver_players_max{target=\"a2s\",protocol=\"a2s\"} 24",
        "gameserver_players_bots{target=\"a2s\",protocol=\"a2s\"} 2",
        r#"gameserver_info{target="a2s",protocol="a2s",name="a\"b\\c\nd",map="dm_lockdown",game="Half-Life 2: Deathmatch",version="2.0.0.1"} 1"#,
        "gameserver_up{target=\"samp\",protocol=\"samp\"} 1",
        "gameserver_players_online{target=\"samp\",protocol=\"samp\"} 2",
        "gameserver_players_max{target=\"samp\",protocol=\"samp\"} 24",
        "gameserver_up{target=\"mcq\",protocol=\"minecraft-query\"} 1",
        "gameserver_players_online{target=\"mcq\",protocol=\"minecraft-query\"} 2",
        "gameserver_players_max{target=\"mcq\",protocol=\"minecraft-query\"} 24",
        "gameserver_up{target=\"mc\",protocol=\"minecraft\"} 1",
        "gameserver_players_online{target=\"mc\",protocol=\"minecraft\"} 2",
        "gameserver_players_max{target=\"mc\",protocol=\"minecraft\"} 24",
        // Each protocol carries its own subset of name, map, game and version.
        r#"gameserver_info{target="mc",protocol="minecraft",name="a\"b\\c\nd",map="",game="",version="2.0.0.1"} 1"#,
        r#"gameserver_info{target="mcq",protocol="minecraft-query",name="a\"b\\c\nd",map="dm_lockdown",game="Half-Life 2: Deathmatch",version="2.0.0.1"} 1"#,
        r#"gameserver_info{target="samp",protocol="samp",name="a\"b\\c\nd",map="",game="Half-Life 2: Deathmatch",version=""} 1"#,
    ];
    for line in expect {
        assert!(body.lines().any(|l| l == line), "missing {line}\n{body}");
    }
    // Bots only where the protocol reports them.
    assert_eq!(lines(&body, "gameserver_players_bots{").len(), 1);
    assert_eq!(lines(&body, "gameserver_info{").len(), 4);
    assert_eq!(get(d.addr, "/-/ready").await.status, 200);
    // A stopped server goes down: players, latency and info vanish.
    drop(samp);
    let body = metrics_until(d.addr, |b| {
        b.contains("gameserver_up{target=\"samp\",protocol=\"samp\"} 0")
    })
    .await;
    assert!(!body.contains("gameserver_players_online{target=\"samp\""));
    assert!(!body.contains("gameserver_info{target=\"samp\""));
    d.stop().await;
}
