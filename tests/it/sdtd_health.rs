//! 7 Days to Die's server health over its telnet console (`game = "sdtd"` with `rcon`),
//! against the A2S and telnet simulators on 127.0.0.1, through the public `poll`: the health
//! beside a good A2S status, and every hostile console leaving the target up, saying why,
//! showing no secret.

use crate::support::health;
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::sdtd::{self, Misbehaviour, SdtdConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::target::Console;

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

fn console(misbehaviour: Misbehaviour) -> SdtdConfig {
    SdtdConfig {
        password: PASSWORD.into(),
        misbehaviour,
    }
}

/// The console simulator, misbehaving as `m`.
async fn console_sim(m: Misbehaviour) -> SimServer {
    sdtd::spawn(world(), console(m)).await.unwrap()
}

/// `mem` read into the health: frame rate, heap, its ceiling, RSS, chunks, zombies,
/// entities, uptime; the A2S status as it was.
#[tokio::test]
async fn mem_gives_the_health_families() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let sim = console_sim(Misbehaviour::None).await;
    let s = health::poll_healthy(game.addr, Console::SdtdTelnet, sim.addr.port(), PASSWORD).await;
    assert_eq!((s.online, s.max), (2, 8));
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

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason: a wrong password, a closed port, a line that never ends, a 2^31-1-byte line,
/// endless log lines. Replies in 1-byte pieces and a console echoing the password still
/// read whole. The password appears nowhere in the status.
#[tokio::test]
async fn hostile_consoles_keep_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let consoles = health::HostileConsoles {
        good: console_sim(Misbehaviour::None).await,
        endless: console_sim(Misbehaviour::Endless).await,
        huge: console_sim(Misbehaviour::Huge).await,
        flood: console_sim(Misbehaviour::Flood).await,
    };
    health::assert_hostile_consoles_fail_up(game.addr, Console::SdtdTelnet, PASSWORD, &consoles)
        .await;
    for m in [Misbehaviour::Split(1), Misbehaviour::EchoPassword] {
        let sim = console_sim(m).await;
        let s =
            health::poll_healthy(game.addr, Console::SdtdTelnet, sim.addr.port(), PASSWORD).await;
        assert_eq!(
            s.health.as_ref().expect("health").zombies,
            Some(12.0),
            "{m:?}"
        );
    }
}
