//! Sharded replicas in-process on 127.0.0.1:0 over one configuration: together they cover
//! every target exactly once (polls, /metrics, /sd), each in the replica Prometheus's hashmod
//! names; /probe for another shard's target names the owner; a reload keeps the shard.

use crate::support::wait;
use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::support::daemon as harness;
use crate::support::http;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober};
use gameserver_exporter::shard::hashmod;
use gameserver_exporter::status::Status;
use harness::{start, start_shard, target};

/// Answers every poll with a fixed up status and records the polled addresses. No sockets:
/// the configured addresses are never contacted.
#[derive(Default)]
struct Fake {
    polled: Mutex<BTreeSet<String>>,
}

impl Prober for Fake {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        self.polled.lock().unwrap().insert(req.address.to_string());
        Box::pin(async {
            Ok(Status {
                online: 1,
                max: 2,
                name: "sim".into(),
                ..Default::default()
            })
        })
    }
}

async fn request(addr: SocketAddr, method: &str, path: &str) -> (u16, String) {
    let r = http::plain(addr, method, path, "")
        .await
        .expect("an HTTP reply");
    (r.status, r.text().to_string())
}

async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    request(addr, "GET", path).await
}

/// The `target` label of every `gameserver_up` sample.
fn up_targets(metrics: &str) -> BTreeSet<String> {
    metrics
        .lines()
        .filter_map(|l| l.strip_prefix("gameserver_up{target=\""))
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// Waits until `/metrics` shows `n` polled targets, and returns the page.
async fn metrics_with(addr: SocketAddr, n: usize) -> String {
    wait::until(&format!("{n} polled targets"), || async move {
        let (_, body) = get(addr, "/metrics").await;
        (up_targets(&body).len() >= n).then_some(body)
    })
    .await
}

const FAST: &str = "[exporter]\ninterval = \"200ms\"\ntimeout = \"100ms\"\nprobe_allowed_networks = [\"127.0.0.0/8\"]\n";

fn names(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("server-{i}")).collect()
}

/// One config naming `names`, target i at 10.0.0.i:27015 (never contacted: the prober is fake).
fn config(names: &[String]) -> String {
    let mut text = FAST.to_string();
    for (i, n) in names.iter().enumerate() {
        text.push_str(&target(
            n,
            "a2s",
            &format!("10.0.{}.{}:27015", i / 200, i % 200),
            "",
        ));
    }
    text
}

/// Three replicas over one 30-target config: every target is polled, published and listed in
/// /sd by exactly one replica, the one hashmod(name, 3) names; each says which shard it is.
#[tokio::test]
async fn three_replicas_cover_every_target_once() {
    let all = names(30);
    let text = config(&all);
    let mut replicas = Vec::new();
    for i in 0..3 {
        let fake = Arc::new(Fake::default());
        let d = start_shard(&text, fake.clone(), Some(&format!("{i}/3"))).await;
        replicas.push((i, d, fake));
    }
    let mut owner: BTreeMap<String, u64> = BTreeMap::new();
    for (i, d, fake) in &replicas {
        let expected: BTreeSet<String> = all
            .iter()
            .filter(|n| hashmod(n, 3) == *i)
            .cloned()
            .collect();
        assert!(!expected.is_empty(), "30 names leave no shard empty");
        let body = metrics_with(d.addr, expected.len()).await;
        assert_eq!(
            up_targets(&body),
            expected,
            "replica {i} publishes its share"
        );
        assert!(
            body.contains(&format!(
                "\ngameserver_exporter_shard_info{{shard=\"{i}\",shards=\"3\"}} 1\n"
            )),
            "{body}"
        );
        let count: u64 = body
            .lines()
            .filter(|l| l.starts_with("gameserver_targets{"))
            .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(count, expected.len() as u64);
        let (status, sd) = get(d.addr, "/sd").await;
        assert_eq!(status, 200);
        let groups: Vec<serde_json::Value> = serde_json::from_str(&sd).unwrap();
        let listed: BTreeSet<String> = groups
            .iter()
            .map(|g| g["targets"][0].as_str().unwrap().to_string())
            .collect();
        assert_eq!(listed, expected, "replica {i} lists its share in /sd");
        // The addresses it polled are exactly its targets' addresses.
        let want: BTreeSet<String> = all
            .iter()
            .enumerate()
            .filter(|(_, n)| expected.contains(*n))
            .map(|(k, _)| format!("10.0.{}.{}:27015", k / 200, k % 200))
            .collect();
        assert_eq!(*fake.polled.lock().unwrap(), want, "replica {i} polls");
        for n in expected {
            assert_eq!(owner.insert(n, *i), None, "published twice");
        }
    }
    assert_eq!(owner.len(), all.len(), "every target published once");
    for (_, d, _) in replicas {
        d.stop().await;
    }
}

/// /probe?target= answers on the owning replica only; elsewhere it is a 404 naming the owner,
/// distinct from an unknown name. Ad-hoc probes work on every replica.
#[tokio::test]
async fn probe_names_the_owning_shard() {
    let all = names(12);
    let text = config(&all);
    let name = &all[0];
    let owner = hashmod(name, 3);
    let other = (owner + 1) % 3;
    let fake = Arc::new(Fake::default());
    let d_owner = start_shard(&text, fake.clone(), Some(&format!("{owner}/3"))).await;
    let d_other = start_shard(&text, fake.clone(), Some(&format!("{other}-of-3"))).await;

    let (status, body) = get(d_owner.addr, &format!("/probe?target={name}")).await;
    assert_eq!(status, 200, "{body}");
    assert!(body.contains(&format!(
        "gameserver_up{{target=\"{name}\",protocol=\"a2s\"}} 1\n"
    )));

    let (status, body) = get(d_other.addr, &format!("/probe?target={name}")).await;
    assert_eq!(status, 404);
    assert_eq!(
        body,
        format!(
            "target \"{name}\" belongs to shard {owner}/3, not this replica (shard {other}/3)\n"
        )
    );
    let (status, body) = get(d_other.addr, "/probe?target=nope").await;
    assert_eq!((status, body.as_str()), (404, "unknown target \"nope\"\n"));

    for d in [&d_owner, &d_other] {
        let (status, body) = get(d.addr, "/probe?protocol=a2s&address=127.0.0.1:9").await;
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("gameserver_up{target=\"127.0.0.1:9\",protocol=\"a2s\"} 1\n"));
    }
    d_owner.stop().await;
    d_other.stop().await;
}

/// `exporter.shard` in the file works like --shard; a reload of a file that names another
/// shard and more targets keeps the running shard and takes its share of the new targets.
#[tokio::test]
async fn config_key_and_reload_keep_the_shard() {
    let all = names(20);
    let text = config(&all[..10]).replace("[exporter]\n", "[exporter]\nshard = \"1/3\"\n");
    let d = start(&text, Arc::new(Fake::default())).await;
    let share = |names: &[String]| -> BTreeSet<String> {
        names
            .iter()
            .filter(|n| hashmod(n, 3) == 1)
            .cloned()
            .collect()
    };
    let body = metrics_with(d.addr, share(&all[..10]).len()).await;
    assert_eq!(up_targets(&body), share(&all[..10]));
    assert!(body.contains("\ngameserver_exporter_shard_info{shard=\"1\",shards=\"3\"} 1\n"));

    d.write_config(&config(&all).replace("[exporter]\n", "[exporter]\nshard = \"2/3\"\n"));
    let (status, body) = request(d.addr, "POST", "/-/reload").await;
    assert_eq!((status, body.as_str()), (200, "configuration reloaded\n"));
    let body = metrics_with(d.addr, share(&all).len()).await;
    assert_eq!(up_targets(&body), share(&all));
    assert!(body.contains("\ngameserver_exporter_shard_info{shard=\"1\",shards=\"3\"} 1\n"));
    d.stop().await;
}

/// Without sharding a replica owns everything and says shard 0 of 1.
#[tokio::test]
async fn unsharded_is_shard_zero_of_one() {
    let all = names(5);
    let d = start(&config(&all), Arc::new(Fake::default())).await;
    let body = metrics_with(d.addr, all.len()).await;
    assert_eq!(up_targets(&body), all.iter().cloned().collect());
    assert!(body.contains(
        "# TYPE gameserver_exporter_shard_info gauge\ngameserver_exporter_shard_info{shard=\"0\",shards=\"1\"} 1\n"
    ));
    d.stop().await;
}
