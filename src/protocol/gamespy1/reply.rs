//! A whole reply: the server's variables and its players, from the indexed `player_N`,
//! `frags_N`, `ping_N`... fields.

use std::collections::{BTreeMap, BTreeSet};

/// The most players listed; more are counted in [`Reply::players_dropped`].
pub const MAX_PLAYERS: usize = 256;

/// One player, from the fields sharing an index `N`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlayerEntry {
    /// The `N` of its fields.
    pub index: u32,
    /// `player_N`, else `playername_N` (Battlefield 1942).
    pub name: String,
    /// Every other `key_N` field, by key without the index, in the server's order.
    pub fields: Vec<(String, String)>,
}

impl PlayerEntry {
    pub fn field(&self, key: &str) -> Option<&str> {
        crate::protocol::keyvalue::get(&self.fields, key)
    }

    /// `score_N`, else `frags_N` (Unreal), else `kills_N`.
    pub fn score(&self) -> Option<i64> {
        ["score", "frags", "kills"]
            .iter()
            .find_map(|k| self.field(k).and_then(int))
    }

    pub fn ping(&self) -> Option<u32> {
        self.field("ping")
            .and_then(int)
            .and_then(|p| u32::try_from(p).ok())
    }
}

/// A reassembled reply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reply {
    /// Every pair that is not a player field, in the server's order.
    pub vars: Vec<(String, String)>,
    /// Players by index (Battlefield 1942 leaves stale entries here: `numplayers` is the
    /// count, see [`super::to_status`]).
    pub players: Vec<PlayerEntry>,
    /// Players beyond [`MAX_PLAYERS`], not listed.
    pub players_dropped: usize,
}

impl Reply {
    /// The first value of `key`, compared without case.
    pub fn get(&self, key: &str) -> Option<&str> {
        crate::protocol::keyvalue::get(&self.vars, key)
    }

    /// The first of `keys` present.
    pub fn first(&self, keys: &[&str]) -> Option<&str> {
        crate::protocol::keyvalue::first(&self.vars, keys)
    }

    pub fn int(&self, key: &str) -> Option<i64> {
        self.get(key).and_then(int)
    }
}

/// An integer as servers write them: optional sign, digits, maybe spaces around.
pub(super) fn int(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// Splits `key_N` into the key and `N`.
fn indexed(key: &str) -> Option<(&str, u32)> {
    // Bytes, not `rsplit_once`'s string search: this runs twice for every pair of every poll.
    let bytes = key.as_bytes();
    let underscore = bytes.iter().rposition(|&b| b == b'_')?;
    let digits = &bytes[underscore + 1..];
    if underscore == 0 || digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut n: u32 = 0;
    for &d in digits {
        n = n.checked_mul(10)?.checked_add(u32::from(d - b'0'))?;
    }
    Some((&key[..underscore], n))
}

fn is_name_key(name: &str) -> bool {
    name.eq_ignore_ascii_case("player") || name.eq_ignore_ascii_case("playername")
}

/// Sorts merged pairs into variables and players. An index is a player when it has a name
/// field (`player_N` or `playername_N`); other `key_N` pairs (Battlefield's `teamname_0`,
/// indices without a name) stay variables.
pub fn decode_reply(pairs: Vec<(String, String)>) -> Reply {
    let mut players: BTreeMap<u32, PlayerEntry> = BTreeMap::new();
    // Bounded by the pairs, which the exchange caps.
    let mut dropped = BTreeSet::new();
    for (k, v) in &pairs {
        if let Some((_, n)) = indexed(k).filter(|(name, _)| is_name_key(name)) {
            if players.contains_key(&n) {
                continue;
            }
            if players.len() >= MAX_PLAYERS {
                dropped.insert(n);
                continue;
            }
            players.insert(
                n,
                PlayerEntry {
                    index: n,
                    name: v.clone(),
                    fields: Vec::new(),
                },
            );
        }
    }
    let mut vars = Vec::with_capacity(pairs.len());
    for (k, v) in pairs {
        match indexed(&k) {
            Some((name, n)) if is_name_key(name) && players.contains_key(&n) => {}
            Some((name, n)) => match players.get_mut(&n) {
                Some(p) => p.fields.push((name.to_string(), v)),
                None if dropped.contains(&n) => {}
                None => vars.push((k, v)),
            },
            None => vars.push((k, v)),
        }
    }
    Reply {
        vars,
        players: players.into_values().collect(),
        players_dropped: dropped.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// Unreal's indexed fields become players by index; Battlefield's `teamname_N` (no
    /// player of that index) and unindexed keys stay variables.
    #[test]
    fn players_by_index() {
        let r = decode_reply(pairs(&[
            ("hostname", "x"),
            ("player_1", "bob"),
            ("frags_1", "-2"),
            ("player_0", "alice"),
            ("frags_0", "7"),
            ("ping_0", " 50 "),
            ("team_0", "1"),
            ("teamname_5", "Axis"),
            ("max_players", "9"),
        ]));
        assert_eq!(
            r.vars,
            pairs(&[
                ("hostname", "x"),
                ("teamname_5", "Axis"),
                ("max_players", "9")
            ])
        );
        assert_eq!(r.players.len(), 2);
        assert_eq!(
            (r.players[0].index, r.players[0].name.as_str()),
            (0, "alice")
        );
        assert_eq!(r.players[0].score(), Some(7));
        assert_eq!(r.players[0].ping(), Some(50));
        assert_eq!(r.players[0].field("team"), Some("1"));
        assert_eq!(
            (r.players[1].name.as_str(), r.players[1].score()),
            ("bob", Some(-2))
        );
        assert_eq!(r.players[1].ping(), None);
    }

    /// `key_N` splits at the last underscore into the key and a decimal `N` that fits a u32;
    /// anything else is no index.
    #[test]
    fn indexed_keys() {
        assert_eq!(indexed("player_0"), Some(("player", 0)));
        assert_eq!(indexed("team_score_12"), Some(("team_score", 12)));
        assert_eq!(indexed("frags_4294967295"), Some(("frags", u32::MAX)));
        assert_eq!(indexed("frags_4294967296"), None);
        assert_eq!(indexed("_3"), None);
        assert_eq!(indexed("player_"), None);
        assert_eq!(indexed("player_1a"), None);
        assert_eq!(indexed("player_+1"), None);
        assert_eq!(indexed("hostname"), None);
        assert_eq!(indexed("ping_\u{e9}"), None);
    }

    /// Battlefield 1942 names its players `playername_N` and scores them `score_N`.
    #[test]
    fn battlefield_names() {
        let r = decode_reply(pairs(&[
            ("playername_3", "Sgt"),
            ("score_3", "12"),
            ("kills_3", "4"),
        ]));
        assert_eq!(r.players[0].name, "Sgt");
        assert_eq!(r.players[0].score(), Some(12));
    }

    /// More players than the cap are counted, not kept, and leave no variables behind.
    #[test]
    fn player_cap() {
        let mut p = Vec::new();
        for i in 0..(MAX_PLAYERS + 5) {
            p.push((format!("player_{i}"), format!("p{i}")));
            p.push((format!("frags_{i}"), "1".into()));
        }
        let r = decode_reply(p);
        assert_eq!((r.players.len(), r.players_dropped), (MAX_PLAYERS, 5));
        assert!(r.vars.is_empty());
    }
}
