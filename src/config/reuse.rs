//! A reload's targets shared with the running ones as they are validated.
//!
//! A reload that changes one target of 100,000 used to build 100,000 new targets (~25 MB)
//! next to the running ones and let the scheduler swap each equal one for the running copy
//! afterwards: the whole new set was alive at once on top of the running daemon. Looking
//! every validated target up among the running ones and keeping the running copy when they
//! are equal means only the changed and added targets are ever new.

use std::sync::Arc;

use crate::target::Target;

/// The running targets, searchable by name (an index sorted by name: 4 bytes a target).
pub(super) struct Running<'a> {
    targets: &'a [Arc<Target>],
    by_name: Vec<u32>,
}

impl<'a> Running<'a> {
    pub(super) fn new(targets: &'a [Arc<Target>]) -> Running<'a> {
        // More targets than a u32 counts is no fleet; nothing is shared then.
        let Ok(n) = u32::try_from(targets.len()) else {
            return Running::none();
        };
        let mut by_name: Vec<u32> = (0..n).collect();
        by_name.sort_unstable_by(|&a, &b| targets[a as usize].name.cmp(&targets[b as usize].name));
        Running { targets, by_name }
    }

    /// Nothing running: every target is new (start-up, `parse`).
    pub(super) fn none() -> Running<'static> {
        Running {
            targets: &[],
            by_name: Vec::new(),
        }
    }

    /// `t` itself if no running target equals it, else the running copy.
    pub(super) fn share(&self, t: Target) -> Arc<Target> {
        let found = self
            .by_name
            .binary_search_by(|&i| self.targets[i as usize].name.as_str().cmp(&t.name))
            .ok()
            .map(|k| &self.targets[self.by_name[k] as usize]);
        match found {
            Some(running) if **running == t => running.clone(),
            _ => Arc::new(t),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{Address, Protocol};

    fn target(name: &str, port: u16) -> Target {
        Target::new(
            name.to_string(),
            Protocol::A2s,
            Address::parse(&format!("127.0.0.1:{port}")).expect("address"),
        )
    }

    #[test]
    fn equal_targets_are_the_running_copy() {
        let running: Vec<Arc<Target>> = ["c", "a", "b"]
            .iter()
            .enumerate()
            .map(|(i, n)| Arc::new(target(n, 1000 + i as u16)))
            .collect();
        let r = Running::new(&running);
        // Equal: the very same allocation.
        assert!(Arc::ptr_eq(&r.share(target("a", 1001)), &running[1]));
        assert!(Arc::ptr_eq(&r.share(target("c", 1000)), &running[0]));
        // Same name, changed: a new one with the new value.
        let changed = r.share(target("b", 9));
        assert!(!Arc::ptr_eq(&changed, &running[2]));
        assert_eq!(*changed, target("b", 9));
        // Unknown name: new.
        assert_eq!(*r.share(target("d", 1)), target("d", 1));
        assert_eq!(*Running::none().share(target("a", 1001)), target("a", 1001));
    }
}
