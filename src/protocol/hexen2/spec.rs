//! HexenWorld `status`: the protocol's facts and how its exchange is built for a poll
//! (`protocol::spec`).

use crate::protocol::exchange::oneshot::OneShot;
use crate::protocol::memory::Memory;
use crate::protocol::spec::{Build, Spec, Start};

/// HexenWorld's own port (`hwsv`'s 26950: Hexen II's 26900 plus 50, as gamedig's list has it).
pub const SPEC: Spec = Spec::udp("hexen2", 26950);

pub type Exchange = OneShot<super::exchange::GetStatus>;

impl Build for Exchange {
    fn build(start: &Start<'_>, _memory: &Memory) -> Self {
        super::exchange::new(&start.params, start.deadline)
    }
}
