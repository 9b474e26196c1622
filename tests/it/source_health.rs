//! Server health of A2S targets over Source RCON (`stats`), against the A2S and RCON
//! simulators on 127.0.0.1, through the public `poll`: the health beside a good status, and
//! a failed health query that leaves the target up and says why.

use crate::support::patience;
use std::net::SocketAddr;

use crate::support::health;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::a2s::{spawn, A2sConfig};
use gameserver_exporter::simulate::rcon::{self, Flavour, Misbehaviour, RconConfig};
use gameserver_exporter::simulate::{SimServer, World, WorldState};
use gameserver_exporter::target::Console;

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
    health::request(game, Console::Source, console_port, password)
}

fn console(misbehaviour: Misbehaviour) -> RconConfig {
    RconConfig {
        flavour: Flavour::Srcds,
        password: PASSWORD.into(),
        respond: rcon::srcds,
        misbehaviour,
    }
}

/// The console simulator, misbehaving as `m`.
async fn console_sim(m: Misbehaviour) -> SimServer {
    rcon::spawn(world(), console(m)).await.unwrap()
}

/// `stats` read into the health: frame rate, CPU, traffic, uptime; no tick families (srcds
/// does not report its tick rate there). The A2S fields stay as they were.
#[tokio::test]
async fn stats_gives_frame_rate_cpu_network_uptime() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let srcds = console_sim(Misbehaviour::None).await;
    let s = health::poll_healthy(game.addr, Console::Source, srcds.addr.port(), PASSWORD).await;
    assert_eq!((s.online, s.max), (2, 24));
    let h = s.health.expect("health");
    assert_eq!(h.frame_rate_hertz, Some(66.67));
    assert_eq!(h.cpu_usage_ratio, Some(0.125));
    assert_eq!(h.network_receive_bytes_per_second, Some(3328.0));
    assert_eq!(h.network_transmit_bytes_per_second, Some(16896.0));
    assert_eq!(h.uptime_seconds, Some(5700.0));
    assert_eq!(h.tick_rate_hertz, None);
}

/// Every failed health query keeps the good A2S status up, without health, and names its
/// reason in `health_error`: a wrong password, a closed port, a console that never answers
/// a command, a 1 MiB length (too_large; the codec refuses any size past 64 KiB, 2^31-1 included), replies in 1-byte pieces still read whole.
/// The password appears nowhere in the status.
#[tokio::test]
async fn failed_health_keeps_the_target_up() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let consoles = health::HostileConsoles {
        good: console_sim(Misbehaviour::None).await,
        endless: console_sim(Misbehaviour::Silence).await,
        huge: console_sim(Misbehaviour::Oversized).await,
        flood: console_sim(Misbehaviour::Flood).await,
    };
    health::assert_hostile_consoles_fail_up(game.addr, Console::Source, PASSWORD, &consoles).await;
    let drip = console_sim(Misbehaviour::Split(1)).await;
    let s = health::poll_healthy(game.addr, Console::Source, drip.addr.port(), PASSWORD).await;
    assert_eq!(s.health.expect("health").frame_rate_hertz, Some(66.67));
}

fn console_of(respond: rcon::Responder) -> RconConfig {
    RconConfig {
        respond,
        ..console(Misbehaviour::None)
    }
}

fn names(s: &gameserver_exporter::status::Status) -> Vec<String> {
    let players = s.players.as_ref().expect("players");
    players.iter().map(|p| p.name.clone()).collect()
}

/// CS2's console prints no `stats` table: `status` is asked next, and the names it lists
/// (A2S's player list from CS2 has none) and its bots are kept beside the A2S status; no
/// health families, and no `health_error`.
#[tokio::test]
async fn cs2_falls_back_to_status() {
    let w = world();
    w.update(|s| s.bots = 1);
    let game = spawn(w.clone(), A2sConfig::default()).await.unwrap();
    let cs2 = rcon::spawn(w, console_of(rcon::cs2)).await.unwrap();
    let mut req = request(game.addr, cs2.addr.port(), PASSWORD);
    req.game = Some("counterstrike2");
    let s = poll(&req).await.unwrap();
    assert_eq!(s.health, None);
    assert!(!s.extras.contains_key("health_error"), "{:?}", s.extras);
    // Without the list asked, the console's names fill the empty list.
    assert_eq!(names(&s), ["alice", "bob", "Bot0"]);
}

/// Project Zomboid's `players` and Conan Exiles' `listplayers` name the players, chosen
/// by the target's game; the A2S counts stay.
#[tokio::test]
async fn zomboid_and_conan_name_their_players() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    for (id, respond) in [
        ("projectzomboid", rcon::zomboid as rcon::Responder),
        ("conanexiles", rcon::conan),
    ] {
        let sim = rcon::spawn(world(), console_of(respond)).await.unwrap();
        let mut req = request(game.addr, sim.addr.port(), PASSWORD);
        req.game = Some(id);
        let s = poll(&req).await.unwrap();
        assert_eq!((s.online, s.max), (2, 24), "{id}");
        assert!(
            !s.extras.contains_key("health_error"),
            "{id}: {:?}",
            s.extras
        );
        assert_eq!(names(&s), ["alice", "bob"], "{id}");
        // A srcds console answers neither command: the failure is named, the target up.
        let srcds = rcon::spawn(world(), console(Misbehaviour::None))
            .await
            .unwrap();
        let mut req = request(game.addr, srcds.addr.port(), PASSWORD);
        req.game = Some(id);
        let s = poll(&req).await.unwrap();
        assert_eq!(s.online, 2, "{id}");
        assert_eq!(s.extras["health_error"], "malformed", "{id}");
    }
}

/// Every console the health and player queries read (srcds `stats`, CS2 `status`, Project
/// Zomboid, Conan Exiles) against each hostile behaviour: a wrong password, a reply that
/// never ends, a 2^31-1 length, replies in 1-byte TCP segments, and a console quoting the
/// password back. The A2S status stays up each time; the failures are named; the password is
/// in no form (raw, URL-encoded, base64, hex) in the status or its JSON.
#[tokio::test]
async fn hostile_consoles() {
    let game = spawn(world(), A2sConfig::default()).await.unwrap();
    let consoles: [(Option<&'static str>, rcon::Responder); 4] = [
        (None, rcon::srcds),
        (Some("counterstrike2"), rcon::cs2),
        (Some("projectzomboid"), rcon::zomboid),
        (Some("conanexiles"), rcon::conan),
    ];
    for (id, respond) in consoles {
        let cases = [
            (Misbehaviour::None, "pl4nted-wrong", Some("auth_refused")),
            (Misbehaviour::Silence, PASSWORD, Some("timeout")),
            (Misbehaviour::MaxLength, PASSWORD, Some("too_large")),
            (Misbehaviour::Drip, PASSWORD, None),
            (Misbehaviour::EchoPassword, PASSWORD, None),
        ];
        for (misbehaviour, password, failure) in cases {
            let config = RconConfig {
                respond,
                misbehaviour,
                ..console(Misbehaviour::None)
            };
            let sim = rcon::spawn(world(), config).await.unwrap();
            let mut req = request(game.addr, sim.addr.port(), password);
            req.game = id;
            req.timeout = patience::timeout_for_label(failure.unwrap_or("up"));
            let s = poll(&req).await.unwrap();
            let what = format!("{id:?} {misbehaviour:?}");
            assert_eq!(s.online, 2, "{what}");
            match failure {
                Some(reason) => assert_eq!(s.extras["health_error"], reason, "{what}"),
                None => {
                    assert!(
                        !s.extras.contains_key("health_error"),
                        "{what}: {:?}",
                        s.extras
                    );
                    assert!(s.health.is_some() || s.players.is_some(), "{what}");
                }
            }
            let shown = format!("{s:?}\n{}", serde_json::to_string(&s).unwrap());
            for secret in [password, PASSWORD] {
                for form in forms_of(secret) {
                    assert!(!shown.contains(&form), "{what}: {form} in {shown}");
                }
            }
        }
    }
}

/// A secret as raw text, URL-encoded, base64 and hex.
fn forms_of(secret: &str) -> Vec<String> {
    gameserver_exporter::simulate::hostile::Quoted::forms(secret)
}
