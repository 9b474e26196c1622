//! Simulated ARK: Survival Ascended server: the RCON simulator ([`super::rcon`]) answering
//! `ListPlayers` from the world ([`rcon::asa`]), in the plain flavour (no empty packet
//! before the login answer, an empty command unanswered: the exchange ends a reply on a
//! quiet pause either way), with the RCON simulator's misbehaviours. ARK reports no server
//! name and no capacity over RCON.

use std::io;
use std::sync::OnceLock;
use std::time::Duration;

use super::churn::churn;
use super::hostile::{start, Hostile};
use super::rcon::{self, Flavour, Misbehaviour, RconConfig};
use super::{SimServer, World, WorldState};

/// The RCON password of the simulator's default configuration (and of `demo`'s server):
/// harnesses write it into the file a target's `password_file` names
/// ([`super::Simulator::password`]).
pub const PASSWORD: &str = "asa-sim-admin-password";

/// The default configuration: the plain flavour, [`PASSWORD`], well behaved.
pub fn config() -> RconConfig {
    RconConfig {
        flavour: Flavour::Factorio,
        password: PASSWORD.into(),
        respond: rcon::asa,
        misbehaviour: Misbehaviour::None,
    }
}

pub async fn spawn(world: World, config: RconConfig) -> io::Result<SimServer> {
    rcon::spawn(world, config).await
}

/// A small ARK server with survivors coming and going, for `demo` (which
/// logs in with [`PASSWORD`]).
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    world.update(|w| {
        *w = WorldState {
            name: "ASA Demo".into(),
            map: "TheIsland_WP".into(),
            game: "ARK: Survival Ascended".into(),
            version: "v58.12".into(),
            max: 70,
            players: vec![("Survivor".into(), 0, 0.0), ("Helena".into(), 0, 0.0)],
            rules: Vec::new(),
            ..WorldState::default()
        }
    });
    let mut server = spawn(world.clone(), config()).await?;
    server
        .tasks
        .push(churn(world, Duration::from_secs(13), 0, |t| {
            format!("survivor{t}")
        }));
    Ok(server)
}

/// The config line naming a file that holds [`PASSWORD`], for the hostile fleet's targets.
fn password_file_line() -> &'static str {
    static LINE: OnceLock<String> = OnceLock::new();
    rcon::password_file_line(&LINE, "arkrcon", PASSWORD)
}

/// The hostile fleet's ARK servers: the count only (no name, no capacity: 0).
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| {
        start(move |w| {
            spawn(
                w,
                RconConfig {
                    misbehaviour: m,
                    ..config()
                },
            )
        })
    };
    let line = password_file_line();
    vec![
        // The fleet's world: 2 players (ARK lists no bots), no capacity reported.
        Hostile::up("ok", 2, 0, None, with(Misbehaviour::None))
            .expect_name("")
            .with_config(line),
        Hostile::up("split", 2, 0, None, with(Misbehaviour::Split(3)))
            .expect_name("")
            .with_config(line),
        Hostile::up("interleaved", 2, 0, None, with(Misbehaviour::Interleave))
            .expect_name("")
            .with_config(line),
        Hostile::down(
            "wrong-password",
            "auth_refused",
            start(|w| {
                spawn(
                    w,
                    RconConfig {
                        password: "not-the-configured-one".into(),
                        ..config()
                    },
                )
            }),
        )
        .with_config(line),
        Hostile::down("silent", "timeout", with(Misbehaviour::Silence)).with_config(line),
        Hostile::down("oversized", "too_large", with(Misbehaviour::Oversized)).with_config(line),
        Hostile::down("flood", "mismatch", with(Misbehaviour::Flood)).with_config(line),
        Hostile::down(
            "not-ark",
            "malformed",
            start(|w| {
                spawn(
                    w,
                    RconConfig {
                        respond: |_, _| "Server received, But no response!! \n".into(),
                        ..config()
                    },
                )
            }),
        )
        .with_config(line),
    ]
}
