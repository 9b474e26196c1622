//! Vice City Multiplayer query: the protocol's facts and how its exchange is built for a
//! poll (`protocol::spec`).

use std::net::{IpAddr, Ipv4Addr};
use std::time::Instant;

use crate::protocol::exchange::{Input, Step};
use crate::protocol::memory::Memory;
use crate::protocol::samp::exchange::Samp;
use crate::protocol::samp::Header;
use crate::protocol::spec::{Build, Resolve, Spec, Start};

/// Every request carries the server's IPv4 address, as SA:MP's; 8192 is VC:MP's default
/// port (gamedig's `vcm`).
pub const SPEC: Spec = Spec {
    resolve: Resolve::Ipv4Only,
    ..Spec::udp("vcmp", 8192)
};

pub type Exchange = Vcmp;

/// SA:MP's dialogue in VC:MP's [`super::DIALECT`]; its own type so the spec's [`Build`] is
/// its own.
#[derive(Debug)]
pub struct Vcmp(pub Samp);

impl crate::protocol::exchange::Exchange for Vcmp {
    fn poll(&mut self, now: Instant, out: &mut Vec<u8>) -> Step {
        self.0.poll(now, out)
    }

    fn handle(&mut self, now: Instant, input: Input<'_>) {
        self.0.handle(now, input)
    }
}

impl Build for Vcmp {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // Resolve::Ipv4Only has made the peer IPv4.
        let ip = match start.peer.ip() {
            IpAddr::V4(v4) => v4,
            IpAddr::V6(v6) => v6.to_ipv4_mapped().unwrap_or(Ipv4Addr::UNSPECIFIED),
        };
        let header = Header {
            ip,
            port: start.peer.port(),
        };
        Vcmp(Samp::in_dialect(
            super::DIALECT,
            start.params,
            header,
            start.deadline,
        ))
    }
}
