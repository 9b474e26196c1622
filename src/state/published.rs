//! What the state keeps of a successful poll: the fields `/metrics`, `/probe`, `/health` and
//! the landing page read, and nothing else.
//!
//! A [`Status`] is built for one poll's use: four `String`s, players, rules and extras, 216
//! bytes behind an `Arc` plus an allocation per string. Kept as the last result of every
//! target, that was ~370 bytes of heap per target (malloc's rounding included), 35 MB at
//! 100,000 targets. A [`Published`] sits inline in the entry and puts the four texts one
//! after another in a single shared allocation, so an entry still clones with reference
//! counts only (a scrape snapshots every entry).

use std::cell::RefCell;
use std::sync::Arc;
use std::time::Duration;

use crate::status::{Health, Status};

thread_local! {
    static JOIN: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The joining buffer's capacity kept between polls: any ordinary set of texts; a huge one
/// (decoders allow long texts) is not kept.
const JOIN_KEEP: usize = 4096;

/// The published part of one successful poll.
#[derive(Debug, Clone, PartialEq)]
pub struct Published {
    pub online: u32,
    pub max: u32,
    pub bots: Option<u32>,
    pub queued: Option<u32>,
    /// Nanoseconds ([`Published::latency`]): 8 bytes less than a `Duration`, per target.
    latency_ns: u64,
    /// Server name, map, game and version, one after another; `ends` says where each of the
    /// first three ends. A text the protocol does not carry is empty, which is how every
    /// reader shows it.
    text: Arc<str>,
    ends: [u32; 3],
    /// Rules and server health, which most targets never have: one shared allocation
    /// when there are any, 8 bytes per target when not ([`Published::rules`],
    /// [`Published::health`]).
    more: Option<Arc<More>>,
}

/// The rarer parts of a published result.
#[derive(Debug, PartialEq)]
struct More {
    /// The configured rules the server gave, in config order (`None`: not fetched or not
    /// given).
    rules: Option<Box<[(String, String)]>>,
    /// Server health, where the game reported any.
    health: Option<Health>,
}

impl Published {
    /// Keeps what is published of `status`: its player list has gone to the roster already,
    /// and no series shows its extras or whether it needs a password.
    pub fn new(status: Status) -> Published {
        Published::after(status, None)
    }

    /// [`Published::new`], sharing `prev`'s texts when they are the same: a server's name,
    /// map, game and version rarely change between polls, so most polls then allocate
    /// nothing here and free nothing (issue 23: one allocation and one free per poll).
    pub fn after(status: Status, prev: Option<&Published>) -> Published {
        let parts = [
            status.name.as_str(),
            status.map.as_deref().unwrap_or(""),
            status.game.as_deref().unwrap_or(""),
            status.version.as_deref().unwrap_or(""),
        ];
        let (text, ends) = match prev.filter(|p| p.texts_are(&parts)) {
            Some(p) => (p.text.clone(), p.ends),
            None => join(&parts),
        };
        Published {
            online: status.online,
            max: status.max,
            bots: status.bots,
            queued: status.queued,
            latency_ns: super::nanos(status.latency),
            text,
            ends,
            more: More::of(status.rules, status.health),
        }
    }

    /// Whether the four texts are `parts`, boundaries included.
    fn texts_are(&self, parts: &[&str; 4]) -> bool {
        parts.iter().enumerate().all(|(i, p)| self.part(i) == *p)
    }
}

/// The four texts one after another in one shared allocation, and where the first three end.
fn join(parts: &[&str; 4]) -> (Arc<str>, [u32; 3]) {
    let mut ends = [0u32; 3];
    // Joined in a buffer the thread keeps, so the Arc<str> is the poll's one allocation
    // here (a String built per poll and then copied into the Arc made two).
    let text = JOIN.with(|buf| {
        let mut text = buf.borrow_mut();
        text.clear();
        for (i, p) in parts.iter().enumerate() {
            text.push_str(p);
            if let Some(end) = ends.get_mut(i) {
                // Decoders cap every text far below 4 GiB; saturate rather than wrap.
                *end = u32::try_from(text.len()).unwrap_or(u32::MAX);
            }
        }
        let shared = Arc::<str>::from(text.as_str());
        if text.capacity() > JOIN_KEEP {
            *text = String::new();
        }
        shared
    });
    (text, ends)
}

impl Published {
    /// The configured rules the server gave, in config order (`None`: not fetched or not
    /// given).
    pub fn rules(&self) -> Option<&[(String, String)]> {
        self.more.as_ref().and_then(|m| m.rules.as_deref())
    }

    /// Server health, where the game reported any.
    pub fn health(&self) -> Option<&Health> {
        self.more.as_ref().and_then(|m| m.health.as_ref())
    }

    /// The capacity, `None` where the server reports none ([`Status::max`] 0).
    pub fn capacity(&self) -> Option<u32> {
        Some(self.max).filter(|&m| m > 0)
    }

    /// Round trip of the status exchange.
    pub fn latency(&self) -> Duration {
        Duration::from_nanos(self.latency_ns)
    }

    /// The `i`th text (0: name, 1: map, 2: game, 3: version).
    fn part(&self, i: usize) -> &str {
        let at = |k: usize| self.ends.get(k).map_or(self.text.len(), |e| *e as usize);
        let start = if i == 0 { 0 } else { at(i - 1) };
        self.text.get(start..at(i)).unwrap_or("")
    }

    /// Server name or plain-text MOTD.
    pub fn name(&self) -> &str {
        self.part(0)
    }

    pub fn map(&self) -> &str {
        self.part(1)
    }

    pub fn game(&self) -> &str {
        self.part(2)
    }

    pub fn version(&self) -> &str {
        self.part(3)
    }
}

impl More {
    fn of(rules: Option<Vec<(String, String)>>, health: Option<Box<Health>>) -> Option<Arc<More>> {
        let health = health.map(|h| *h).filter(|h| !h.is_empty());
        if rules.is_none() && health.is_none() {
            return None;
        }
        Some(Arc::new(More {
            rules: rules.map(Vec::into_boxed_slice),
            health,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every published field reads back as the status had it; absent texts read empty, and
    /// texts that are empty or multi-byte keep their boundaries.
    #[test]
    fn reads_back() {
        let status = Status {
            online: 3,
            max: 10,
            bots: Some(1),
            queued: None,
            name: "Zoë's ✓ server".into(),
            map: Some(String::new()),
            game: None,
            version: Some("1.2".into()),
            latency: Duration::from_micros(1234),
            rules: Some(vec![("a".into(), "1".into())]),
            ..Status::default()
        };
        let p = Published::new(status);
        assert_eq!(
            (p.online, p.max, p.bots, p.queued, p.latency()),
            (3, 10, Some(1), None, Duration::from_micros(1234))
        );
        assert_eq!(
            (p.name(), p.map(), p.game(), p.version()),
            ("Zoë's ✓ server", "", "", "1.2")
        );
        assert_eq!(p.rules(), Some(&[("a".into(), "1".into())][..]));
        assert_eq!(p.health(), None);
        let empty = Published::new(Status::default());
        assert_eq!(
            (empty.name(), empty.map(), empty.game(), empty.version()),
            ("", "", "", "")
        );
        assert_eq!(empty.rules(), None);
        // One allocation for the texts, shared by clones.
        let q = p.clone();
        assert!(Arc::ptr_eq(&p.text, &q.text));
    }

    /// A poll whose texts are the previous poll's shares its allocation; one whose texts
    /// differ (even only where one ends and the next begins) gets its own.
    #[test]
    fn unchanged_texts_are_shared() {
        let status = |name: &str, map: &str| Status {
            name: name.into(),
            map: Some(map.into()),
            online: 2,
            ..Status::default()
        };
        let first = Published::new(status("srv", "de_dust2"));
        let same = Published::after(status("srv", "de_dust2"), Some(&first));
        assert!(Arc::ptr_eq(&first.text, &same.text));
        assert_eq!(
            (same.name(), same.map(), same.online),
            ("srv", "de_dust2", 2)
        );
        let moved = Published::after(status("srvde", "_dust2"), Some(&first));
        assert!(!Arc::ptr_eq(&first.text, &moved.text));
        assert_eq!((moved.name(), moved.map()), ("srvde", "_dust2"));
        let changed = Published::after(status("srv", "cs_office"), Some(&first));
        assert_eq!((changed.name(), changed.map()), ("srv", "cs_office"));
    }
}
