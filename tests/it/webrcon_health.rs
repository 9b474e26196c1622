//! Rust's server health over WebRCON (`game = "rust"` with `rcon`), against the A2S and
//! WebRCON simulators on 127.0.0.1, through the public `poll`: the health beside a good A2S
//! status, and every hostile console leaving the target up, saying why, showing no secret.

use crate::support::health;
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::webrcon::{self, Misbehaviour, WebRconConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::target::Console;

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

fn console(misbehaviour: Misbehaviour) -> WebRconConfig {
    WebRconConfig {
        password: PASSWORD.into(),
        misbehaviour,
    }
}

/// The console simulator, misbehaving as `m`.
async fn console_sim(m: Misbehaviour) -> SimServer {
    webrcon::spawn(world(), console(m)).await.unwrap()
}

/// `serverinfo` read into the health: frame rate, memory, entities, joining, network,
/// uptime; the A2S status as it was (its queue filled from serverinfo, the A2S simulator
/// sends no `qp` keyword).
#[tokio::test]
async fn serverinfo_gives_the_health_families() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let rust = console_sim(Misbehaviour::None).await;
    let s = health::poll_healthy(game.addr, Console::WebRcon, rust.addr.port(), PASSWORD).await;
    assert_eq!((s.online, s.max), (2, 100));
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

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason: a wrong password (upgraded, then closed), a closed port, a reply that never
/// ends, a 2^31-1 frame length, endless broadcasts. Replies in 1-byte pieces and a console
/// echoing the password still read whole. The password appears nowhere in the status.
#[tokio::test]
async fn hostile_consoles_keep_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let consoles = health::HostileConsoles {
        good: console_sim(Misbehaviour::None).await,
        endless: console_sim(Misbehaviour::Endless).await,
        huge: console_sim(Misbehaviour::HugeLength).await,
        flood: console_sim(Misbehaviour::Flood).await,
    };
    health::assert_hostile_consoles_fail_up(game.addr, Console::WebRcon, PASSWORD, &consoles).await;
    for m in [Misbehaviour::Split(1), Misbehaviour::EchoPassword] {
        let sim = console_sim(m).await;
        let s = health::poll_healthy(game.addr, Console::WebRcon, sim.addr.port(), PASSWORD).await;
        assert_eq!(
            s.health.as_ref().expect("health").frame_rate_hertz,
            Some(59.0),
            "{m:?}"
        );
    }
}
