//! TeamSpeak 2 query: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::exchange::Ts2;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// The TCP query port; `voice_port` (as for `teamspeak3`) picks the virtual server.
pub const SPEC: Spec = Spec {
    voice_port: Some(super::DEFAULT_VOICE_PORT),
    ..Spec::tcp("teamspeak2", super::DEFAULT_QUERY_PORT)
};

pub type Exchange = Ts2;

impl Build for Ts2 {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        let voice_port = start.voice_port.unwrap_or(super::DEFAULT_VOICE_PORT);
        Ts2::new(start.params, voice_port, start.deadline)
    }
}
