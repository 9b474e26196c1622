//! Minecraft server list ping against the simulator on 127.0.0.1, through the public `poll`.

use crate::support::patience;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use gameserver_exporter::protocol::minecraft::legacy::Variant;
use gameserver_exporter::protocol::minecraft::slp::Handshake;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::minecraft::{
    spawn, spawn_demo, McConfig, Misbehaviour, Mode, MotdStyle,
};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use serde_json::json;

fn world() -> World {
    World::new(WorldState {
        name: "§aA §lMinecraft§r Server".into(),
        version: "1.20.1".into(),
        max: 20,
        players: vec![("Alex".into(), 0, 0.0), ("Steve".into(), 0, 0.0)],
        ..WorldState::default()
    })
}

fn request(addr: SocketAddr, timeout: Duration) -> Request {
    let mut req = Request::new(
        Protocol::Minecraft,
        Address::parse(&addr.to_string()).unwrap(),
    );
    req.timeout = timeout;
    req
}

async fn poll_config(config: McConfig) -> Result<Status, gameserver_exporter::status::Failure> {
    let server = spawn(world(), config).await.unwrap();
    poll(&request(server.addr, patience::ANSWERED)).await
}

fn assert_modern(s: &Status) {
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.version.as_deref(), Some("1.20.1"));
    assert_eq!(s.extras.get("protocol_version"), Some(&json!(763)));
    assert_eq!(s.extras.get("legacy"), None);
}

/// A plain-string MOTD loses its § codes; counts, version and protocol come through.
#[tokio::test]
async fn plain_string_motd() {
    let s = poll_config(McConfig::default()).await.unwrap();
    assert_modern(&s);
    assert_eq!(s.extras.get("favicon"), Some(&json!(false)));
    assert_eq!(s.players, None);
    assert_eq!(s.extras.get("raw"), None);
}

/// A nested chat component MOTD renders to the same plain text.
#[tokio::test]
async fn nested_component_motd() {
    let s = poll_config(McConfig {
        motd: MotdStyle::Component,
        ..McConfig::default()
    })
    .await
    .unwrap();
    assert_modern(&s);
}

/// An array MOTD with § codes renders to the same plain text.
#[tokio::test]
async fn array_motd() {
    let s = poll_config(McConfig {
        motd: MotdStyle::Array,
        ..McConfig::default()
    })
    .await
    .unwrap();
    assert_modern(&s);
}

/// A status (with a 2 KiB favicon) arriving in 7-byte chunks is reassembled.
#[tokio::test]
async fn status_in_7_byte_chunks() {
    let s = poll_config(McConfig {
        chunks: Some((7, Duration::from_millis(1))),
        favicon_kib: 2,
        ..McConfig::default()
    })
    .await
    .unwrap();
    assert_modern(&s);
    assert_eq!(s.extras.get("favicon"), Some(&json!(true)));
}

/// A server that never answers the ping is still up; latency is the status round trip.
#[tokio::test]
async fn no_pong_still_up() {
    let s = poll_config(McConfig {
        answer_ping: false,
        ..McConfig::default()
    })
    .await
    .unwrap();
    assert_modern(&s);
    assert!(s.latency > Duration::ZERO);
}

/// Data after the JSON is ignored; players and detail appear when asked for, favicon never.
#[tokio::test]
async fn trailing_data_players_and_detail() {
    let server = spawn(
        world(),
        McConfig {
            trailing_data: true,
            favicon_kib: 1,
            ..McConfig::default()
        },
    )
    .await
    .unwrap();
    let mut req = request(server.addr, patience::ANSWERED);
    req.players = true;
    req.detail = true;
    let s = poll(&req).await.unwrap();
    assert_modern(&s);
    let names: Vec<&str> = s
        .players
        .as_ref()
        .unwrap()
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["Alex", "Steve"]);
    assert_eq!(
        s.extras.get("description"),
        Some(&json!("§aA §lMinecraft§r Server"))
    );
    let raw = s.extras.get("raw").unwrap();
    assert_eq!(raw["players"]["online"], json!(2));
    assert!(raw.get("favicon").is_none());
    assert_eq!(s.extras.get("favicon"), Some(&json!(true)));
}

/// The handshake carries the user's hostname and the port, big-endian, next state 1.
#[tokio::test]
async fn handshake_carries_hostname_and_port() {
    let config = McConfig::default();
    let seen = config.seen.clone();
    let server = spawn(world(), config).await.unwrap();
    let mut req = request(server.addr, patience::ANSWERED);
    req.address = Address::parse(&format!("localhost:{}", server.addr.port())).unwrap();
    poll(&req).await.unwrap();
    assert_eq!(
        seen.snapshot().handshakes,
        vec![Handshake {
            protocol_version: -1,
            address: "localhost".into(),
            port: server.addr.port(),
            next_state: 1,
        }]
    );
}

async fn poll_legacy(mode: Mode) -> (Status, Vec<Variant>) {
    let config = McConfig {
        mode,
        ..McConfig::default()
    };
    let seen = config.seen.clone();
    let server = spawn(world(), config).await.unwrap();
    let s = poll(&request(server.addr, patience::ANSWERED))
        .await
        .unwrap();
    let variants = seen.snapshot().legacy.into_iter().map(|(v, _)| v).collect();
    (s, variants)
}

/// A 1.6 server answers the first legacy ping, in the §1 format.
#[tokio::test]
async fn legacy_16() {
    let (s, sent) = poll_legacy(Mode::Legacy16).await;
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.version.as_deref(), Some("1.6.4"));
    assert_eq!(s.extras.get("protocol_version"), Some(&json!(78)));
    assert_eq!(s.extras.get("legacy"), Some(&json!("1.6")));
    assert_eq!(sent, [Variant::V16]);
}

/// A 1.4 server is reached after the 1.6 ping goes unanswered.
#[tokio::test]
async fn legacy_14() {
    let (s, sent) = poll_legacy(Mode::Legacy14).await;
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.version.as_deref(), Some("1.5.2"));
    assert_eq!(s.extras.get("protocol_version"), Some(&json!(61)));
    assert_eq!(s.extras.get("legacy"), Some(&json!("1.4")));
    assert_eq!(sent, [Variant::V16, Variant::V14]);
}

/// A beta server is reached last and answers in the old `motd§online§max` format.
#[tokio::test]
async fn legacy_beta() {
    let (s, sent) = poll_legacy(Mode::Beta).await;
    assert_eq!(s.name, "A Minecraft Server");
    assert_eq!((s.online, s.max), (2, 20));
    assert_eq!(s.version, None);
    assert_eq!(s.extras.get("protocol_version"), None);
    assert_eq!(s.extras.get("legacy"), Some(&json!("beta")));
    assert_eq!(sent, [Variant::V16, Variant::V14, Variant::Beta]);
}

/// Vanilla 1.20 speaks 1.7+, so no legacy ping is sent at all.
#[tokio::test]
async fn vanilla_120_uses_modern() {
    let (s, sent) = poll_legacy(Mode::Vanilla120).await;
    assert_modern(&s);
    assert!(sent.is_empty());
}

/// The demo server answers with its component MOTD and player count.
#[tokio::test]
async fn demo_server() {
    let server = spawn_demo(world()).await.unwrap();
    let s = poll(&request(server.addr, patience::ANSWERED))
        .await
        .unwrap();
    assert_modern(&s);
    assert_eq!(s.extras.get("favicon"), Some(&json!(true)));
}

/// A closed port is `refused`, well within the timeout.
#[tokio::test]
async fn closed_port_refused() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let started = Instant::now();
    let f = poll(&request(addr, patience::ANSWERED)).await.unwrap_err();
    assert_eq!(f.reason, Reason::Refused);
    // Refused at once, not after waiting the timeout out.
    assert!(started.elapsed() < patience::ANSWERED);
}

async fn failure(how: Misbehaviour, want: Reason) -> Reason {
    let server = spawn(
        world(),
        McConfig {
            misbehaviour: how,
            ..McConfig::default()
        },
    )
    .await
    .unwrap();
    poll(&request(server.addr, patience::timeout_for(want)))
        .await
        .unwrap_err()
        .reason
}

/// A server that accepts and says nothing is a timeout.
#[tokio::test]
async fn accept_silent_timeout() {
    assert_eq!(
        failure(Misbehaviour::AcceptSilent, Reason::Timeout).await,
        Reason::Timeout
    );
}

/// A server sending one byte a second is a timeout, not a hang.
#[tokio::test]
async fn slowloris_timeout() {
    assert_eq!(
        failure(Misbehaviour::Slowloris, Reason::Timeout).await,
        Reason::Timeout
    );
}

/// A six-byte VarInt is malformed.
#[tokio::test]
async fn varint_too_long_malformed() {
    assert_eq!(
        failure(Misbehaviour::VarIntTooLong, Reason::Malformed).await,
        Reason::Malformed
    );
}

/// A frame announcing 2 GiB is too large, without waiting for (or allocating) it.
#[tokio::test]
async fn announce_2gib_too_large() {
    assert_eq!(
        failure(Misbehaviour::Announce2GiB, Reason::TooLarge).await,
        Reason::TooLarge
    );
}

/// 16 MB of valid JSON exceeds the 1 MiB reply cap.
#[tokio::test]
async fn huge_json_too_large() {
    assert_eq!(
        failure(Misbehaviour::HugeJson(16 << 20), Reason::TooLarge).await,
        Reason::TooLarge
    );
}

/// Cut-off JSON is malformed.
#[tokio::test]
async fn invalid_json_malformed() {
    assert_eq!(
        failure(Misbehaviour::InvalidJson, Reason::Malformed).await,
        Reason::Malformed
    );
}

/// 10,000-deep JSON is malformed, and nothing crashes.
#[tokio::test]
async fn deep_json_malformed() {
    assert_eq!(
        failure(Misbehaviour::DeepJson(10_000), Reason::Malformed).await,
        Reason::Malformed
    );
}

/// A legacy reply with too few `§` is malformed.
#[tokio::test]
async fn legacy_odd_sections_malformed() {
    assert_eq!(
        failure(Misbehaviour::LegacyOddSections, Reason::Malformed).await,
        Reason::Malformed
    );
}

/// A reset half-way through the reply is a network (or incomplete) failure.
#[tokio::test]
async fn reset_mid_reply() {
    let reason = failure(Misbehaviour::ResetMidReply, Reason::Network).await;
    assert!(
        matches!(reason, Reason::Network | Reason::Incomplete),
        "{reason:?}"
    );
}

/// A Minecraft target with `rcon` set: the status ping, then the health over RCON.
fn health_request(addr: SocketAddr, console: Option<SocketAddr>, password: &str) -> Request {
    use gameserver_exporter::target::{Credentials, Rcon};
    let mut req = request(addr, patience::ANSWERED);
    let port = console.map_or_else(closed_port, |c| c.port());
    req.credentials = Some(std::sync::Arc::new(Credentials {
        rcon: Some(Rcon::with_password(port, password)),
        ..Credentials::default()
    }));
    req
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Vanilla 1.20.3+: `tick query` gives the target rate, the mean and the percentiles (two
/// players: 3.0 ms mean in the simulator); Paper before 1.20.3: `tps` and `mspt` after
/// `tick query` is refused. The status ping's fields stay as they were.
#[tokio::test]
async fn rcon_health_vanilla_and_paper() {
    use gameserver_exporter::simulate::minecraft::{spawn_console, Console, RCON_PASSWORD};
    let server = spawn(world(), McConfig::default()).await.unwrap();
    let vanilla = spawn_console(world(), Console::Vanilla).await.unwrap();
    let req = health_request(server.addr, Some(vanilla.addr), RCON_PASSWORD);
    let s = poll(&req).await.unwrap();
    assert_eq!((s.online, s.max), (2, 20));
    let h = s.health.expect("health");
    assert_eq!(h.tick_target_rate_hertz, Some(20.0));
    assert_eq!(h.tick_rate_hertz, Some(20.0));
    assert_eq!(h.tick_duration_seconds, Some(0.003));
    let q = h.tick_quantiles.expect("percentiles");
    assert_eq!((q.p50, q.p95, q.p99), (0.0027, 0.0048, 0.0072));

    let paper = spawn_console(world(), Console::Paper).await.unwrap();
    let req = health_request(server.addr, Some(paper.addr), RCON_PASSWORD);
    let s = poll(&req).await.unwrap();
    let h = s.health.expect("health");
    assert_eq!(h.tick_rate_hertz, Some(20.0));
    assert_eq!(h.tick_target_rate_hertz, Some(20.0));
    assert_eq!(h.tick_duration_seconds, Some(0.003));
    assert_eq!(h.tick_quantiles, None);
}

/// A failed health query never takes a good status ping down: the status is published
/// without health, and `health_error` says why (a wrong password, a closed RCON port).
#[tokio::test]
async fn rcon_health_failure_keeps_the_target_up() {
    use gameserver_exporter::simulate::minecraft::{spawn_console, Console};
    let server = spawn(world(), McConfig::default()).await.unwrap();
    let console = spawn_console(world(), Console::Vanilla).await.unwrap();
    for (req, reason) in [
        (
            health_request(server.addr, Some(console.addr), "pl4nted-wrong"),
            "auth_refused",
        ),
        (health_request(server.addr, None, "x"), "refused"),
    ] {
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 2);
        assert_eq!(s.health, None);
        assert_eq!(s.extras["health_error"], reason);
        assert!(!format!("{s:?}").contains("pl4nted-wrong"));
    }
}
