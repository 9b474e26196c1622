//! 7 Days to Die's server health over its telnet console (`game = "sdtd"` with `rcon`),
//! against the A2S and telnet simulators on 127.0.0.1, through the public `poll`: the health
//! beside a good A2S status, and every hostile console leaving the target up, saying why,
//! showing no secret.

use crate::support::patience;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::sdtd::{self, Misbehaviour, SdtdConfig};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::target::{Address, Console, Credentials, Protocol, Rcon};

const PASSWORD: &str = "pl4nted-sdtd telnet";
const MB: f64 = 1024.0 * 1024.0;

fn world() -> World {
    World::new(WorldState {
        name: "Navezgane".into(),
        game: "7 Days To Die".into(),
        max: 8,
        players: vec![("alice".into(), 0, 60.0), ("bob".into(), 0, 30.0)],
        ..WorldState::default()
    })
}

fn request(game: SocketAddr, console_port: u16, password: &str) -> Request {
    let mut req = Request::new(Protocol::A2s, Address::parse(&game.to_string()).unwrap());
    req.timeout = Duration::from_secs(3);
    let rcon = Rcon::with_password(console_port, password).speaking(Console::SdtdTelnet);
    req.credentials = Some(Arc::new(Credentials {
        rcon: Some(rcon),
        ..Credentials::default()
    }));
    req
}

fn console(misbehaviour: Misbehaviour) -> SdtdConfig {
    SdtdConfig {
        password: PASSWORD.into(),
        misbehaviour,
    }
}

/// `mem` read into the health: frame rate, heap, its ceiling, RSS, chunks, zombies,
/// entities, uptime; the A2S status as it was.
#[tokio::test]
async fn mem_gives_the_health_families() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let sim = sdtd::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let s = poll(&request(game.addr, sim.addr.port(), PASSWORD))
        .await
        .unwrap();
    assert_eq!((s.online, s.max), (2, 8));
    assert!(!s.extras.contains_key("health_error"), "{:?}", s.extras);
    let h = s.health.expect("health");
    assert_eq!(h.frame_rate_hertz, Some(35.12));
    assert_eq!(h.memory_heap_bytes, Some(512.0 * MB));
    assert_eq!(h.memory_heap_max_bytes, Some(1024.0 * MB));
    assert_eq!(h.memory_resident_bytes, Some(1234.5 * MB));
    assert_eq!(h.chunks_loaded, Some(123.0));
    assert_eq!(h.zombies, Some(12.0));
    assert_eq!(h.entities, Some(20.0));
    assert_eq!(h.uptime_seconds, Some(5400.0));
    assert_eq!(h.tick_rate_hertz, None);
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason: a wrong password, a closed port, a line that never ends, a 2^31-1-byte line,
/// endless log lines. Replies in 1-byte pieces and a console echoing the password still
/// read whole. The password appears nowhere in the status.
#[tokio::test]
async fn hostile_consoles_keep_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let good = sdtd::spawn(world(), console(Misbehaviour::None))
        .await
        .unwrap();
    let endless = sdtd::spawn(world(), console(Misbehaviour::Endless))
        .await
        .unwrap();
    let huge = sdtd::spawn(world(), console(Misbehaviour::Huge))
        .await
        .unwrap();
    let flood = sdtd::spawn(world(), console(Misbehaviour::Flood))
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
        let sim = sdtd::spawn(world(), console(m)).await.unwrap();
        let s = poll(&request(game.addr, sim.addr.port(), PASSWORD))
            .await
            .unwrap();
        assert_eq!(
            s.health.as_ref().expect("health").zombies,
            Some(12.0),
            "{m:?}"
        );
        assert!(!format!("{s:?}").contains(PASSWORD));
    }
}
