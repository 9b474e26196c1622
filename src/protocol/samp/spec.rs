//! SA:MP and open.mp query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::net::{IpAddr, Ipv4Addr};

use super::exchange::Samp;
use super::Header;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Resolve, Spec, Start};

/// Every request carries the server's IPv4 address: the address must resolve to one.
pub const SPEC: Spec = Spec {
    resolve: Resolve::Ipv4Only,
    ..Spec::udp("samp", 7777)
};

pub type Exchange = Samp;

impl Build for Samp {
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
        Samp::new(start.params, header, start.deadline)
    }
}
