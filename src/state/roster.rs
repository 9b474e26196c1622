//! Who is online: a server's player list turned into the per-player series a target
//! publishes, and the joins and leaves between two consecutive lists.
//!
//! Player names are an unbounded, hostile label set, so each list is cut down once per poll
//! (not per scrape) into a [`Roster`]:
//!
//! - **Names** ([`clean_name`]): control characters (newline, CR, tab, NUL, C1...) and
//!   direction overrides ([`crate::text::hidden`]) are dropped, the rest is cut to
//!   [`MAX_NAME_CHARS`] characters; a name left empty becomes [`EMPTY_NAME`]. Quotes and
//!   backslashes stay and are escaped in the exposition. Names are already UTF-8 here: each
//!   codec decodes invalid bytes lossily (U+FFFD).
//! - **Distinct series**: a name seen before in the same list gets ` #2`, ` #3`... in list
//!   order (the next free suffix, so a real player called `x #2` cannot collide).
//! - **Cap**: the first `max_series` players of the list are published, the rest counted in
//!   [`Roster::dropped`].
//! - **Joins and leaves** ([`diff`]): the multiset difference of the cleaned names (before
//!   suffixes) of two consecutive lists; two players whose names differ only after
//!   [`MAX_NAME_CHARS`] characters count as one name.

use std::collections::{HashMap, HashSet};

use crate::status::Player;
use crate::target::PlayerSeries;

/// Characters a player name keeps: Steam names are at most 32, Minecraft 16, SA:MP 24.
pub const MAX_NAME_CHARS: usize = 64;
/// The `player` label of a player whose name is empty (or only control characters).
pub const EMPTY_NAME: &str = "(empty)";
/// Names kept for joins and leaves: a hostile list of a million tiny names must not cost a
/// million strings per poll. Players beyond are still counted as dropped.
pub const MAX_TRACKED: usize = 10_000;

/// One published player.
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    /// Clean and distinct within the roster: ready for the `player` label.
    pub name: String,
    pub score: Option<i64>,
    /// Seconds connected, where the protocol says (finite, never negative).
    pub connected_seconds: Option<f64>,
    /// Round trip to the player in seconds, where the protocol says.
    pub ping_seconds: Option<f64>,
}

/// One player list, as published.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Roster {
    /// The first `max_series` players, in list order.
    pub shown: Vec<Shown>,
    /// Players in the list beyond the cap.
    pub dropped: u64,
    /// Every player's cleaned name (no suffix), sorted: what the next list is compared with.
    pub names: Vec<String>,
}

/// `name` as a label value: control characters and direction overrides dropped, at most [`MAX_NAME_CHARS`]
/// characters, [`EMPTY_NAME`] if nothing is left.
pub fn clean_name(name: &str) -> String {
    let kept: String = name
        .chars()
        .filter(|&c| !crate::text::hidden(c))
        .take(MAX_NAME_CHARS)
        .collect();
    if kept.is_empty() {
        EMPTY_NAME.to_string()
    } else {
        kept
    }
}

impl Roster {
    /// Builds the published view of `players` under `cap`.
    ///
    /// Most lists have no two equal names: then every shown name is its clean name, and the
    /// sorted names (needed for [`diff`] anyway) prove it without hashing a single one. Only
    /// a list where the sort finds a repeat goes through [`distinct`]'s suffixing, which gives
    /// the same names the one-pass build gave (issue 23: the set of taken names, a copy of
    /// each name in it and a cleaned copy of every name were most of a players poll's cost).
    pub fn new(players: Vec<Player>, cap: PlayerSeries) -> Roster {
        let max_series = cap.max_series as usize;
        let mut names = Vec::with_capacity(players.len().min(MAX_TRACKED));
        let mut shown = Vec::with_capacity(players.len().min(max_series));
        let mut dropped = 0u64;
        for (i, p) in players.into_iter().enumerate() {
            if i >= MAX_TRACKED {
                dropped += 1;
                continue;
            }
            let base = clean_owned(p.name);
            if shown.len() < max_series {
                shown.push(Shown {
                    // The clean name; made distinct below if the list repeats one.
                    name: base.clone(),
                    score: p.score,
                    connected_seconds: p
                        .duration
                        .map(f64::from)
                        .filter(|d| d.is_finite() && *d >= 0.0),
                    ping_seconds: p.ping.map(|ms| f64::from(ms) / 1000.0),
                });
            } else {
                dropped += 1;
            }
            names.push(base);
        }
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            // Some name repeats (maybe only beyond the cap): suffix the shown ones in list
            // order, each against the names taken before it.
            let mut taken: HashSet<String> = HashSet::with_capacity(shown.len());
            let mut suffixes: HashMap<String, u64> = HashMap::new();
            for s in &mut shown {
                let name = distinct(&s.name, &taken, &mut suffixes);
                taken.insert(name.clone());
                s.name = name;
            }
        }
        Roster {
            shown,
            dropped,
            names,
        }
    }
}

/// [`clean_name`] of an owned name, which keeps the name itself when it is clean already
/// (the common case): no copy.
fn clean_owned(name: String) -> String {
    // Printable ASCII (most names) has nothing hidden and one byte per character: a byte
    // scan settles it without decoding characters (that was ~2,000 instructions of a
    // 20-player poll).
    if !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.bytes().all(|b| (0x20..0x7f).contains(&b))
    {
        return name;
    }
    let mut chars = 0;
    let clean = name.chars().all(|c| {
        chars += 1;
        !crate::text::hidden(c)
    });
    if clean && chars > 0 && chars <= MAX_NAME_CHARS {
        name
    } else {
        clean_name(&name)
    }
}

/// `base`, or `base #n` for the next n >= 2 not yet taken. `next` remembers where each base
/// got to, so a list of many equal names costs linear time, not quadratic.
fn distinct(base: &str, taken: &HashSet<String>, next: &mut HashMap<String, u64>) -> String {
    if !taken.contains(base) {
        return base.to_string();
    }
    let n = next.entry(base.to_string()).or_insert(2);
    loop {
        let candidate = format!("{base} #{n}");
        *n += 1;
        if !taken.contains(&candidate) {
            return candidate;
        }
    }
}

/// Joins and leaves from `old` to `new` (both sorted): players in `new` not matched by one in
/// `old`, and the other way round, counting each name as often as it occurs.
pub fn diff(old: &[String], new: &[String]) -> (u64, u64) {
    let (mut i, mut j) = (0, 0);
    let (mut joins, mut leaves) = (0u64, 0u64);
    while i < old.len() && j < new.len() {
        match old[i].cmp(&new[j]) {
            std::cmp::Ordering::Equal => {
                i += 1;
                j += 1;
            }
            std::cmp::Ordering::Less => {
                leaves += 1;
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                joins += 1;
                j += 1;
            }
        }
    }
    leaves += (old.len() - i) as u64;
    joins += (new.len() - j) as u64;
    (joins, leaves)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&str]) -> Vec<Player> {
        names
            .iter()
            .map(|n| Player {
                name: n.to_string(),
                ..Player::default()
            })
            .collect()
    }

    fn shown(r: &Roster) -> Vec<&str> {
        r.shown.iter().map(|s| s.name.as_str()).collect()
    }

    /// A direction override inside a name is dropped, so a scoreboard cannot be made to
    /// show a name reversed; a name of nothing else is empty.
    #[test]
    fn direction_overrides_dropped() {
        assert_eq!(clean_name("abc\u{202e}fed"), "abcfed");
        assert_eq!(clean_name("\u{2067}\u{202e}"), EMPTY_NAME);
    }

    /// Hostile names become distinct, clean, bounded labels; quotes and backslashes stay.
    #[test]
    fn hostile_names() {
        let invalid = String::from_utf8_lossy(b"ab\xff\xfecd").into_owned();
        let huge = "x".repeat(1 << 20);
        let r = Roster::new(
            named(&[
                "",
                "\n\r\t",
                "a\"b\\c",
                "new\nline",
                &invalid,
                &huge,
                &huge,
                "dup",
                "dup",
                "dup #2",
            ]),
            PlayerSeries::default(),
        );
        let x64 = "x".repeat(MAX_NAME_CHARS);
        assert_eq!(
            shown(&r),
            [
                "(empty)",
                "(empty) #2",
                "a\"b\\c",
                "newline",
                "ab\u{fffd}\u{fffd}cd",
                x64.as_str(),
                &format!("{x64} #2"),
                "dup",
                "dup #2",
                "dup #2 #2",
            ]
        );
        assert_eq!(r.dropped, 0);
        assert_eq!(r.names.len(), 10);
    }

    /// Suffixes are given in list order against the names taken before: a real `x #2`
    /// listed first keeps its name and pushes the second `x` on to `x #3`; a name repeated
    /// only beyond the cap changes no shown name.
    #[test]
    fn repeats_in_list_order() {
        let r = Roster::new(named(&["x #2", "x", "x", "y"]), PlayerSeries::default());
        assert_eq!(shown(&r), ["x #2", "x", "x #3", "y"]);
        let r = Roster::new(named(&["a", "b", "a"]), PlayerSeries { max_series: 2 });
        assert_eq!((shown(&r), r.dropped), (vec!["a", "b"], 1));
        assert_eq!(r.names, ["a", "a", "b"]);
    }

    /// A name kept as it came is exactly what [`clean_name`] makes of it, on both sides of
    /// the printable-ASCII shortcut.
    #[test]
    fn owned_names_clean_like_borrowed() {
        let long = "y".repeat(MAX_NAME_CHARS + 1);
        let exact = "z".repeat(MAX_NAME_CHARS);
        for name in [
            "plain",
            "~ok~",
            "",
            "tab\there",
            "\x7fdel",
            "\u{e9}",
            "a\u{202e}b",
            &long,
            &exact,
        ] {
            assert_eq!(clean_owned(name.to_string()), clean_name(name), "{name:?}");
        }
    }

    /// Only the first `max_series` players are shown, in list order; the rest are counted.
    #[test]
    fn cap() {
        let names: Vec<String> = (0..150).map(|i| format!("p{i:03}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let r = Roster::new(named(&refs), PlayerSeries::default());
        assert_eq!(r.shown.len(), 100);
        assert_eq!(r.dropped, 50);
        assert_eq!(r.shown[99].name, "p099");
        assert_eq!(r.names.len(), 150);
        let r = Roster::new(named(&refs[..3]), PlayerSeries { max_series: 1 });
        assert_eq!((shown(&r), r.dropped), (vec!["p000"], 2));
    }

    /// Score, connection time and ping carry over; a nonsense duration is left out.
    #[test]
    fn fields() {
        let players = vec![
            Player {
                name: "a".into(),
                score: Some(-3),
                duration: Some(61.5),
                ping: Some(42),
                ..Player::default()
            },
            Player {
                name: "b".into(),
                duration: Some(f32::NAN),
                ..Player::default()
            },
        ];
        let r = Roster::new(players, PlayerSeries::default());
        assert_eq!(r.shown[0].score, Some(-3));
        assert_eq!(r.shown[0].connected_seconds, Some(61.5));
        assert_eq!(r.shown[0].ping_seconds, Some(0.042));
        assert_eq!(r.shown[1].connected_seconds, None);
        assert_eq!(r.shown[1].ping_seconds, None);
    }

    /// Joins and leaves are a multiset difference.
    #[test]
    fn joins_and_leaves() {
        let s = |v: &[&str]| {
            let mut v: Vec<String> = v.iter().map(|x| x.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(diff(&s(&[]), &s(&["a", "b"])), (2, 0));
        assert_eq!(diff(&s(&["a", "b"]), &s(&["b", "c"])), (1, 1));
        assert_eq!(diff(&s(&["a", "a", "b"]), &s(&["a", "b", "b"])), (1, 1));
        assert_eq!(diff(&s(&["a", "b"]), &s(&[])), (0, 2));
        assert_eq!(diff(&s(&["x", "y"]), &s(&["y", "x"])), (0, 0));
    }

    proptest::proptest! {
        /// Any list: shown + dropped is the list's length, shown names are distinct, free of
        /// control characters and bounded, and joins minus leaves is the change in size.
        #[test]
        fn any_list(
            names in proptest::collection::vec("\\PC{0,3}|[a\n\"\\\\]{0,3}|.{0,80}", 0..40),
            old in proptest::collection::vec("[ab]{0,2}", 0..10),
            cap in 1usize..30,
        ) {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            let r = Roster::new(named(&refs), PlayerSeries { max_series: cap as u32 });
            proptest::prop_assert_eq!(r.shown.len() as u64 + r.dropped, names.len() as u64);
            proptest::prop_assert_eq!(r.shown.len(), names.len().min(cap));
            let set: HashSet<&str> = r.shown.iter().map(|s| s.name.as_str()).collect();
            proptest::prop_assert_eq!(set.len(), r.shown.len());
            for s in &r.shown {
                proptest::prop_assert!(!s.name.is_empty());
                proptest::prop_assert!(!s.name.chars().any(crate::text::hidden));
                proptest::prop_assert!(s.name.chars().count() <= MAX_NAME_CHARS + 12);
            }
            let mut old: Vec<String> = old.iter().map(|n| clean_name(n)).collect();
            old.sort();
            let (joins, leaves) = diff(&old, &r.names);
            proptest::prop_assert_eq!(
                joins as i64 - leaves as i64,
                r.names.len() as i64 - old.len() as i64
            );
        }
    }
}
