//! One poll of a simulator through the public `poll`, its timeout chosen by what the case
//! must end in (`patience`): the `request`/`status` pair the protocol suites start from.

use super::patience;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::SimServer;
use gameserver_exporter::status::{Reason, Status};
use gameserver_exporter::target::{Address, Protocol};

/// A poll of `protocol` at `server`: patient when it must answer (`want: None`), else with
/// the timeout that failure needs ([`patience::timeout_for`]).
pub fn request(protocol: Protocol, server: &SimServer, want: Option<Reason>) -> Request {
    let mut req = Request::new(protocol, Address::parse(&server.addr.to_string()).unwrap());
    req.timeout = want.map_or(patience::ANSWERED, patience::timeout_for);
    req
}

/// Polls once: the status, or the failure's reason.
pub async fn outcome(req: &Request) -> Result<Status, Reason> {
    poll(req).await.map_err(|f| f.reason)
}
