//! Rust's server health over WebRCON (`game = "rust"` with `rcon`), against the A2S and
//! WebRCON simulators on 127.0.0.1, through the public `poll`: the health beside a good A2S
//! status, and every hostile console leaving the target up, saying why, showing no secret.

use crate::support::patience;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::webrcon::{self, Misbehaviour, WebRconConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::target::{Address, Console, Credentials, Protocol, Rcon};

const PASSWORD: &str = "pl4nted-webrcon/#?pw";

fn world() -> World {
    World::new(WorldState {
        name: "Rust Health".into(),
        map: "Procedural Map".into(),
        game: "Rust".into(),
        max: 100,
        players: vec![("alice".into(), 0, 60.0), ("bob".into(), 0, 30.0)],
        ..WorldState::default()
    })
}

fn request(game: SocketAddr, console_port: u16, password: &str) -> Request {
    let mut req = Request::new(Protocol::A2s, Address::parse(&game.to_string()).unwrap());
    req.timeout = Duration::from_secs(3);
    let rcon = Rcon::with_password(console_port, password).speaking(Console::WebRcon);
    req.credentials = Some(Arc::new(Credentials {
        rcon: Some(rcon),
        ..Credentials::default()
    }));
    req
}

fn console(misbehaviour: Misbehaviour) -> WebRconConfig {
    WebRconConfig {
        password: PASSWORD.into(),
        misbehaviour,
    }
}

/// `serverinfo` read into the health: frame rate, memory, entities, joining, network,
/// uptime; the A2S status as it was (its queue filled from serverinfo, the A2S simulator
/// sends no `qp` keyword).
#[tokio::test]
async fn serverinfo_gives_the_health_families() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let rust = webrcon::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let s = poll(&request(game.addr, rust.addr.port(), PASSWORD))
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (2, 100));
    assert!(!s.extras.contains_key("health_error"), "{:?}", s.extras);
    let h = s.health.expect("health");
    assert_eq!(h.frame_rate_hertz, Some(59.0));
    assert_eq!(h.memory_heap_bytes, Some(6144.0 * 1048576.0));
    assert_eq!(h.memory_resident_bytes, Some(9120.0 * 1048576.0));
    assert_eq!(h.entities, Some(184213.0));
    assert_eq!(h.players_joining, Some(1.0));
    assert_eq!(h.network_receive_bytes_per_second, Some(51234.0));
    assert_eq!(h.network_transmit_bytes_per_second, Some(812345.0));
    assert_eq!(h.uptime_seconds, Some(86400.0));
    assert_eq!(h.tick_rate_hertz, None);
    assert_eq!(s.queued, Some(2));
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason: a wrong password (upgraded, then closed), a closed port, a reply that never
/// ends, a 2^31-1 frame length, endless broadcasts. Replies in 1-byte pieces and a console
/// echoing the password still read whole. The password appears nowhere in the status.
#[tokio::test]
async fn hostile_consoles_keep_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let good = webrcon::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let endless = webrcon::spawn(world(), console(Misbehaviour::Endless))
        .await
        .unwrap();
    let huge = webrcon::spawn(world(), console(Misbehaviour::HugeLength))
        .await
        .unwrap();
    let flood = webrcon::spawn(world(), console(Misbehaviour::Flood))
        .await
        .unwrap();
    let cases = [
        (good.addr.port(), "pl4nted-wrong", "auth_refused"),
        (closed_port(), PASSWORD, "refused"),
        (endless.addr.port(), PASSWORD, "timeout"),
        (huge.addr.port(), PASSWORD, "too_large"),
        (flood.addr.port(), PASSWORD, "mismatch"),
    ];
    for (port, password, reason) in cases {
        let mut req = request(game.addr, port, password);
        req.timeout = patience::timeout_for_label(reason);
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 2, "{reason}");
        assert_eq!(s.health, None, "{reason}");
        assert_eq!(s.extras["health_error"], reason);
        let shown = format!("{s:?}");
        assert!(!shown.contains(password) && !shown.contains(PASSWORD));
    }
    for m in [Misbehaviour::Split(1), Misbehaviour::EchoPassword] {
        let sim = webrcon::spawn(world(), console(m)).await.unwrap();
        let s = poll(&request(game.addr, sim.addr.port(), PASSWORD))
            .await
            .unwrap();
        assert_eq!(
            s.health.as_ref().expect("health").frame_rate_hertz,
            Some(59.0),
            "{m:?}"
        );
        assert!(!format!("{s:?}").contains(PASSWORD));
    }
}
