//! What a target's protocol keeps from one poll to the next (challenges, tokens, the dialect
//! that answered), in the protocol's own type: its spec's `Build` sets and reads it, and the
//! daemon's session holds it without naming any protocol.

/// One protocol's memory between polls, untyped here. A target whose protocol changes (a
/// reload) finds memory of another type and starts afresh.
#[derive(Default)]
pub struct Memory(Option<Box<dyn std::any::Any + Send + Sync>>);

impl Memory {
    /// The memory of type `M`, made fresh (`M::default()`) when there is none of that type.
    pub fn get<M: Default + Send + Sync + 'static>(&mut self) -> &mut M {
        let held = self.0.get_or_insert_with(|| Box::new(M::default()));
        if !held.is::<M>() {
            *held = Box::new(M::default());
        }
        match held.downcast_mut::<M>() {
            Some(m) => m,
            None => unreachable!("the memory was just made an M"),
        }
    }

    /// Holds `m`, replacing whatever was held: in place when it is already an `M` (one type
    /// check and no allocation, the steady state of every poll), else in a new box.
    pub fn set<M: Send + Sync + 'static>(&mut self, m: M) {
        match self
            .0
            .as_deref_mut()
            .and_then(|held| held.downcast_mut::<M>())
        {
            Some(held) => *held = m,
            None => self.0 = Some(Box::new(m)),
        }
    }

    /// The memory of type `M`, if that is what is held.
    pub fn peek<M: 'static>(&self) -> Option<&M> {
        self.0.as_ref().and_then(|m| m.downcast_ref())
    }
}

impl std::fmt::Debug for Memory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Memory(..)"
        } else {
            "Memory(none)"
        })
    }
}

#[cfg(test)]
mod memory_tests {
    use super::Memory;

    /// Memory of one type is kept between calls; asking for another type starts afresh.
    #[test]
    fn typed_and_reset_on_change() {
        let mut m = Memory::default();
        assert_eq!(m.peek::<u8>(), None);
        *m.get::<u8>() = 7;
        assert_eq!(*m.get::<u8>(), 7);
        assert_eq!(*m.get::<u16>(), 0);
        assert_eq!(m.peek::<u8>(), None);
        assert_eq!(m.peek::<u16>(), Some(&0));
        m.set(9u16);
        assert_eq!(m.peek::<u16>(), Some(&9));
        m.set(3u8);
        assert_eq!((m.peek::<u8>(), m.peek::<u16>()), (Some(&3), None));
    }
}
