//! A2S_INFO replies that end before their optional trailing fields (HLTV proxies, old GoldSrc
//! and Source servers): decoded through the real dialogue, the `query` command and the daemon,
//! with the missing fields unknown instead of the server reported down.

use crate::support::wait;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::protocol::a2s::Engine;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig, InfoEnd};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::target::{Address, Protocol};
use serde_json::{json, Value};

use crate::support::daemon as harness;
use crate::support::http;
use harness::{start, target};

fn world() -> WorldState {
    WorldState {
        name: "Early End".into(),
        map: "crossfire".into(),
        game: "Half-Life".into(),
        version: "1.1.2.7".into(),
        max: 16,
        bots: 2,
        players: vec![("alice".into(), 5, 10.0)],
        rules: Vec::new(),
        password: false,
    }
}

async fn server(engine: Engine, info_end: InfoEnd) -> SimServer {
    let config = A2sConfig {
        engine,
        info_end,
        ..A2sConfig::default()
    };
    spawn(World::new(world()), config).await.unwrap()
}

fn request(sim: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::A2s,
        Address::parse(&sim.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(1000);
    req.detail = true;
    req
}

/// Each way a real reply ends early polls successfully: counts, name and map are the
/// server's, and exactly the fields the reply lacked are unknown.
#[tokio::test]
async fn every_early_end_polls() {
    // (engine, end, bots, vac in extras, version)
    let cases = [
        (Engine::GoldSrc, InfoEnd::Full, Some(2), Some(true), None),
        (Engine::GoldSrc, InfoEnd::BeforeBots, None, Some(true), None),
        (Engine::GoldSrc, InfoEnd::BeforeVac, None, None, None),
        (Engine::GoldSrc, InfoEnd::BeforeMod, None, None, None),
        (
            Engine::Source,
            InfoEnd::BeforeEdf,
            Some(2),
            Some(true),
            Some("1.1.2.7"),
        ),
        (
            Engine::Source,
            InfoEnd::BeforeVersion,
            Some(2),
            Some(true),
            None,
        ),
    ];
    for (engine, end, bots, vac, version) in cases {
        let sim = server(engine, end).await;
        let s = poll(&request(&sim))
            .await
            .unwrap_or_else(|f| panic!("{engine:?} {end:?}: {f}"));
        let what = format!("{engine:?} {end:?}");
        assert_eq!(s.online, 3, "{what}");
        assert_eq!(s.max, 16, "{what}");
        assert_eq!(s.name, "Early End", "{what}");
        assert_eq!(s.map.as_deref(), Some("crossfire"), "{what}");
        assert_eq!(s.bots, bots, "{what}");
        assert_eq!(
            s.extras.get("vac"),
            vac.map(|v| json!(v)).as_ref(),
            "{what}"
        );
        assert_eq!(s.version.as_deref(), version, "{what}");
        assert_eq!(s.extras["engine"], json!(engine.as_str()), "{what}");
        if engine == Engine::Source {
            // The EDF fields went with the end of the reply.
            assert!(s.extras.get("game_port").is_none(), "{what}");
            assert!(s.extras.get("steam_id").is_none(), "{what}");
        }
    }
}

fn exe() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
}

/// `query a2s --json` against an HLTV-like server (the reply ends before the mod block) and
/// an old GoldSrc server (it ends before bots) exits 0 with the true counts and bots null.
#[test]
fn query_command() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let servers = rt.block_on(async {
        vec![
            server(Engine::GoldSrc, InfoEnd::BeforeMod).await,
            server(Engine::GoldSrc, InfoEnd::BeforeBots).await,
            server(Engine::Source, InfoEnd::BeforeVersion).await,
        ]
    });
    for sim in &servers {
        let out = exe()
            .args(["query", "a2s", &sim.addr.to_string(), "--json"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{}: {stderr}", sim.addr);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["name"], "Early End");
        assert_eq!(v["online"], 3);
        assert_eq!(v["max"], 16);
        assert_eq!(v["map"], "crossfire");
    }
    let bots: Vec<Value> = servers
        .iter()
        .map(|sim| {
            let out = exe()
                .args(["query", "a2s", &sim.addr.to_string(), "--json"])
                .output()
                .unwrap();
            serde_json::from_slice::<Value>(&out.stdout).unwrap()["bots"].clone()
        })
        .collect();
    assert_eq!(bots, [Value::Null, Value::Null, json!(2)]);
    // The readable form says nothing about bots it does not know.
    let out = exe()
        .args(["query", "a2s", &servers[0].addr.to_string()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("players:  3/16\n"), "{text}");
    drop(servers);
}

async fn metrics(addr: std::net::SocketAddr) -> String {
    http::get_ok(addr, "/metrics").await
}

/// The daemon publishes early-ending servers as up with their counts, and no bots gauge
/// where the reply ended before the bots byte.
#[tokio::test]
async fn daemon_gauges() {
    let hltv = server(Engine::GoldSrc, InfoEnd::BeforeMod).await;
    let old = server(Engine::GoldSrc, InfoEnd::BeforeBots).await;
    let src = server(Engine::Source, InfoEnd::BeforeEdf).await;
    let text = format!(
        "[exporter]\ninterval = \"300ms\"\ntimeout = \"250ms\"\n{}{}{}",
        target("hltv", "a2s", &hltv.addr.to_string(), ""),
        target("old", "a2s", &old.addr.to_string(), ""),
        target("src", "a2s", &src.addr.to_string(), ""),
    );
    let d = start(&text, Arc::new(QueryProber)).await;
    // Up on a poll that came back within the short timeout: on a loaded machine an earlier
    // one may not have.
    let body = wait::until("three targets up", || async {
        let body = metrics(d.addr).await;
        let up = body
            .lines()
            .filter(|l| l.starts_with("gameserver_up{") && l.ends_with(" 1"))
            .count();
        (up == 3).then_some(body)
    })
    .await;
    for t in ["hltv", "old", "src"] {
        for line in [
            format!("gameserver_up{{target=\"{t}\",protocol=\"a2s\"}} 1"),
            format!("gameserver_players_online{{target=\"{t}\",protocol=\"a2s\"}} 3"),
            format!("gameserver_players_max{{target=\"{t}\",protocol=\"a2s\"}} 16"),
        ] {
            assert!(body.lines().any(|l| l == line), "missing {line}\n{body}");
        }
    }
    // Bots only where the reply carried the byte.
    let bots: Vec<&str> = body
        .lines()
        .filter(|l| l.starts_with("gameserver_players_bots{"))
        .collect();
    assert_eq!(
        bots,
        ["gameserver_players_bots{target=\"src\",protocol=\"a2s\"} 2"],
        "{body}"
    );
    assert!(!body.contains("reason=\"malformed\""), "{body}");
    d.stop().await;
}
