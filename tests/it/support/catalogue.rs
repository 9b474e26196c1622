//! A simulator's hostile catalogue run through the public `poll`, one server at a time: what
//! a protocol suite checks of its own catalogue beside the whole fleet (`tests/it/hostile.rs`),
//! with each poll's timeout chosen for the outcome it must reach (`patience`).

use std::time::Duration;

use super::patience;
use gameserver_exporter::query::{poll, Request};
use gameserver_exporter::simulate::hostile::{self, Hostile, Outcome};
use gameserver_exporter::target::{Address, Protocol};

/// The timeout for a server that must end as `outcome`.
fn timeout(outcome: &Outcome) -> Duration {
    match outcome {
        Outcome::Up { .. } => patience::ANSWERED,
        // Parts missing are known only when the wait runs out, after the parts that came.
        Outcome::Down("incomplete") => patience::AFTER_SOME_PARTS,
        Outcome::Down(reason) => patience::timeout_for_label(reason),
    }
}

/// Starts every server of `catalogue` on the fleet's world, named `<protocol>-<name>`, polls
/// it once as a daemon does (no players, rules or detail) and asserts what the catalogue says:
/// up with its counts and the world's name, or down for its reason.
pub async fn assert_catalogue(protocol: Protocol, catalogue: Vec<Hostile>) {
    for h in catalogue {
        let name = format!("{protocol}-{}", h.name);
        let server = (h.start)(hostile::world(&name)).await.unwrap();
        let mut req = Request::new(protocol, Address::parse(&server.addr.to_string()).unwrap());
        req.timeout = timeout(&h.outcome);
        match (&h.outcome, poll(&req).await) {
            (Outcome::Up { online, max, .. }, Ok(s)) => {
                assert_eq!((s.online, s.max), (*online, *max), "{}", h.name);
                assert_eq!(s.name, name);
            }
            (Outcome::Down(reason), Err(f)) => {
                assert_eq!(f.reason.as_str(), *reason, "{}: {}", h.name, f.detail)
            }
            (want, got) => panic!("{}: want {want:?}, got {got:?}", h.name),
        }
    }
}
