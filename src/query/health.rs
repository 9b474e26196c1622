//! Server health asked on the side of a successful poll, over the game's RCON console on
//! another port of the same host (targets with `rcon` set: Minecraft's `tick query`, else
//! Paper's `tps`/`mspt`; Source's `stats`; Rust's WebRCON `serverinfo` and 7 Days to Die's
//! telnet `mem`, in their own dialects: `webrcon_health`, `sdtd_health`). One login per poll, the connection closed at
//! the end of it. The status poll alone decides `up`: a health query that fails
//! leaves the status as it was, without health, and says why in its extras
//! ([`HEALTH_ERROR`]: the failure's reason, e.g. `auth_refused`), where `/probe` and
//! `query --json` show it.

use std::net::SocketAddr;

use tokio::time::Instant;

use super::driver::{drive, Observer, Pacing};
use super::transport::TcpLink;
use super::{sdtd_health as sdtd, webrcon_health as webrcon};
use crate::protocol::exchange::tools::{note, random_u32};
use crate::protocol::exchange::Params;
use crate::protocol::rcon::exchange::{Rcon, Script};
use crate::secret::Secret;
use crate::status::Status;
use crate::target::Console;

pub use super::health_error::HEALTH_ERROR;

/// `status` with the health the RCON console at `addr` reports, or with [`HEALTH_ERROR`]
/// noted when it reports none before `deadline`. Never a PROXY header: that is for the
/// game port's proxy, and RCON is not proxied.
#[allow(clippy::too_many_arguments)]
pub(super) async fn add(
    status: Status,
    addr: SocketAddr,
    password: Secret,
    script: Box<dyn Script>,
    console: Console,
    params: Params,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Status {
    match console {
        Console::Source => source(status, addr, password, script, params, deadline, observer).await,
        Console::WebRcon => webrcon::add(status, addr, password, params, deadline, observer).await,
        Console::SdtdTelnet => sdtd::add(status, addr, password, params, deadline, observer).await,
    }
}

/// Source RCON: the script's commands.
async fn source(
    mut status: Status,
    addr: SocketAddr,
    password: Secret,
    script: Box<dyn Script>,
    params: Params,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Status {
    let first_id = (random_u32() >> 2) as i32;
    let mut x = Rcon::new(script, password, params, first_id, deadline.into_std());
    let mut link = TcpLink::new(addr);
    // TCP: nothing is resent; no gap to keep.
    let pacing = Pacing {
        resends: 0,
        min_gap: std::time::Duration::ZERO,
    };
    match drive(&mut x, &mut link, deadline, pacing, observer).await {
        Ok(console) => merge(&mut status, console),
        Err(e) => note(&mut status.extras, HEALTH_ERROR, &e),
    }
    status
}

/// What the console adds to the poll's status: its health, and the players' names and the
/// bot count where the poll had none (games whose A2S reply hides names: CS2, Project
/// Zomboid, Conan Exiles). The poll's own counts stay: they are what `up` and the player
/// gauges report for every protocol.
fn merge(status: &mut Status, console: Status) {
    status.health = console.health;
    let nameless = status
        .players
        .as_ref()
        .is_none_or(|p| p.iter().all(|p| p.name.is_empty()));
    if nameless && console.players.is_some() {
        status.players = console.players;
    }
    if status.bots.is_none() {
        status.bots = console.bots;
    }
}
