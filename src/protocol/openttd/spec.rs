//! OpenTTD game info: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Openttd;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// 3979: OpenTTD's game port (`NETWORK_DEFAULT_PORT`), where TCP takes the game info
/// request. One connection per poll, one request; nothing to log in with.
pub const SPEC: Spec = Spec {
    ..Spec::tcp("openttd", 3979)
};

pub type Exchange = Openttd;

impl Build for Openttd {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        Openttd::new(start.params, start.deadline)
    }
}
