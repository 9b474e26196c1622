//! A simulated Vice City Multiplayer server: `simulate::samp`'s server in VC:MP's dialect
//! (`VCMP` requests, `MP04` replies, a version in `i`, names alone in `c`, no `r`/`d`/`o`/`p`).

use std::io;
use std::time::Duration;

use super::churn;
use super::hostile::{self, start, Hostile};
use super::samp::{self, Misbehaviour, SampConfig};
use super::{SimServer, World, WorldState};
use crate::protocol::vcmp::DIALECT;

/// This simulator, as [`super::simulator`] lists it.
pub const SIM: super::Simulator = super::Simulator {
    protocol: crate::target::Protocol::Vcmp,
    spawn: |w| Box::pin(spawn(w, Default::default())),
    spawn_demo: |w| Box::pin(spawn_demo(w)),
    demo_rules: &[],
    hostile,
    password: None,
};

fn config(misbehaviour: Misbehaviour) -> SampConfig {
    SampConfig {
        dialect: DIALECT,
        misbehaviour,
        ..SampConfig::default()
    }
}

/// Serves VC:MP's query on 127.0.0.1, on a port of the system's choosing.
pub async fn spawn(world: World, misbehaviour: Misbehaviour) -> io::Result<SimServer> {
    samp::spawn(world, config(misbehaviour)).await
}

/// A VC:MP deathmatch server whose players come and go, for `demo`.
pub async fn spawn_demo(world: World) -> io::Result<SimServer> {
    let state = WorldState {
        name: "Demo VC:MP Server".into(),
        map: "Vice City".into(),
        game: "Deathmatch".into(),
        version: "04rel006".into(),
        max: 100,
        players: vec![("Tommy".into(), 0, 0.0), ("Lance".into(), 0, 0.0)],
        rules: Vec::new(),
        ..WorldState::default()
    };
    let serve = |w| spawn(w, Misbehaviour::None);
    churn::demo(world, state, serve, Duration::from_secs(5), 0, |t| {
        format!("Vercetti_{t}")
    })
    .await
}

/// The hostile fleet's VC:MP servers (see [`super::hostile`]): the SA:MP fleet's
/// misbehaviours in VC:MP's dialect.
pub fn hostile() -> Vec<Hostile> {
    let with = |m: Misbehaviour| start(move |w| spawn(w, m));
    // Windows-1252 on the wire, as SA:MP's: keep to characters it has.
    let nasty: String = hostile::nasty_name(hostile::UDP_NAME_BYTES, true)
        .chars()
        .filter(|c| !matches!(c, '\u{200F}' | '\u{202E}'))
        .collect();
    vec![
        Hostile::up("ok", 2, 24, None, with(Misbehaviour::None)),
        Hostile::up("junk-flood", 2, 24, None, with(Misbehaviour::JunkFlood)),
        Hostile::up("str-long", 2, 24, None, with(Misbehaviour::None)).serving_name(nasty),
        Hostile::down("silence", "timeout", with(Misbehaviour::Silence)),
        Hostile::down("truncated", "malformed", with(Misbehaviour::Truncated)),
        Hostile::down(
            "length",
            "malformed",
            with(Misbehaviour::LengthBeyondDatagram),
        ),
        Hostile::down("wrong-header", "mismatch", with(Misbehaviour::WrongHeader)),
    ]
}
