//! "Who is online" end to end: the daemon on 127.0.0.1:0 polling the simulators, its
//! `/metrics` and `/probe` read with the strict exposition parser. Queue and true counts,
//! capped and hostile per-player series, players leaving, joins and leaves, rules, and
//! player-seconds against the daemon's own success timestamps (no wall-clock thresholds).

use crate::support::wait;
use std::net::SocketAddr;
use std::sync::Arc;

use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::a2s::A2sConfig;
use gameserver_exporter::simulate::{self, World, WorldState};

use crate::support::daemon as harness;
use crate::support::expo;
use crate::support::http;
use expo::Sample;
use harness::{start, target};

const FAST: &str = "[exporter]\ninterval = \"300ms\"\ntimeout = \"250ms\"\n";

async fn get(addr: SocketAddr, path: &str) -> String {
    http::get_ok(addr, path).await
}

/// Every sample of `/metrics` (or `path`), through the strict parser.
async fn scrape(addr: SocketAddr, path: &str) -> Vec<Sample> {
    let body = get(addr, path).await;
    expo::parse(body.as_bytes(), expo::Format::Text)
        .unwrap_or_else(|e| panic!("invalid exposition: {e}\n{body}"))
}

/// Samples of family `name` for target `t`.
fn of<'a>(samples: &'a [Sample], name: &str, t: &str) -> Vec<&'a Sample> {
    samples
        .iter()
        .filter(|s| s.name == name && s.label("target") == Some(t))
        .collect()
}

fn value(samples: &[Sample], name: &str, t: &str) -> Option<f64> {
    match of(samples, name, t).as_slice() {
        [] => None,
        [s] => Some(s.value),
        more => panic!("{} samples of {name} for {t}", more.len()),
    }
}

/// Scrapes until `cond` holds.
async fn until(addr: SocketAddr, cond: impl Fn(&[Sample]) -> bool) -> Vec<Sample> {
    let cond = &cond;
    wait::until("metrics matching", || async move {
        let s = scrape(addr, "/metrics").await;
        cond(&s).then_some(s)
    })
    .await
}

fn players(names: &[&str]) -> Vec<(String, i32, f32)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.to_string(), i as i32, 10.0 + i as f32))
        .collect()
}

fn polled(samples: &[Sample], t: &str) -> f64 {
    value(samples, "gameserver_queries_total", t).unwrap_or(0.0)
}

/// Rust's keywords give true counts and the queue; players off publishes no per-player
/// series, no joins or leaves, no dropped count, but player-seconds.
#[tokio::test]
async fn rust_keywords_and_players_off() {
    let world = World::new(WorldState {
        players: players(&["a", "b"]),
        ..WorldState::default()
    });
    let rust = A2sConfig {
        keywords: Some("biweekly,cp312,mp400,qp17,ptrak".into()),
        ..A2sConfig::default()
    };
    let srv = simulate::a2s::spawn(world.clone(), rust).await.unwrap();
    let plain = simulate::a2s::spawn(world, A2sConfig::default())
        .await
        .unwrap();
    let text = format!(
        "{FAST}{}{}",
        target("rust", "a2s", &srv.addr.to_string(), ""),
        target("plain", "a2s", &plain.addr.to_string(), ""),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| {
        polled(s, "rust") >= 1.0 && polled(s, "plain") >= 1.0
    })
    .await;
    assert_eq!(value(&s, "gameserver_players_online", "rust"), Some(312.0));
    assert_eq!(value(&s, "gameserver_players_max", "rust"), Some(400.0));
    assert_eq!(value(&s, "gameserver_players_queued", "rust"), Some(17.0));
    // No queue keyword: no queue series (absent, not 0).
    assert_eq!(value(&s, "gameserver_players_online", "plain"), Some(2.0));
    assert_eq!(value(&s, "gameserver_players_queued", "plain"), None);
    for family in [
        "gameserver_player_info",
        "gameserver_player_score",
        "gameserver_player_connected_seconds",
        "gameserver_player_ping_seconds",
        "gameserver_player_series_dropped",
        "gameserver_player_joins_total",
        "gameserver_player_leaves_total",
        "gameserver_rule_value",
        "gameserver_rule_info",
    ] {
        assert!(
            s.iter().all(|x| x.name != family),
            "{family} published with players off"
        );
    }
    assert!(value(&s, "gameserver_player_seconds_total", "rust").is_some());
    d.stop().await;
}

/// 150 players under the default cap: 100 series per family the protocol fills, in list
/// order, and 50 counted as dropped.
#[tokio::test]
async fn default_cap() {
    let names: Vec<String> = (0..150).map(|i| format!("p{i:03}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let world = World::new(WorldState {
        players: players(&refs),
        max: 200,
        ..WorldState::default()
    });
    let srv = simulate::a2s::spawn(world, A2sConfig::default())
        .await
        .unwrap();
    let text = format!(
        "{FAST}{}",
        target("big", "a2s", &srv.addr.to_string(), "players = true\n")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| {
        value(s, "gameserver_player_series_dropped", "big").is_some()
    })
    .await;
    assert_eq!(
        value(&s, "gameserver_player_series_dropped", "big"),
        Some(50.0)
    );
    let scores = of(&s, "gameserver_player_score", "big");
    assert_eq!(scores.len(), 100);
    assert_eq!(scores[0].label("player"), Some("p000"));
    assert_eq!(scores[99].label("player"), Some("p099"));
    assert_eq!(scores[99].value, 99.0);
    let connected = of(&s, "gameserver_player_connected_seconds", "big");
    assert_eq!(connected.len(), 100);
    assert_eq!(connected[1].value, 11.0);
    // A2S gives no ping.
    assert!(of(&s, "gameserver_player_ping_seconds", "big").is_empty());
    assert_eq!(value(&s, "gameserver_players_online", "big"), Some(150.0));
    d.stop().await;
}

/// Hostile names (empty, quotes and backslashes, newline, duplicates, a long one) give five
/// distinct series in valid exposition, in both formats, with the documented cleaning.
#[tokio::test]
async fn hostile_names() {
    let long = "é".repeat(5000);
    let world = World::new(WorldState {
        players: players(&["", "q\"b\\s", "new\nline", "dup", "dup"])
            .into_iter()
            .chain([(long.clone(), 0, 1.0)])
            .collect(),
        ..WorldState::default()
    });
    let srv = simulate::a2s::spawn(world, A2sConfig::default())
        .await
        .unwrap();
    let text = format!(
        "{FAST}{}",
        target(
            "h",
            "a2s",
            &srv.addr.to_string(),
            "players = { max_series = 5 }\n"
        )
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| {
        !of(s, "gameserver_player_score", "h").is_empty()
    })
    .await;
    let names: Vec<&str> = of(&s, "gameserver_player_score", "h")
        .iter()
        .map(|x| x.label("player").unwrap())
        .collect();
    assert_eq!(names, ["(empty)", "q\"b\\s", "newline", "dup", "dup #2"]);
    assert_eq!(
        value(&s, "gameserver_player_series_dropped", "h"),
        Some(1.0)
    );
    // OpenMetrics too passes the strict parser.
    let accept = "Accept: application/openmetrics-text; version=1.0.0\r\n";
    let om = http::plain(d.addr, "GET", "/metrics", accept)
        .await
        .unwrap();
    assert_eq!(om.status, 200, "{}", om.head);
    expo::parse(&om.body, expo::Format::OpenMetrics).unwrap();
    d.stop().await;
}

/// A player who leaves loses their series at the next scrape after the next poll; joins and
/// leaves count the difference, the first list counting none.
#[tokio::test]
async fn leaving_and_joining() {
    let world = World::new(WorldState {
        players: players(&["alice", "bob", "carol"]),
        ..WorldState::default()
    });
    let srv = simulate::a2s::spawn(world.clone(), A2sConfig::default())
        .await
        .unwrap();
    let text = format!(
        "{FAST}{}",
        target("t", "a2s", &srv.addr.to_string(), "players = true\n")
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| of(s, "gameserver_player_score", "t").len() == 3).await;
    assert_eq!(value(&s, "gameserver_player_joins_total", "t"), Some(0.0));
    assert_eq!(value(&s, "gameserver_player_leaves_total", "t"), Some(0.0));
    world.update(|w| {
        w.players.remove(1);
        w.players.push(("dave".into(), 9, 1.0));
        w.players.push(("erin".into(), 9, 1.0));
    });
    let s = until(d.addr, |s| of(s, "gameserver_player_score", "t").len() == 4).await;
    let names: Vec<&str> = of(&s, "gameserver_player_score", "t")
        .iter()
        .map(|x| x.label("player").unwrap())
        .collect();
    assert_eq!(names, ["alice", "carol", "dave", "erin"]);
    assert_eq!(value(&s, "gameserver_player_joins_total", "t"), Some(2.0));
    assert_eq!(value(&s, "gameserver_player_leaves_total", "t"), Some(1.0));
    d.stop().await;
}

/// Numeric rules become values, text rules info series, unlisted rules nothing; SA:MP also
/// gets map and version from its rules, and pings from `d`.
#[tokio::test]
async fn rules_and_samp() {
    let world = World::new(WorldState {
        players: players(&["Carl", "Ryder"]),
        rules: vec![
            ("mp_timelimit".into(), "25".into()),
            ("sv_contact".into(), "admin@example.org".into()),
            ("secret".into(), "x".into()),
        ],
        map: "San Andreas".into(),
        version: "0.3.7-R2".into(),
        ..WorldState::default()
    });
    let a2s = simulate::a2s::spawn(world.clone(), A2sConfig::default())
        .await
        .unwrap();
    let samp = simulate::samp::spawn(world, Default::default())
        .await
        .unwrap();
    let rules = "rules = [\"mp_timelimit\", \"sv_contact\", \"weather\", \"missing\"]\n";
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}",
        target("a", "a2s", &a2s.addr.to_string(), rules),
        target(
            "s",
            "samp",
            &samp.addr.to_string(),
            &format!("players = true\n{rules}")
        ),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| {
        !of(s, "gameserver_rule_value", "a").is_empty()
            && !of(s, "gameserver_player_ping_seconds", "s").is_empty()
    })
    .await;
    let rule = |name: &str, t: &str| -> Vec<(String, Option<String>, f64)> {
        of(&s, name, t)
            .iter()
            .map(|x| {
                (
                    x.label("rule").unwrap().to_string(),
                    x.label("value").map(str::to_string),
                    x.value,
                )
            })
            .collect()
    };
    assert_eq!(
        rule("gameserver_rule_value", "a"),
        [("mp_timelimit".to_string(), None, 25.0)]
    );
    assert_eq!(
        rule("gameserver_rule_info", "a"),
        [(
            "sv_contact".to_string(),
            Some("admin@example.org".to_string()),
            1.0
        )]
    );
    // SA:MP's stock `weather` rule is "10".
    assert_eq!(
        rule("gameserver_rule_value", "s"),
        [
            ("mp_timelimit".to_string(), None, 25.0),
            ("weather".to_string(), None, 10.0)
        ]
    );
    let info = of(&s, "gameserver_info", "s");
    assert_eq!(info[0].label("map"), Some("San Andreas"));
    assert_eq!(info[0].label("version"), Some("0.3.7-R2"));
    let pings: Vec<(&str, f64)> = of(&s, "gameserver_player_ping_seconds", "s")
        .iter()
        .map(|x| (x.label("player").unwrap(), x.value))
        .collect();
    assert_eq!(pings, [("Carl", 0.02), ("Ryder", 0.025)]);
    assert_eq!(of(&s, "gameserver_player_score", "s").len(), 2);
    assert!(of(&s, "gameserver_player_connected_seconds", "s").is_empty());
    // /probe of a configured target returns the same per-player and rule series.
    let p = scrape(d.addr, "/probe?target=s").await;
    assert_eq!(of(&p, "gameserver_player_ping_seconds", "s").len(), 2);
    assert_eq!(of(&p, "gameserver_rule_value", "s").len(), 2);
    assert_eq!(
        value(&p, "gameserver_player_series_dropped", "s"),
        Some(0.0)
    );
    d.stop().await;
}

/// Minecraft Query full stat and the SLP sample give names only.
#[tokio::test]
async fn minecraft_names() {
    let world = WorldState {
        players: players(&["Steve", "Alex"]),
        ..WorldState::default()
    };
    let mcq = simulate::mcquery::spawn(World::new(world.clone()), Default::default())
        .await
        .unwrap();
    let mc = simulate::minecraft::spawn(World::new(world), Default::default())
        .await
        .unwrap();
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}",
        target(
            "q",
            "minecraft-query",
            &mcq.addr.to_string(),
            "players = true\n"
        ),
        target("j", "minecraft", &mc.addr.to_string(), "players = true\n"),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| {
        value(s, "gameserver_player_series_dropped", "q").is_some()
            && value(s, "gameserver_player_series_dropped", "j").is_some()
    })
    .await;
    for t in ["q", "j"] {
        assert_eq!(value(&s, "gameserver_player_series_dropped", t), Some(0.0));
        let names: Vec<&str> = of(&s, "gameserver_player_info", t)
            .iter()
            .map(|x| x.label("player").unwrap())
            .collect();
        assert_eq!(names, ["Steve", "Alex"], "{t}");
        // Names only: no score, time or ping series.
        for family in [
            "gameserver_player_score",
            "gameserver_player_connected_seconds",
            "gameserver_player_ping_seconds",
        ] {
            assert!(of(&s, family, t).is_empty(), "{family} for {t}");
        }
        assert_eq!(value(&s, "gameserver_player_joins_total", t), Some(0.0));
    }
    d.stop().await;
}

/// Player-seconds grow by players online times the time between the daemon's own successful
/// polls, read from two scrapes' success timestamps.
#[tokio::test]
async fn player_seconds_grow() {
    let world = World::new(WorldState {
        players: players(&["a", "b", "c"]),
        ..WorldState::default()
    });
    let srv = simulate::a2s::spawn(world, A2sConfig::default())
        .await
        .unwrap();
    let text = format!("{FAST}{}", target("t", "a2s", &srv.addr.to_string(), ""));
    let d = start(&text, Arc::new(QueryProber)).await;
    let read = |s: &[Sample]| {
        (
            value(s, "gameserver_last_success_timestamp_seconds", "t").unwrap_or(0.0),
            value(s, "gameserver_player_seconds_total", "t").unwrap_or(0.0),
            polled(s, "t"),
        )
    };
    let first = read(&until(d.addr, |s| polled(s, "t") >= 1.0).await);
    let last = until(d.addr, |s| polled(s, "t") >= first.2 + 2.0).await;
    // Every poll answered, so every gap between the two success times counts.
    assert!(of(&last, "gameserver_query_failures_total", "t").is_empty());
    let second = read(&last);
    let elapsed = second.0 - first.0;
    assert!(elapsed > 0.0);
    let want = 3.0 * elapsed;
    assert!(
        (second.1 - first.1 - want).abs() < 1e-3,
        "player-seconds grew {} over {elapsed} s with 3 online",
        second.1 - first.1
    );
    d.stop().await;
}

/// Fetching the list is best effort: an A2S server that never answers A2S_PLAYER stays up
/// with no per-player series, and SA:MP above 100 players (no list) keeps its count from `i`.
#[tokio::test]
async fn list_unanswered() {
    let names: Vec<String> = (0..150).map(|i| format!("g{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let world = World::new(WorldState {
        players: players(&refs),
        max: 200,
        ..WorldState::default()
    });
    let mute = A2sConfig {
        answer_players: false,
        ..A2sConfig::default()
    };
    let a2s = simulate::a2s::spawn(world.clone(), mute).await.unwrap();
    let samp = simulate::samp::spawn(world, Default::default())
        .await
        .unwrap();
    let text = format!(
        "[exporter]\ninterval = \"500ms\"\ntimeout = \"400ms\"\n{}{}",
        target("a", "a2s", &a2s.addr.to_string(), "players = true\n"),
        target("s", "samp", &samp.addr.to_string(), "players = true\n"),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    let s = until(d.addr, |s| polled(s, "a") >= 1.0 && polled(s, "s") >= 1.0).await;
    for t in ["a", "s"] {
        assert_eq!(value(&s, "gameserver_up", t), Some(1.0), "{t}");
        assert_eq!(
            value(&s, "gameserver_players_online", t),
            Some(150.0),
            "{t}"
        );
        assert!(of(&s, "gameserver_player_score", t).is_empty(), "{t}");
        assert_eq!(
            value(&s, "gameserver_player_series_dropped", t),
            None,
            "{t}"
        );
        assert_eq!(
            value(&s, "gameserver_player_joins_total", t),
            Some(0.0),
            "{t}"
        );
    }
    d.stop().await;
}
