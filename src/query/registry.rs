//! The registry: one entry per protocol, and the one place that dispatches on the protocol.
//!
//! An entry says how a protocol travels ([`Link`]) and how its requests must be spaced
//! ([`Entry::min_gap`]); the protocol's id and default port are the target vocabulary's
//! ([`Protocol`]). Adding a protocol adds one entry and one arm of [`poll`] here, next to its
//! codec (`protocol/`), its exchange (`query/<name>.rs`) and its simulator (`simulate/`);
//! see `docs/adding-a-protocol.md`.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::time::Instant;

use super::driver::{Observer, Pacing, RESENDS};
use super::{
    a2s, bedrock, mcquery, minecraft, mumble, quake3, samp, teeworlds, Error, Request, Session,
};
use crate::net::udp::UdpChannel;
use crate::net::NetError;
use crate::status::Status;
use crate::target::Protocol;

/// How a protocol reaches its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// UDP, on the daemon's shared socket once the target has answered (see
    /// [`Session::udp_shared_ok`]), else a connected socket of its own.
    UdpShared,
    /// UDP on a connected socket of its own, bound to the local port the last poll used
    /// when it can be (Minecraft Query ties tokens to the client's address and port).
    UdpConnected,
    /// A TCP stream; each attempt of a fallback chain opens a new connection.
    Tcp,
}

/// What the driver and the transports need to know about one protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub protocol: Protocol,
    pub link: Link,
    /// The least time between two requests to the same server, resends included. Zero
    /// unless the server drops quick repeats: DarkPlaces-based servers (Quake 3 family) do
    /// within a second.
    /// Teeworlds keeps two dialects in flight, so its exchange resends by itself and applies
    /// this per request kind (the 0.7 info request may follow its handshake at once).
    pub min_gap: Duration,
}

impl Entry {
    /// How the driver spaces this protocol's requests.
    pub fn pacing(&self) -> Pacing {
        Pacing {
            resends: RESENDS,
            min_gap: self.min_gap,
        }
    }
}

const A2S: Entry = Entry {
    protocol: Protocol::A2s,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
};
const MINECRAFT: Entry = Entry {
    protocol: Protocol::Minecraft,
    link: Link::Tcp,
    min_gap: Duration::ZERO,
};
const MINECRAFT_QUERY: Entry = Entry {
    protocol: Protocol::MinecraftQuery,
    link: Link::UdpConnected,
    min_gap: Duration::ZERO,
};
const MINECRAFT_BEDROCK: Entry = Entry {
    protocol: Protocol::MinecraftBedrock,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
};
const SAMP: Entry = Entry {
    protocol: Protocol::Samp,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
};
const MUMBLE: Entry = Entry {
    protocol: Protocol::Mumble,
    link: Link::UdpShared,
    min_gap: Duration::ZERO,
};
/// Neither real server seen drops repeats (DDNet 16.4 and Teeworlds 0.7.5 answered ten
/// requests in a burst ten times); the gap keeps resends polite for servers run with limits.
const TEEWORLDS: Entry = Entry {
    protocol: Protocol::Teeworlds,
    link: Link::UdpShared,
    min_gap: Duration::from_millis(500),
};

/// DarkPlaces drops a repeat from one address within 1 s (ioquake3 allows 10 a second):
/// resends wait [`crate::protocol::quake3::MIN_GAP`] (docs/protocols/quake3.md).
const QUAKE3: Entry = Entry {
    protocol: Protocol::Quake3,
    link: Link::UdpShared,
    min_gap: crate::protocol::quake3::MIN_GAP,
};

/// The registry entry of `protocol`.
pub fn entry(protocol: Protocol) -> &'static Entry {
    match protocol {
        Protocol::A2s => &A2S,
        Protocol::Minecraft => &MINECRAFT,
        Protocol::MinecraftQuery => &MINECRAFT_QUERY,
        Protocol::MinecraftBedrock => &MINECRAFT_BEDROCK,
        Protocol::Samp => &SAMP,
        Protocol::Mumble => &MUMBLE,
        Protocol::Quake3 => &QUAKE3,
        Protocol::Teeworlds => &TEEWORLDS,
    }
}

/// Runs the protocol's dialogue: each arm resolves, opens its transport and drives its
/// exchange.
pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    match req.protocol {
        Protocol::A2s => a2s::poll(req, session, deadline, observer).await,
        Protocol::Minecraft => minecraft::poll(req, session, deadline, observer).await,
        Protocol::MinecraftQuery => mcquery::poll(req, session, deadline, observer).await,
        Protocol::MinecraftBedrock => bedrock::poll(req, session, deadline, observer).await,
        Protocol::Samp => samp::poll(req, session, deadline, observer).await,
        Protocol::Mumble => mumble::poll(req, session, deadline, observer).await,
        Protocol::Quake3 => quake3::poll(req, session, deadline, observer).await,
        Protocol::Teeworlds => teeworlds::poll(req, session, deadline, observer).await,
    }
}

/// The UDP channel `protocol`'s [`Link`] asks for.
pub(super) async fn udp(
    protocol: Protocol,
    addr: SocketAddr,
    req: &Request,
    session: &Session,
) -> Result<UdpChannel, NetError> {
    match entry(protocol).link {
        Link::UdpShared => UdpChannel::open(addr, super::shared_udp(req, session)).await,
        Link::UdpConnected | Link::Tcp => {
            UdpChannel::connect_from(addr, session.query_local_port).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every protocol has its own entry.
    #[test]
    fn every_protocol_registered() {
        for p in Protocol::ALL {
            assert_eq!(entry(p).protocol, p);
        }
        assert_eq!(entry(Protocol::Minecraft).link, Link::Tcp);
    }

    /// The vocabulary's `over_tcp` (which the config checks `proxy_protocol` against) says
    /// what the registry says.
    #[test]
    fn over_tcp_matches_links() {
        for p in Protocol::ALL {
            assert_eq!(p.over_tcp(), entry(p).link == Link::Tcp, "{p}");
        }
    }
}
