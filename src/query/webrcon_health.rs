//! Rust's health over WebRCON (`protocol::webrcon`): the same place in the poll as Source
//! RCON's (after a good status poll, within its deadline, one connection closed at the end),
//! with the randomness the WebSocket needs drawn here (the exchange stays reproducible).

use std::net::SocketAddr;

use tokio::time::Instant;

use super::driver::{drive, Observer, Pacing};
use super::health_error::HEALTH_ERROR;
use super::transport::TcpLink;
use crate::protocol::exchange::tools::note;
use crate::protocol::exchange::Params;
use crate::protocol::webrcon::exchange::{Nonces, WebRcon};
use crate::secret::Secret;
use crate::status::Status;

/// `status` with the health the WebRCON console at `addr` reports (and its queue where the
/// status poll had none), or with [`HEALTH_ERROR`] noted.
pub(super) async fn add(
    mut status: Status,
    addr: SocketAddr,
    password: Secret,
    params: Params,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Status {
    // RFC 6455: a fresh random key per upgrade and an unpredictable mask per frame.
    let nonces = Nonces {
        key: rand::random(),
        command_mask: rand::random(),
        close_mask: rand::random(),
        identifier: (rand::random::<u32>() >> 2).max(1) as i32,
    };
    let mut x = WebRcon::new(
        addr.to_string(),
        password,
        nonces,
        params,
        deadline.into_std(),
    );
    let mut link = TcpLink::new(addr);
    let pacing = Pacing {
        resends: 0,
        min_gap: std::time::Duration::ZERO,
    };
    match drive(&mut x, &mut link, deadline, pacing, observer).await {
        Ok(health) => {
            status.health = health.health;
            status.queued = status.queued.or(health.queued);
        }
        Err(e) => note(&mut status.extras, HEALTH_ERROR, &e),
    }
    status
}
