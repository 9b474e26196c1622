//! Hytale (the Nitrado Query plugin's page): the protocol's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use super::exchange::QueryPage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The Nitrado WebServer plugin's port (the game port 5520 + 3): one GET. The plugin serves
/// TLS with a self-signed certificate unless told otherwise: `tls = true` with
/// `tls_fingerprint` or `tls_insecure` (docs/protocols/hytale.md).
pub const SPEC: Spec = Spec {
    ..Spec::http("hytale", 5523, HttpScheme::Either)
};

pub type Exchange = Fetch<QueryPage>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
