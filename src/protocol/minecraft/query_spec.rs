//! Minecraft Query (GameSpy4): the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use super::query_exchange::{McQuery, Memory as Remembered};
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, Spec, Start};

/// Tokens are tied to the client's address and port: the shared socket's port is stable, so
/// the remembered token holds across polls (a connected socket of its own per poll, as
/// before, cost 1.7-2.1x an A2S poll: benches/RESULTS.md). `query.port` defaults to the
/// game port.
pub const SPEC: Spec = Spec::udp("minecraft-query", 25565);

pub type Exchange = McQuery;

impl Build for McQuery {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        let remembered = recalled::<Remembered>(memory);
        McQuery::new(start.params, remembered, start.local_port, start.deadline)
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(self.memory());
    }

    /// Tokens are tied to our address and port: a remembered one is only tried from the
    /// port it was issued to.
    const LOCAL_PORT: bool = true;
}
