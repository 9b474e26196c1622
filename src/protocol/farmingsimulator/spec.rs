//! Farming Simulator's stats feed (HTTP): the protocol's facts and how its exchange is built
//! for a poll (`protocol::spec`).

use super::exchange::StatsFeed;
use crate::protocol::credentials::CredentialKey;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The dedicated server's web interface serves the feed: one GET per poll, plain HTTP unless
/// the target says `tls = true` (a proxy in front). Port 8080 is the web server's default
/// (`<webserver port="8080">` in `dedicatedServer.xml`; gamedig's list says the same).
pub const SPEC: Spec = Spec {
    // The stats code the web interface shows (Settings: "Link for XML feed"), sent as the
    // `code` query parameter. Not required by the config, so that an ad-hoc `/probe` can
    // still say whether anything answers there (`auth_refused` when the server wants one).
    credential_keys: &[CredentialKey::Code],
    ..Spec::http("farmingsimulator", 8080, HttpScheme::Either)
};

pub type Exchange = Fetch<StatsFeed>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let code = start.credentials.and_then(|c| c.code.clone());
        super::exchange::new(start.params, code, start.deadline)
    }
}
