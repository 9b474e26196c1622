//! Minecraft Java server list ping: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::health::Script;
use super::slp_exchange::Slp;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, RconHealth, Resolve, Spec, Start};

pub const SPEC: Spec = Spec {
    // SRV (`_minecraft._tcp`) is tried first when the address has no port.
    resolve: Resolve::MinecraftSrv,
    // Server health over RCON, next to the status ping (docs/protocols/minecraft.md).
    credential_keys: &[CredentialKey::Rcon],
    // server.properties' `rcon.port` default.
    default_rcon_port: 25575,
    ..Spec::tcp("minecraft", 25565)
};

pub type Exchange = Slp;

impl Build for Slp {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        // Proxies route by the name the user typed, so it goes into the handshake, not the
        // SRV target; the port is the one actually connected to.
        Slp::new(
            start.params,
            start.host.clone(),
            start.peer.port(),
            start.deadline,
        )
    }

    fn health_over_rcon(start: &Start<'_>) -> Option<RconHealth> {
        RconHealth::from_rcon(start, SPEC.default_rcon_port, Box::new(Script))
    }
}
