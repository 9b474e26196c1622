//! `GET /api/v1/targets` end to end on 127.0.0.1:0: the daemon polling real simulators,
//! every target and chosen ones, unknown and other shards' targets, gzip, basic auth, and
//! hostile names and server strings parsed back by serde_json. The status page at `/` is
//! checked on the same fleet.

use std::io::Read;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use gameserver_exporter::http::web::Web;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober, QueryProber};
use gameserver_exporter::shard::Shard;
use gameserver_exporter::simulate::{self, World, WorldState};
use gameserver_exporter::status::Status;
use serde_json::{json, Value};

use crate::support::daemon as harness;
use crate::support::http;
use harness::target;
use http::{plain, Reply};

async fn get(addr: SocketAddr, path: &str, extra: &str) -> Reply {
    plain(addr, "GET", path, extra)
        .await
        .expect("an HTTP reply")
}

fn json_of(r: &Reply) -> Value {
    assert_eq!(
        r.header("content-type"),
        Some("application/json"),
        "{}",
        r.head
    );
    serde_json::from_slice(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.text()))
}

/// Fetches the document until `done` holds for it (every target polled, say); panics after
/// 10 s with the last one.
async fn targets_until(addr: SocketAddr, done: impl Fn(&Value) -> bool) -> Value {
    let started = std::time::Instant::now();
    loop {
        let r = get(addr, "/api/v1/targets", "").await;
        assert_eq!(r.status, 200, "{}", r.text());
        let v = json_of(&r);
        if done(&v) {
            return v;
        }
        assert!(started.elapsed() < harness::DEADLINE, "{v:#}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn percent(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A server whose every string is hostile: quotes, backslash, newline, a control, a
/// direction override, a line separator and markup.
const HOSTILE_SERVER: &str = "a\"b\\c\nd\u{2028}e\u{202e}f\u{1}g</script>";
/// What is published of it: controls and the override dropped, as in metric labels.
const HOSTILE_SHOWN: &str = "a\"b\\cd\u{2028}efg</script>";
/// A configured name as hostile as the config allows (no controls): TOML-escaped, and read.
const HOSTILE_NAME_TOML: &str = r#"q\"uote\\ </script> \u2028 \u202E x"#;
const HOSTILE_NAME: &str = "q\"uote\\ </script> \u{2028} \u{202e} x";

/// Two A2S targets on a simulator (one with a hostile name), a Minecraft one on a closed
/// port: the whole document, one and two chosen targets, an unknown one, and the status page.
#[tokio::test]
async fn targets_from_simulators() {
    let world = WorldState {
        name: HOSTILE_SERVER.into(),
        map: "dm_lockdown".into(),
        max: 24,
        bots: 1,
        players: vec![("alice".into(), 5, 10.0), ("bob".into(), 3, 20.0)],
        ..WorldState::default()
    };
    let a2s = simulate::a2s::spawn(World::new(world), Default::default())
        .await
        .unwrap();
    // A port nothing listens on any more: the Minecraft dialogue's connect is refused.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_addr = closed.local_addr().unwrap().to_string();
    drop(closed);
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}{}",
        target(
            "a2s",
            "a2s",
            &a2s.addr.to_string(),
            "labels = { region = \"eu\" }\n"
        ),
        target(HOSTILE_NAME_TOML, "a2s", &a2s.addr.to_string(), ""),
        target("mc", "minecraft", &closed_addr, ""),
    );
    let d = harness::start(&text, Arc::new(QueryProber)).await;
    let v = targets_until(d.addr, |v| {
        v["counts"] == json!({"targets": 3, "up": 2, "down": 1, "pending": 0})
    })
    .await;
    assert_eq!(v["version"], 1);
    assert_eq!(v["shard"], Value::Null);
    assert!(v["generated"].as_u64().unwrap() > 1_700_000_000);
    let targets = v["targets"].as_array().unwrap();
    // Name order, as everywhere.
    let names: Vec<&str> = targets
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a2s", "mc", HOSTILE_NAME]);

    let up = &targets[0];
    let want = json!({
        "name": "a2s", "protocol": "a2s", "address": a2s.addr.to_string(), "game": null,
        "labels": {"region": "eu"}, "interval_seconds": 0.5, "state": "up", "up": true,
        // A2S counts bots among players online.
        "players": 3, "max_players": 24, "bots": 1, "queued": null,
        "server_name": HOSTILE_SHOWN, "map": "dm_lockdown",
        "server_game": "Counter-Strike: Source", "server_version": "1.0.0.0",
        "last_failure_reason": null, "last_failure_detail": null,
    });
    for (k, w) in want.as_object().unwrap() {
        assert_eq!(&up[k], w, "{k}");
    }
    assert!(up["polls"].as_u64().unwrap() >= 1);
    assert!(up["latency_seconds"].as_f64().unwrap() > 0.0);
    assert!(up["last_success"].as_u64().unwrap() <= v["generated"].as_u64().unwrap());

    let down = &targets[1];
    assert_eq!(down["state"], "down");
    assert_eq!(down["up"], false);
    assert_eq!(down["last_failure_reason"], "refused");
    assert!(down["last_failure_detail"].is_string());
    for k in [
        "players",
        "max_players",
        "server_name",
        "latency_seconds",
        "last_success",
    ] {
        assert_eq!(down[k], Value::Null, "{k}");
    }

    // The hostile name round-trips, listed and asked for by name.
    assert_eq!(targets[2]["server_name"], HOSTILE_SHOWN);
    let path = format!("/api/v1/targets?target={}", percent(HOSTILE_NAME));
    let one = json_of(&get(d.addr, &path, "").await);
    assert_eq!(one["counts"]["targets"], 1);
    assert_eq!(one["targets"][0]["name"], HOSTILE_NAME);

    // Chosen targets come in the order asked for; counts are theirs.
    let two = json_of(&get(d.addr, "/api/v1/targets?target=mc&target=a2s", "").await);
    let names: Vec<&str> = two["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["mc", "a2s"]);
    assert_eq!(
        two["counts"],
        json!({"targets": 2, "up": 1, "down": 1, "pending": 0})
    );

    let r = get(d.addr, "/api/v1/targets?target=a2s&target=nope", "").await;
    assert_eq!(r.status, 404);
    assert_eq!(
        json_of(&r),
        json!({"error": "unknown target", "target": "nope"})
    );
    assert_eq!(
        get(d.addr, "/api/v1/targets?target=%zz", "").await.status,
        400
    );
    let r = plain(d.addr, "POST", "/api/v1/targets", "").await.unwrap();
    assert_eq!(r.status, 405);

    // The status page: a row per target with its state class, players, the failure reason;
    // the hostile strings escaped, the page's own script the only one.
    let page = get(d.addr, "/", "").await;
    assert_eq!(page.status, 200);
    let page = page.text();
    assert!(page.contains("<tr class=\"down\"><td><span class=\"pill\">down</span></td><td class=\"name\">mc</td><td colspan=\"4\" class=\"why\">refused: "), "{page}");
    assert!(page.contains("<td class=\"name\">a2s</td><td>a&quot;b\\cd\u{2028}efg&lt;/script&gt;</td><td>dm_lockdown</td>"), "{page}");
    assert!(page.contains("<td class=\"num\">3/24<span class=\"bar\""));
    assert!(page.contains("<td class=\"name\">q&quot;uote\\ &lt;/script&gt; \u{2028}  x</td>"));
    assert_eq!(page.matches("<script").count(), 1);
    assert_eq!(page.matches("</script>").count(), 1);
    // Down first.
    assert!(page.find("class=\"name\">mc<").unwrap() < page.find("class=\"name\">a2s<").unwrap());
    d.stop().await;
}

/// Every target up with 5/10 players, at once.
struct Up;

impl Prober for Up {
    fn poll<'a>(&'a self, _req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        Box::pin(async {
            Ok(Status {
                name: "up".into(),
                online: 5,
                max: 10,
                ..Status::default()
            })
        })
    }
}

/// A sharded replica lists its own targets, says which shard it is, and answers another
/// shard's target with a 404 naming that shard, as `/health` does.
#[tokio::test]
async fn sharded_replica() {
    let names: Vec<String> = (0..10).map(|i| format!("t{i}")).collect();
    let mut text = String::from("[exporter]\ninterval = \"1s\"\ntimeout = \"500ms\"\n");
    for n in &names {
        text.push_str(&target(n, "a2s", "127.0.0.1:1", ""));
    }
    let shard = Shard::parse("0/2").unwrap();
    let (mine, theirs): (Vec<&String>, Vec<&String>) = names.iter().partition(|n| shard.owns(n));
    assert!(
        !mine.is_empty() && !theirs.is_empty(),
        "both shards have targets"
    );
    let d = harness::start_shard(&text, Arc::new(Up), Some("0/2")).await;
    let v = targets_until(d.addr, |v| v["counts"]["pending"] == 0).await;
    assert_eq!(v["shard"], "0/2");
    let listed: Vec<&str> = v["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    let mine: Vec<&str> = mine.iter().map(|n| n.as_str()).collect();
    assert_eq!(listed, mine);
    let path = format!("/api/v1/targets?target={}", theirs[0]);
    let r = get(d.addr, &path, "").await;
    assert_eq!(r.status, 404);
    assert_eq!(
        json_of(&r),
        json!({"error": "target belongs to another shard", "target": theirs[0], "shard": "1/2"})
    );
    let path = format!("/api/v1/targets?target={}", mine[0]);
    assert_eq!(get(d.addr, &path, "").await.status, 200);
    d.stop().await;
}

/// With basic auth configured the API wants credentials like every other path; with them
/// and `Accept-Encoding: gzip` the body is gzip that inflates to the same document.
#[tokio::test]
async fn auth_and_gzip() {
    let dir = std::env::temp_dir().join(format!("gse-api-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let hash = bcrypt::hash("panel-pass", 4).unwrap();
    let web_path = dir.join("web.yml");
    std::fs::write(&web_path, format!("basic_auth_users:\n  panel: '{hash}'\n")).unwrap();
    let web = Web::load(web_path).unwrap();
    let text = format!(
        "[exporter]\ninterval = \"1s\"\ntimeout = \"500ms\"\n{}{}",
        target("a", "a2s", "127.0.0.1:1", ""),
        target("b", "a2s", "127.0.0.1:2", "")
    );
    let d = harness::start_web(&text, Arc::new(Up), web).await;
    let auth = format!(
        "Authorization: Basic {}\r\n",
        base64::engine::general_purpose::STANDARD.encode("panel:panel-pass")
    );
    let r = get(d.addr, "/api/v1/targets", "").await;
    assert_eq!(r.status, 401);
    assert_eq!(r.header("www-authenticate"), Some("Basic"));
    let wrong = format!(
        "Authorization: Basic {}\r\n",
        base64::engine::general_purpose::STANDARD.encode("panel:nope")
    );
    assert_eq!(get(d.addr, "/api/v1/targets", &wrong).await.status, 401);

    let started = std::time::Instant::now();
    let p = loop {
        let p = get(d.addr, "/api/v1/targets", &auth).await;
        assert_eq!(p.status, 200);
        if json_of(&p)["counts"]["up"] == 2 {
            break p;
        }
        assert!(started.elapsed() < harness::DEADLINE, "{}", p.text());
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(p.header("content-encoding"), None);
    assert_eq!(p.header("vary"), Some("Accept-Encoding"));
    let z = get(
        d.addr,
        "/api/v1/targets",
        &format!("{auth}Accept-Encoding: gzip\r\n"),
    )
    .await;
    assert_eq!(z.status, 200);
    assert_eq!(z.header("content-encoding"), Some("gzip"), "{}", z.head);
    assert_eq!(z.header("content-type"), Some("application/json"));
    let mut inflated = Vec::new();
    flate2::read::GzDecoder::new(&z.body[..])
        .read_to_end(&mut inflated)
        .unwrap();
    let (mut plain_doc, mut zipped_doc) = (
        json_of(&p),
        serde_json::from_slice::<Value>(&inflated).unwrap(),
    );
    // What changes between two requests: the time, and each target's last poll.
    for doc in [&mut plain_doc, &mut zipped_doc] {
        doc["generated"] = Value::Null;
        for t in doc["targets"].as_array_mut().unwrap() {
            for k in ["polls", "last_success", "latency_seconds"] {
                t[k] = Value::Null;
            }
        }
    }
    assert_eq!(plain_doc, zipped_doc);
    d.stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}
