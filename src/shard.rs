//! Sharding: several replicas over one configuration, each polling and publishing only its
//! share of the targets.
//!
//! A replica started with `--shard I/N` owns the targets whose name hashes to `I`:
//!
//! ```text
//! owner(name) = u64_be(md5(utf8(name))[8..16]) mod N
//! ```
//!
//! which is exactly Prometheus's `hashmod` relabel action (model/relabel/relabel.go: the MD5
//! digest of the source value, its last 8 bytes read as a big-endian u64, modulo `modulus`). So
//! `hashmod` on the `target` label with `modulus: N` gives the same numbers on the Prometheus
//! side. The function is part of the contract: docs/operations.md lists fixed vectors
//! and `tests::vectors` pins them, since a changed hash would move every target at an upgrade.
//!
//! The shard comes from `--shard`, else the [`ENV`] variable, else `exporter.shard` in the
//! file ([`resolve`]); it is fixed for the life of the process (a reload keeps it).

use std::fmt;
use std::sync::Arc;

use md5::{Digest, Md5};

use crate::target::Target;

/// Environment form of `--shard`, for containers (a StatefulSet composes it from the pod index).
pub const ENV: &str = "GAMESERVER_EXPORTER_SHARD";

/// Most shards accepted. Far beyond any sensible fleet split; a cap keeps a typo such as
/// `0/30000` from producing a replica that silently owns almost nothing.
pub const MAX_SHARDS: u64 = 1024;

/// Which share of the targets this replica owns: index `I` of `N`. `0/1` (the default) owns
/// everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Shard {
    index: u32,
    count: u32,
}

/// Why a shard specification was refused. The messages are part of the CLI contract (tested
/// verbatim).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    #[error("invalid shard {0:?} (want I/N such as 0/3, or I-of-N such as 0-of-3)")]
    Syntax(String),
    #[error("shard count must be at least 1")]
    ZeroCount,
    #[error("shard count {0} is above the maximum of {MAX_SHARDS}")]
    TooMany(u64),
    #[error("shard index {index} must be below the shard count {count}")]
    IndexOutOfRange { index: u64, count: u64 },
}

impl Shard {
    /// The whole fleet: what a replica without `--shard` polls.
    pub const ALL: Shard = Shard { index: 0, count: 1 };

    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::ZeroCount);
        }
        if count > MAX_SHARDS {
            return Err(ShardError::TooMany(count));
        }
        if index >= count {
            return Err(ShardError::IndexOutOfRange { index, count });
        }
        // Both fit: count <= MAX_SHARDS and index < count.
        Ok(Shard {
            index: index as u32,
            count: count as u32,
        })
    }

    /// Reads `I/N` or `I-of-N` (the second because a systemd instance name cannot hold `/`),
    /// decimal digits only, no spaces.
    pub fn parse(s: &str) -> Result<Shard, ShardError> {
        let syntax = || ShardError::Syntax(s.to_string());
        let (i, n) = s
            .split_once('/')
            .or_else(|| s.split_once("-of-"))
            .ok_or_else(syntax)?;
        let number = |d: &str| {
            if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
                return Err(syntax());
            }
            // Too many digits for u64 is simply "too large": the range checks say so.
            Ok(d.parse::<u64>().unwrap_or(u64::MAX))
        };
        Shard::new(number(i)?, number(n)?)
    }

    pub fn index(self) -> u32 {
        self.index
    }

    pub fn count(self) -> u32 {
        self.count
    }

    /// The shard index that owns `name` among this shard's `count`.
    pub fn owner(self, name: &str) -> u32 {
        if self.count == 1 {
            return 0;
        }
        // hashmod < count <= MAX_SHARDS, so it fits.
        hashmod(name, u64::from(self.count)) as u32
    }

    pub fn owns(self, name: &str) -> bool {
        self.owner(name) == self.index
    }

    /// The shard with the same count that owns `name`.
    pub fn owner_shard(self, name: &str) -> Shard {
        Shard {
            index: self.owner(name),
            count: self.count,
        }
    }
}

impl Default for Shard {
    fn default() -> Shard {
        Shard::ALL
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = ShardError;
    fn from_str(s: &str) -> Result<Shard, ShardError> {
        Shard::parse(s)
    }
}

/// Prometheus's `hashmod`: the last 8 bytes of the MD5 digest of `value`, big-endian,
/// modulo `modulus` (which must not be 0; Prometheus refuses that too).
pub fn hashmod(value: &str, modulus: u64) -> u64 {
    let d = digest(value);
    tail(&d) % modulus.max(1)
}

fn digest(value: &str) -> [u8; 16] {
    Md5::digest(value.as_bytes()).into()
}

fn tail(d: &[u8; 16]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[8..]);
    u64::from_be_bytes(b)
}

fn head(d: &[u8; 16]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&d[..8]);
    u64::from_be_bytes(b)
}

/// Where the shard in force came from (for the start-up log line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env,
    Config,
    Default,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Flag => "--shard",
            Source::Env => ENV,
            Source::Config => "exporter.shard",
            Source::Default => "default",
        })
    }
}

/// Picks the shard: `--shard` over the [`ENV`] variable over `exporter.shard` (already
/// validated by the config loader). An empty variable counts as unset. The error names the
/// source, e.g. `--shard: shard index 3 must be below the shard count 3`.
pub fn resolve(
    flag: Option<&str>,
    env: Option<&str>,
    config: Option<Shard>,
) -> Result<(Shard, Source), String> {
    if let Some(f) = flag {
        return Shard::parse(f)
            .map(|s| (s, Source::Flag))
            .map_err(|e| format!("--shard: {e}"));
    }
    if let Some(e) = env.filter(|e| !e.is_empty()) {
        return Shard::parse(e)
            .map(|s| (s, Source::Env))
            .map_err(|err| format!("{ENV}: {err}"));
    }
    Ok(match config {
        Some(s) => (s, Source::Config),
        None => (Shard::ALL, Source::Default),
    })
}

/// The configured targets of the other shards, kept only as 64-bit fingerprints (the first
/// half of the name's MD5, which the owner computation needs anyway): `/probe?target=` can
/// then tell "another replica's target" from "no such target" for 8 bytes per target instead
/// of a copy of every foreign name. A false match needs a 64-bit collision.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Elsewhere {
    sorted: Vec<u64>,
}

impl Elsewhere {
    pub fn contains(&self, name: &str) -> bool {
        !self.sorted.is_empty() && self.sorted.binary_search(&head(&digest(name))).is_ok()
    }

    pub fn len(&self) -> usize {
        self.sorted.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }
}

/// Splits a configuration's targets into this shard's (order kept) and the rest.
pub fn split(shard: Shard, targets: Vec<Arc<Target>>) -> (Vec<Arc<Target>>, Elsewhere) {
    if shard.count == 1 {
        return (targets, Elsewhere::default());
    }
    let count = u64::from(shard.count);
    let index = u64::from(shard.index);
    let mut mine = Vec::with_capacity(targets.len() / shard.count as usize + 1);
    let mut sorted = Vec::with_capacity(targets.len() - targets.len() / shard.count as usize);
    for t in targets {
        let d = digest(&t.name);
        if tail(&d) % count == index {
            mine.push(t);
        } else {
            sorted.push(head(&d));
        }
    }
    sorted.sort_unstable();
    mine.shrink_to_fit();
    (mine, Elsewhere { sorted })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::Address;
    use crate::target::Protocol;

    /// The documented vectors (docs/operations.md), computed independently (Python's hashlib): hashmod must never
    /// change, or every target moves to another replica at an upgrade.
    #[test]
    fn vectors() {
        // (value, last 8 digest bytes as u64, mod 3, mod 7, mod 1024)
        let cases: [(&str, u64, u64, u64, u64); 7] = [
            ("", 16825458760271544958, 1, 1, 638),
            ("a", 3585878926028121697, 1, 2, 609),
            ("survival", 6598101025391454566, 2, 1, 358),
            ("cs2-eu-1", 13558913506264138483, 1, 2, 755),
            ("203.0.113.10:27015", 9215210134592345245, 1, 5, 157),
            ("héllo wörld", 3636746336076267832, 1, 5, 312),
            ("server-29", 16670876554379394005, 2, 1, 981),
        ];
        for (v, t, m3, m7, m1024) in cases {
            assert_eq!(tail(&digest(v)), t, "{v:?}");
            assert_eq!(hashmod(v, 3), m3, "{v:?}");
            assert_eq!(hashmod(v, 7), m7, "{v:?}");
            assert_eq!(hashmod(v, 1024), m1024, "{v:?}");
            assert_eq!(hashmod(v, 1), 0);
        }
        // The whole digest of one value, against RFC 1321's test suite ("a").
        assert_eq!(
            digest("a"),
            [
                0x0c, 0xc1, 0x75, 0xb9, 0xc0, 0xf1, 0xb6, 0xa8, 0x31, 0xc3, 0x99, 0xe2, 0x69, 0x77,
                0x26, 0x61
            ]
        );
        let s = Shard::parse("2/3").unwrap();
        assert!(s.owns("survival"));
        assert_eq!(Shard::parse("0/3").unwrap().owner("survival"), 2);
        assert_eq!(Shard::ALL.owner("survival"), 0);
    }

    /// The vector table of docs/operations.md (section "Sharding") agrees with the function,
    /// digest included.
    #[test]
    fn documented_vectors() {
        let page = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/operations.md"));
        let rows: Vec<Vec<&str>> = page
            .lines()
            .skip_while(|l| !l.starts_with("| name | md5 |"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
            .collect();
        assert!(rows.len() >= 5, "docs/operations.md has the vector table");
        for r in rows {
            let name = r[0].trim_matches('`').trim_matches('"');
            let hex: String = digest(name).iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(r[1].trim_matches('`'), hex, "{name:?}");
            assert_eq!(r[2], tail(&digest(name)).to_string(), "{name:?}");
            for (cell, n) in r[3..6].iter().zip([3, 7, 1024]) {
                assert_eq!(*cell, hashmod(name, n).to_string(), "{name:?} mod {n}");
            }
        }
    }

    /// Both spellings parse; Display gives the canonical one.
    #[test]
    fn parse_ok() {
        for (s, i, n) in [
            ("0/1", 0, 1),
            ("0/3", 0, 3),
            ("2/3", 2, 3),
            ("1-of-3", 1, 3),
            ("1023/1024", 1023, 1024),
            ("007/010", 7, 10),
        ] {
            let shard = Shard::parse(s).unwrap();
            assert_eq!((shard.index(), shard.count()), (i, n), "{s}");
        }
        assert_eq!(Shard::parse("1-of-3").unwrap().to_string(), "1/3");
        assert_eq!(Shard::default(), Shard::ALL);
        assert_eq!("4/5".parse::<Shard>().unwrap(), Shard::new(4, 5).unwrap());
    }

    /// Every refusal, verbatim.
    #[test]
    fn parse_errors() {
        let e = |s: &str| Shard::parse(s).unwrap_err().to_string();
        let syntax = |s: &str| {
            format!("invalid shard {s:?} (want I/N such as 0/3, or I-of-N such as 0-of-3)")
        };
        for bad in [
            "", "3", "/3", "1/", "a/3", "1/b", " 1/3", "1/3 ", "+1/3", "-1/3", "1/3/4", "1_of_3",
            "1-of-", "1.0/3", "１/3",
        ] {
            assert_eq!(e(bad), syntax(bad), "{bad:?}");
        }
        assert_eq!(e("0/0"), "shard count must be at least 1");
        assert_eq!(e("3/3"), "shard index 3 must be below the shard count 3");
        assert_eq!(e("7-of-2"), "shard index 7 must be below the shard count 2");
        assert_eq!(e("0/1025"), "shard count 1025 is above the maximum of 1024");
        assert_eq!(
            e("0/99999999999999999999999"),
            "shard count 18446744073709551615 is above the maximum of 1024"
        );
    }

    proptest::proptest! {
        /// Any text: no panic; whatever parses is in range and prints back to itself.
        #[test]
        fn parse_any(s in "\\PC{0,24}|[0-9]{1,25}(/|-of-)[0-9]{1,25}") {
            if let Ok(shard) = Shard::parse(&s) {
                proptest::prop_assert!(shard.index() < shard.count());
                proptest::prop_assert!(u64::from(shard.count()) <= MAX_SHARDS);
                proptest::prop_assert_eq!(Shard::parse(&shard.to_string()), Ok(shard));
            }
        }

        /// hashmod is below the modulus and owner() agrees with it.
        #[test]
        fn owner_in_range(name in "\\PC{0,40}", count in 1u64..=MAX_SHARDS) {
            let h = hashmod(&name, count);
            proptest::prop_assert!(h < count);
            let shard = Shard::new(0, count).unwrap();
            proptest::prop_assert_eq!(u64::from(shard.owner(&name)), h);
        }
    }

    /// Flag over environment over file; empty environment is unset; errors name the source.
    #[test]
    fn resolve_precedence() {
        let file = Some(Shard::new(1, 2).unwrap());
        let s = |i, n| Shard::new(i, n).unwrap();
        assert_eq!(
            resolve(Some("0/3"), Some("1/3"), file),
            Ok((s(0, 3), Source::Flag))
        );
        assert_eq!(
            resolve(None, Some("1-of-3"), file),
            Ok((s(1, 3), Source::Env))
        );
        assert_eq!(resolve(None, Some(""), file), Ok((s(1, 2), Source::Config)));
        assert_eq!(resolve(None, None, None), Ok((Shard::ALL, Source::Default)));
        assert_eq!(
            resolve(Some("3/3"), None, None),
            Err("--shard: shard index 3 must be below the shard count 3".into())
        );
        assert_eq!(
            resolve(None, Some("/3"), None),
            Err("GAMESERVER_EXPORTER_SHARD: invalid shard \"/3\" (want I/N such as 0/3, or I-of-N such as 0-of-3)".into())
        );
    }

    fn target(name: &str) -> Arc<Target> {
        Arc::new(Target::new(
            name,
            Protocol::A2s,
            Address::parse("127.0.0.1").unwrap(),
        ))
    }

    /// Every target lands in exactly one shard, the one hashmod names, in config order; the
    /// others' names are recognised and unknown names are not.
    #[test]
    fn split_partitions() {
        let names: Vec<String> = (0..300).map(|i| format!("server-{i}")).collect();
        let mut seen = vec![0u32; names.len()];
        for i in 0..3 {
            let shard = Shard::new(i, 3).unwrap();
            let (mine, elsewhere) = split(shard, names.iter().map(|n| target(n)).collect());
            assert_eq!(mine.len() + elsewhere.len(), names.len());
            // Reasonably even: 300 names over 3 shards.
            assert!((70..=130).contains(&mine.len()), "{}", mine.len());
            let mut last = None;
            for t in &mine {
                assert_eq!(hashmod(&t.name, 3), i);
                let pos = names.iter().position(|n| *n == t.name).unwrap();
                assert!(last < Some(pos), "order kept");
                last = Some(pos);
                seen[pos] += 1;
                assert!(!elsewhere.contains(&t.name));
            }
            for n in &names {
                assert_eq!(elsewhere.contains(n), !shard.owns(n), "{n}");
            }
            assert!(!elsewhere.contains("not-configured"));
        }
        assert!(seen.iter().all(|&n| n == 1), "each target exactly once");
        // Without sharding nothing is hashed away.
        let (mine, elsewhere) = split(Shard::ALL, vec![target("a"), target("b")]);
        assert_eq!(mine.len(), 2);
        assert!(elsewhere.is_empty() && !elsewhere.contains("a"));
    }
}
