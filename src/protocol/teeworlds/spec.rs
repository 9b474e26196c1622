//! Teeworlds 0.6/0.7 and DDNet: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use std::time::Duration;

use super::exchange::{Memory as Remembered, Teeworlds};
use super::machine::Tokens;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{recalled, Build, Spec, Start};

/// Neither real server seen drops repeats (DDNet 16.4 and Teeworlds 0.7.5 answered ten
/// requests in a burst ten times); the gap keeps resends polite for servers run with limits.
/// Self-paced: two dialects are in flight, each resent on its own.
pub const SPEC: Spec = Spec {
    min_gap: Duration::from_millis(500),
    self_paced: true,
    ..Spec::udp("teeworlds", 8303)
};

pub type Exchange = Teeworlds;

impl Build for Teeworlds {
    fn build(start: &Start<'_>, memory: &Memory) -> Self {
        let hint = recalled::<Remembered>(memory).flavour;
        Teeworlds::new(
            start.params,
            hint,
            Tokens::random(),
            start.min_gap,
            start.deadline,
        )
    }

    fn remember(&self, memory: &mut Memory) {
        memory.set(Remembered {
            flavour: self.flavour(),
        });
    }
}
