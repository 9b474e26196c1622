//! FiveM and RedM getinfo: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Link, Spec, Start};

/// Cfx.re servers rate-limit `getinfo` per address (about 2 a second, burst 10): resends and
/// polls keep [`super::MIN_GAP`] (docs/protocols/fivem.md). With `players = true`,
/// `/players.json` follows over TCP on the same port.
pub const SPEC: Spec = Spec {
    link: Link::UdpThenHttp,
    min_gap: super::MIN_GAP,
    ..Spec::udp("fivem", 30120)
};

pub type Exchange = super::exchange::Poll;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::poll(&start.params, start.deadline)
    }
}
