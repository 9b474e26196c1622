//! 7 Days to Die's health over its telnet console (`protocol::sdtd`): the same place in the
//! poll as Source RCON's (after a good status poll, within its deadline, one connection,
//! ended with `exit`).

use std::net::SocketAddr;

use tokio::time::Instant;

use super::driver::{drive, Observer, Pacing};
use super::health_error::HEALTH_ERROR;
use super::transport::TcpLink;
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::Params;
use crate::protocol::sdtd::exchange::SdtdTelnet;
use crate::secret::Secret;
use crate::status::Status;

/// `status` with the health the telnet console at `addr` reports, or with [`HEALTH_ERROR`]
/// noted.
pub(super) async fn add(
    mut status: Status,
    addr: SocketAddr,
    password: Secret,
    params: Params,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Status {
    let mut x = SdtdTelnet::new(password, params, deadline.into_std());
    let mut link = TcpLink::new(addr);
    let pacing = Pacing {
        resends: 0,
        min_gap: std::time::Duration::ZERO,
    };
    match drive(&mut x, &mut link, deadline, pacing, observer).await {
        Ok(health) => status.health = health.health,
        Err(e) => note(&mut status.extras, HEALTH_ERROR, &e),
    }
    status
}
