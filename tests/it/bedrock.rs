//! Minecraft Bedrock against the simulator over real loopback UDP sockets: the codec with
//! every ID string layout and misbehaviour, then the exporter's own dialogue (`query::poll`),
//! the `query` command and the daemon's gauges.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::bedrock::{self, Pong};
use gameserver_exporter::protocol::DecodeError;
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::simulate::bedrock::{
    spawn, BedrockConfig, IdLayout, Misbehaviour, SERVER_GUID,
};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::{Address, Protocol};
use tokio::net::UdpSocket;

use crate::support::daemon as harness;
use harness::{start, target, wait_for};

fn world() -> World {
    World::new(WorldState {
        name: "§6Sim §lBedrock".into(),
        map: "Sim level".into(),
        version: "1.21.50".into(),
        max: 30,
        bots: 0,
        players: vec![("Steve".into(), 0, 0.0), ("Alex".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

#[derive(Debug)]
enum Outcome {
    Pong(Box<Pong>, Duration),
    Bad(DecodeError),
    Silent,
}

async fn ping(server: SocketAddr, time: i64) -> Outcome {
    let sock = UdpSocket::bind("127.0.0.1:0").await.unwrap();
    sock.connect(server).await.unwrap();
    let mut out = Vec::new();
    bedrock::encode_ping(time, 0xC11E_0000_0000_0001, &mut out);
    let sent = Instant::now();
    sock.send(&out).await.unwrap();
    let mut buf = vec![0u8; 65_536];
    match tokio::time::timeout(Duration::from_millis(300), sock.recv(&mut buf)).await {
        Err(_) => Outcome::Silent,
        Ok(n) => match bedrock::decode_pong(&buf[..n.unwrap()], time) {
            Ok(p) => Outcome::Pong(Box::new(p), sent.elapsed()),
            Err(e) => Outcome::Bad(e),
        },
    }
}

async fn sim(layout: IdLayout, misbehaviour: Misbehaviour) -> SimServer {
    let config = BedrockConfig {
        layout,
        misbehaviour,
        ..BedrockConfig::default()
    };
    spawn(world(), config).await.unwrap()
}

/// The vanilla layout decodes every field; the status has the true counts and stripped MOTD.
#[tokio::test]
async fn friendly_full_layout() {
    let server = sim(IdLayout::Full, Misbehaviour::None).await;
    let addr = server.addr;
    let Outcome::Pong(pong, rtt) = ping(addr, 77).await else {
        panic!("no pong")
    };
    assert_eq!(pong.server_guid, SERVER_GUID);
    let id = &pong.id;
    assert_eq!(id.edition, "MCPE");
    assert_eq!(id.protocol, Some(766));
    assert_eq!(id.guid.as_deref(), Some(SERVER_GUID.to_string().as_str()));
    assert_eq!(id.game_mode_number, Some(1));
    assert_eq!(id.port_v4, Some(addr.port()));
    assert_eq!(id.port_v6, Some(addr.port()));
    let s = bedrock::to_status(&pong, rtt, true);
    assert_eq!((s.online, s.max), (2, 30));
    assert_eq!(s.name, "Sim Bedrock");
    assert_eq!(s.map.as_deref(), Some("Sim level"));
    assert_eq!(s.game.as_deref(), Some("Survival"));
    assert_eq!(s.version.as_deref(), Some("1.21.50"));
}

/// Shorter and longer layouts decode as far as they go, never an error.
#[tokio::test]
async fn other_layouts() {
    for layout in [
        IdLayout::StopAfterGameMode,
        IdLayout::StopAfterGuid,
        IdLayout::ZeroGuid,
        IdLayout::ExtraFields,
    ] {
        let server = sim(layout, Misbehaviour::None).await;
        let addr = server.addr;
        let Outcome::Pong(pong, _) = ping(addr, -5).await else {
            panic!("{layout:?}: no pong")
        };
        let id = &pong.id;
        assert_eq!(
            (id.online, id.max, id.motd.as_str()),
            (2, 30, "Sim Bedrock")
        );
        match layout {
            IdLayout::StopAfterGuid => {
                assert_eq!((id.level.as_ref(), id.game_mode.as_ref()), (None, None))
            }
            IdLayout::StopAfterGameMode => {
                assert_eq!(id.game_mode.as_deref(), Some("Survival"));
                assert_eq!(id.port_v4, None);
            }
            IdLayout::ZeroGuid => assert_eq!(id.guid.as_deref(), Some("0")),
            IdLayout::ExtraFields => assert_eq!(id.port_v6, Some(addr.port())),
            IdLayout::Full => unreachable!(),
        }
    }
}

/// Each misbehaviour ends in the failure reason the exporter must report, within bounds.
#[tokio::test]
async fn misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Short, Some(Reason::Malformed)),
        (Misbehaviour::BadMagic, Some(Reason::Mismatch)),
        (Misbehaviour::WrongTime, Some(Reason::Mismatch)),
        (Misbehaviour::LengthBeyondDatagram, Some(Reason::Malformed)),
        (Misbehaviour::HugeId, Some(Reason::TooLarge)),
        (Misbehaviour::Silence, None),
    ] {
        let server = sim(IdLayout::Full, m).await;
        match (ping(server.addr, 1234).await, want) {
            (Outcome::Bad(e), Some(reason)) => {
                assert_eq!(query::Error::from(e.clone()).reason(), reason, "{m:?}: {e}")
            }
            (Outcome::Silent, None) => {}
            (other, _) => panic!("{m:?}: {other:?}"),
        }
    }
}

/// Someone else's clients read our simulator the way we do: PyPI `mcstatus`
/// (`BedrockServer.lookup(...).status()`) and npm `gamedig` (type `mbe`). Opt-in, since
/// neither is installed by the build: set `MCSTATUS_PYTHON` to a Python with mcstatus and/or
/// `GAMEDIG_DIR` to a directory whose node_modules holds gamedig.
#[test]
fn third_party_clients_read_the_simulator() {
    let python = std::env::var("MCSTATUS_PYTHON").ok();
    let gamedig = std::env::var("GAMEDIG_DIR").ok();
    if python.is_none() && gamedig.is_none() {
        eprintln!("skipped: set MCSTATUS_PYTHON and/or GAMEDIG_DIR");
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(sim(IdLayout::Full, Misbehaviour::None));
    let port = server.addr.port();
    if let Some(python) = python {
        let script = format!(
            "from mcstatus import BedrockServer\n\
             s = BedrockServer.lookup('127.0.0.1:{port}').status()\n\
             print(s.players.online, s.players.max, s.motd.to_plain(), s.map_name, \
             s.gamemode, s.version.name, s.version.protocol, sep='|')"
        );
        let out = std::process::Command::new(python)
            .args(["-c", &script])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        eprintln!("mcstatus: {text}{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(
            text.trim(),
            "2|30|Sim Bedrock|Sim level|Survival|1.21.50|766"
        );
    }
    if let Some(dir) = gamedig {
        let script = format!(
            "const {{ GameDig }} = require('gamedig');\n\
             GameDig.query({{ type: 'mbe', host: '127.0.0.1', port: {port}, maxRetries: 1, socketTimeout: 1000 }})\n\
             .then(s => console.log([s.numplayers, s.maxplayers, s.name, s.map, s.version].join('|')))\n\
             .catch(e => {{ console.error(e); process.exit(1) }})"
        );
        let out = std::process::Command::new("node")
            .args(["-e", &script])
            .current_dir(dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        eprintln!("gamedig: {text}{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.status.success());
        assert_eq!(text.trim(), "2|30|Sim Bedrock|Sim level|1.21.50");
    }
    drop(server);
}

fn request(server: &SimServer) -> Request {
    let mut req = Request::new(
        Protocol::MinecraftBedrock,
        Address::parse(&server.addr.to_string()).unwrap(),
    );
    req.timeout = Duration::from_millis(800);
    req.detail = true;
    req
}

/// The dialogue polls a friendly server: true counts, MOTD lines without `§` codes, game
/// mode, version, and the extras `query --json` shows.
#[tokio::test]
async fn dialogue_polls() {
    let server = sim(IdLayout::Full, Misbehaviour::None).await;
    let s = query::poll(&request(&server)).await.unwrap();
    assert_eq!((s.online, s.max, s.bots), (2, 30, None));
    assert_eq!(s.name, "Sim Bedrock");
    assert_eq!(s.map.as_deref(), Some("Sim level"));
    assert_eq!(s.game.as_deref(), Some("Survival"));
    assert_eq!(s.version.as_deref(), Some("1.21.50"));
    assert!(s.latency > Duration::ZERO && s.latency < Duration::from_millis(800));
    assert_eq!(s.extras["edition"], "MCPE");
    assert_eq!(s.extras["protocol"], 766);
    assert_eq!(s.extras["server_guid"], SERVER_GUID.to_string());
    assert_eq!(s.extras["port_v4"], server.addr.port());
    // Without `detail` (the daemon) no extras are kept.
    let mut req = request(&server);
    req.detail = false;
    assert!(query::poll(&req).await.unwrap().extras.is_empty());
}

/// Every misbehaviour fails the dialogue with its reason, within the deadline.
#[tokio::test]
async fn dialogue_misbehaviours() {
    for (m, want) in [
        (Misbehaviour::Short, Reason::Malformed),
        (Misbehaviour::BadMagic, Reason::Mismatch),
        (Misbehaviour::WrongTime, Reason::Mismatch),
        (Misbehaviour::LengthBeyondDatagram, Reason::Malformed),
        (Misbehaviour::HugeId, Reason::TooLarge),
        (Misbehaviour::Silence, Reason::Timeout),
    ] {
        let server = sim(IdLayout::Full, m).await;
        let started = Instant::now();
        let f = query::poll(&request(&server)).await.unwrap_err();
        assert_eq!(f.reason, want, "{m:?}: {}", f.detail);
        assert!(started.elapsed() < Duration::from_secs(2), "{m:?}");
    }
}

fn exe() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
}

/// `query minecraft-bedrock HOST:PORT [--json]` exits 0 with the true counts and MOTD.
#[test]
fn query_command() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let server = rt.block_on(sim(IdLayout::Full, Misbehaviour::None));
    let addr = server.addr.to_string();
    let out = exe()
        .args(["query", "minecraft-bedrock", &addr, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (v["online"].as_u64(), v["max"].as_u64()),
        (Some(2), Some(30))
    );
    assert_eq!(v["name"], "Sim Bedrock");
    assert_eq!(v["map"], "Sim level");
    assert_eq!(v["version"], "1.21.50");
    assert_eq!(v["extras"]["edition"], "MCPE");
    let out = exe()
        .args(["query", "minecraft-bedrock", &addr])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("name:     Sim Bedrock\nplayers:  2/30\nmap:      Sim level\n"),
        "{text}"
    );
    // A misbehaving server: exit 1 with the reason.
    let bad = rt.block_on(sim(IdLayout::Full, Misbehaviour::WrongTime));
    let out = exe()
        .args([
            "query",
            "minecraft-bedrock",
            &bad.addr.to_string(),
            "--timeout",
            "700ms",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("mismatch"),
        "{out:?}"
    );
    drop((server, bad));
}

/// The daemon publishes the gauges of a Bedrock server, and `up 0` with the reason for a
/// misbehaving one.
#[tokio::test]
async fn daemon_gauges() {
    let ok = sim(IdLayout::StopAfterGameMode, Misbehaviour::None).await;
    let bad = sim(IdLayout::Full, Misbehaviour::LengthBeyondDatagram).await;
    let text = format!(
        "[exporter]\ninterval = \"300ms\"\ntimeout = \"250ms\"\n{}{}",
        target("be", "minecraft-bedrock", &ok.addr.to_string(), ""),
        target("bad", "minecraft-bedrock", &bad.addr.to_string(), ""),
    );
    let d = start(&text, std::sync::Arc::new(QueryProber)).await;
    let want = [
        "gameserver_up{target=\"be\",protocol=\"minecraft-bedrock\"} 1",
        "gameserver_players_online{target=\"be\",protocol=\"minecraft-bedrock\"} 2",
        "gameserver_players_max{target=\"be\",protocol=\"minecraft-bedrock\"} 30",
        "gameserver_info{target=\"be\",protocol=\"minecraft-bedrock\",name=\"Sim Bedrock\",map=\"Sim level\",game=\"Survival\",version=\"1.21.50\"} 1",
        "gameserver_up{target=\"bad\",protocol=\"minecraft-bedrock\"} 0",
        "gameserver_query_failures_total{target=\"bad\",protocol=\"minecraft-bedrock\",reason=\"malformed\"} ",
    ];
    let body = wait_for(d.addr, &want).await;
    assert!(
        body.contains("gameserver_latency_seconds{target=\"be\",protocol=\"minecraft-bedrock\"} "),
        "{body}"
    );
    assert!(
        !body.contains("gameserver_players_bots{target=\"be\""),
        "{body}"
    );
    d.stop().await;
}
