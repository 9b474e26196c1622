//! Server health of A2S targets over Source RCON (`stats`), against the A2S and RCON
//! simulators on 127.0.0.1, through the public `poll`: the health beside a good status, and
//! a failed health query that leaves the target up and says why.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::rcon::{self, Flavour, Misbehaviour, RconConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::target::{Address, Credentials, Protocol, Rcon};

const PASSWORD: &str = "pl4nted-srcds-rcon";

fn world() -> World {
    World::new(WorldState {
        name: "Health Test".into(),
        map: "cp_badlands".into(),
        game: "Team Fortress".into(),
        max: 24,
        players: vec![("alice".into(), 3, 60.0), ("bob".into(), 1, 30.0)],
        ..WorldState::default()
    })
}

fn request(game: SocketAddr, console_port: u16, password: &str) -> Request {
    let mut req = Request::new(Protocol::A2s, Address::parse(&game.to_string()).unwrap());
    req.timeout = Duration::from_secs(3);
    req.credentials = Some(Arc::new(Credentials {
        rcon: Some(Rcon::with_password(console_port, password)),
        ..Credentials::default()
    }));
    req
}

fn console(misbehaviour: Misbehaviour) -> RconConfig {
    RconConfig {
        flavour: Flavour::Srcds,
        password: PASSWORD.into(),
        respond: rcon::srcds,
        misbehaviour,
    }
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// `stats` read into the health: frame rate, CPU, traffic, uptime; no tick families (srcds
/// does not report its tick rate there). The A2S fields stay as they were.
#[tokio::test]
async fn stats_gives_frame_rate_cpu_network_uptime() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let srcds = rcon::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let s = poll(&request(game.addr, srcds.addr.port(), PASSWORD))
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (2, 24));
    let h = s.health.expect("health");
    assert_eq!(h.frame_rate_hertz, Some(66.67));
    assert_eq!(h.cpu_usage_ratio, Some(0.125));
    assert_eq!(h.network_receive_bytes_per_second, Some(3328.0));
    assert_eq!(h.network_transmit_bytes_per_second, Some(16896.0));
    assert_eq!(h.uptime_seconds, Some(5700.0));
    assert_eq!(h.tick_rate_hertz, None);
    assert!(!s.extras.contains_key("health_error"));
}

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason in `health_error`: a wrong password, a closed port, a console that never answers
/// a command, a 1 MiB length (too_large; the codec refuses any size past 64 KiB, 2^31-1 included), replies in 1-byte pieces still read whole.
/// The password appears nowhere in the status.
#[tokio::test]
async fn failed_health_keeps_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let good = rcon::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let silent = rcon::spawn(world(), console(Misbehaviour::Silence))
        .await
        .unwrap();
    let huge = rcon::spawn(world(), console(Misbehaviour::Oversized))
        .await
        .unwrap();
    let flood = rcon::spawn(world(), console(Misbehaviour::Flood))
        .await
        .unwrap();
    let cases = [
        (good.addr.port(), "pl4nted-wrong", "auth_refused"),
        (closed_port(), PASSWORD, "refused"),
        (silent.addr.port(), PASSWORD, "timeout"),
        (huge.addr.port(), PASSWORD, "too_large"),
        (flood.addr.port(), PASSWORD, "mismatch"),
    ];
    for (port, password, reason) in cases {
        let mut req = request(game.addr, port, password);
        req.timeout = Duration::from_millis(1500);
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 2, "{reason}");
        assert_eq!(s.health, None, "{reason}");
        assert_eq!(s.extras["health_error"], reason);
        let shown = format!("{s:?}");
        assert!(!shown.contains(password) && !shown.contains(PASSWORD));
    }
    let drip = rcon::spawn(world(), console(Misbehaviour::Split(1)))
        .await
        .unwrap();
    let s = poll(&request(game.addr, drip.addr.port(), PASSWORD))
        .await
        .unwrap();
    assert_eq!(s.health.expect("health").frame_rate_hertz, Some(66.67));
}
