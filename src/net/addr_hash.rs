//! A cheap keyed hash for the UDP mux's table of polls by source address.
//!
//! The table is hashed five times per poll (register, look-up of the reply, release), and
//! std's SipHash over a `SocketAddr` (discriminant, length prefix, address bytes, port: four
//! writes and a finish) was ~4 % of an A2S poll's instructions (callgrind, issue 23). This one
//! folds each write into a 64-bit state with a multiply and mixes once at the end.
//!
//! The keys are the configured targets' addresses; look-ups also hash the source of every
//! datagram that arrives, which anyone can choose. A per-table random seed (taken from std's
//! `RandomState`) keeps colliding addresses from being computed ahead of time, and the table
//! holds only configured addresses, so a stranger can make look-ups miss, never grow a chain.

use std::hash::{BuildHasher, Hasher};

/// An odd 64-bit constant with well spread bits (the golden ratio's fraction).
const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// Builds [`AddrHasher`]s sharing one random seed.
#[derive(Debug, Clone, Copy)]
pub(super) struct AddrHash {
    seed: u64,
}

impl Default for AddrHash {
    fn default() -> Self {
        AddrHash {
            seed: std::hash::RandomState::new().hash_one(0u64),
        }
    }
}

impl BuildHasher for AddrHash {
    type Hasher = AddrHasher;
    fn build_hasher(&self) -> AddrHasher {
        AddrHasher(self.seed)
    }
}

#[derive(Debug, Clone, Copy)]
pub(super) struct AddrHasher(u64);

impl AddrHasher {
    fn fold(&mut self, x: u64) {
        self.0 = (self.0 ^ x).wrapping_mul(K).rotate_left(29);
    }
}

impl Hasher for AddrHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.fold(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length keeps "ab" and "ab\0" apart.
            self.fold(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.fold(u64::from(i));
    }

    fn write_u16(&mut self, i: u16) {
        self.fold(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.fold(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.fold(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.fold(i as u64);
    }

    /// murmur3's 64-bit finalizer: every input bit reaches every output bit, so the low
    /// bits the table indexes with depend on the whole address.
    fn finish(&self) -> u64 {
        let mut h = self.0;
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ (h >> 33)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::net::SocketAddr;

    use super::*;

    /// Addresses differing only in port, only in the last octet, or only in family hash
    /// apart; and equal addresses hash equal.
    #[test]
    fn neighbours_hash_apart() {
        let h = AddrHash::default();
        let mut seen = HashSet::new();
        for last in 0..=255u8 {
            for port in [27015u16, 27016, 10_000] {
                let a: SocketAddr = ([127, 0, 0, last], port).into();
                assert!(seen.insert(h.hash_one(a)), "{a}");
                assert_eq!(h.hash_one(a), h.hash_one(a));
            }
        }
        let v6: SocketAddr = "[::ffff:127.0.0.1]:27015".parse().unwrap();
        assert!(seen.insert(h.hash_one(v6)));
        // The low bits alone (what a small table indexes with) still spread the ports.
        let low: HashSet<u64> = (0..64u16)
            .map(|p| h.hash_one(SocketAddr::from(([10, 0, 0, 1], 20_000 + p))) & 0xff)
            .collect();
        assert!(low.len() > 40, "{}", low.len());
    }

    /// Two tables get different seeds, so a collision found against one says nothing about
    /// another process.
    #[test]
    fn seeds_differ() {
        let a: SocketAddr = ([192, 0, 2, 1], 27015).into();
        let hashes: HashSet<u64> = (0..8).map(|_| AddrHash::default().hash_one(a)).collect();
        assert!(hashes.len() > 1);
    }
}
