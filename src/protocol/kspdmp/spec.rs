//! DarkMultiPlayer (Kerbal Space Program): its status page's facts and how its exchange is
//! built for a poll (`protocol::spec`).

use super::exchange::InfoPage;
use crate::protocol::http::fetch::Fetch;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, HttpScheme, Spec, Start};

/// The status page's port as gamedig reads it (the game port 6702 + 1; DMPServer's own
/// `httpPort` setting decides, see docs/protocols/kspdmp.md): one GET.
pub const SPEC: Spec = Spec {
    ..Spec::http("kspdmp", 6703, HttpScheme::Either)
};

pub type Exchange = Fetch<InfoPage>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(start.params, start.deadline)
    }
}
