//! One gate per server address, for protocols whose servers count a client's requests
//! across connections (TeamSpeak bans an address for 10 commands in 3 s, whichever session
//! sent them): every poll of that server from this process, whichever configured target or
//! ad-hoc `/probe` asks (each with a session of its own), waits for the previous one to end
//! and then for the protocol's gap.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};

use tokio::time::Instant;

/// When the last poll of one server ended; locked for the whole of a poll.
pub(super) type Gate = Arc<tokio::sync::Mutex<Option<Instant>>>;

/// Past this many servers, gates no poll holds are dropped (their memory of the last poll
/// goes; a configured target's session still keeps its own).
const PRUNE_ABOVE: usize = 4096;

fn gates() -> &'static Mutex<HashMap<SocketAddr, Gate>> {
    static GATES: OnceLock<Mutex<HashMap<SocketAddr, Gate>>> = OnceLock::new();
    GATES.get_or_init(Mutex::default)
}

/// The gate of the server at `peer`.
pub(super) fn gate(peer: SocketAddr) -> Gate {
    let mut map = gates().lock().unwrap_or_else(|e| e.into_inner());
    if map.len() > PRUNE_ABOVE {
        map.retain(|_, g| Arc::strong_count(g) > 1);
    }
    map.entry(peer).or_default().clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One address, one gate; another address, another.
    #[test]
    fn one_gate_per_address() {
        let a: SocketAddr = "192.0.2.1:10011".parse().unwrap();
        let b: SocketAddr = "192.0.2.2:10011".parse().unwrap();
        assert!(Arc::ptr_eq(&gate(a), &gate(a)));
        assert!(!Arc::ptr_eq(&gate(a), &gate(b)));
    }
}
