//! The latest result of every configured target, shared between the poll tasks (writers)
//! and the renderer (reader).
//!
//! Writers hold the lock for one map update; the renderer takes a [`State::snapshot`], which
//! copies one pointer per target, and encodes outside the lock. Entries are copy-on-write: a
//! poll finishing while a scrape still holds the entry writes into a fresh copy, so the scrape
//! sees one consistent entry per target and costs 8 bytes per target rather than a copy of
//! every entry (16 MB at 100,000 targets). A task writes only while its own [`TargetMeta`] is
//! still the current one, so a poll that was in flight while a reload replaced its target
//! cannot leak into the new target's series.

use std::collections::BTreeMap;
use std::num::NonZeroU64;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::status::{Failure, Reason, Status};
use crate::sync::lock;
use crate::target::Target;
use roster::Roster;

/// A configured target as its task and the renderer share it, built once per config load.
#[derive(Debug)]
pub struct TargetMeta {
    /// The config's own copy, shared (see `config::Config::targets`).
    pub target: Arc<Target>,
}

impl TargetMeta {
    pub fn new(target: impl Into<Arc<Target>>) -> TargetMeta {
        TargetMeta {
            target: target.into(),
        }
    }
}

/// Two metas are the same when their targets are.
impl PartialEq for TargetMeta {
    fn eq(&self, other: &Self) -> bool {
        self.target == other.target
    }
}

/// A table key that is a target's name, read through its shared meta: the state's and the
/// scheduler's tables hold a pointer instead of their own copy of every name (at 100,000
/// targets two copies and their allocations were ~80 bytes per target). Compares, orders and
/// hashes exactly as the name does, so tables keyed by it are looked up with a `&str`.
#[derive(Debug, Clone)]
pub struct ByName(pub Arc<TargetMeta>);

impl ByName {
    pub fn name(&self) -> &str {
        &self.0.target.name
    }
}

impl std::borrow::Borrow<str> for ByName {
    fn borrow(&self) -> &str {
        self.name()
    }
}

impl PartialEq for ByName {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for ByName {}

impl PartialOrd for ByName {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ByName {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.name().cmp(other.name())
    }
}

impl std::hash::Hash for ByName {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name().hash(state)
    }
}

mod published;
pub mod roster;
pub use published::Published;

/// What the last poll of a target gave.
#[derive(Debug, Clone)]
pub enum Outcome {
    Up(Published),
    Down(Arc<Failure>),
}

/// Everything published about one target.
#[derive(Debug, Clone)]
pub struct Entry {
    pub meta: Arc<TargetMeta>,
    /// `None` until the first poll finishes.
    pub last: Option<Outcome>,
    pub queries: u64,
    /// Failures per reason, indexed like [`Reason::ALL`].
    pub failures: Failures,
    /// Unix nanoseconds of the last successful poll ([`Entry::last_success`]): 8 bytes where
    /// an `Option<SystemTime>` takes 16, which paid for the two fields at the end.
    last_success_ns: Option<NonZeroU64>,
    /// Wall time of the last poll, DNS and retries included, in nanoseconds ([`Entry::last_duration`]):
    /// a `Duration` is 16 bytes, and these 8 keep the entry in its allocation size class.
    last_duration_ns: u64,
    /// Players online times the seconds between consecutive successful polls.
    pub player_seconds: f64,
    /// Player lists, for targets with `players` on once a list came: most targets of a large
    /// fleet have it off, and inline these fields took the entry's allocation up a size class
    /// (shared, so a scrape's snapshot clones a pointer).
    pub listing: Option<Arc<Listing>>,
    /// Polls failed in a row: 0 after a success (and before the first poll). What a restart
    /// script asks instead of `gameserver_up`, which one lost reply turns to 0. 4 billion
    /// failures are 2,000 years at the shortest interval.
    pub consecutive_failures: u32,
    /// Whole Unix seconds of the last successful poll that saw a player online; until one
    /// has, of the first successful poll (see [`Entry::last_player_seen`]). 0: no success yet.
    /// Seconds in a `u32` last until 2106 and keep the entry at 144 bytes.
    last_player_seen_s: u32,
}

/// A target's player lists: the last one and the joins and leaves between consecutive ones.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    /// The last player list seen: what the next list is compared with. It outlives polls
    /// that got no list.
    pub roster: Arc<Roster>,
    /// Whether the last poll gave [`Listing::roster`]: only then are its series published.
    pub fresh: bool,
    /// Players that joined and left between consecutive lists.
    pub joins: u64,
    pub leaves: u64,
}

impl Entry {
    pub fn new(meta: Arc<TargetMeta>) -> Entry {
        Entry {
            meta,
            last: None,
            queries: 0,
            failures: Failures::default(),
            last_success_ns: None,
            last_duration_ns: 0,
            player_seconds: 0.0,
            listing: None,
            consecutive_failures: 0,
            last_player_seen_s: 0,
        }
    }

    /// Folds one poll result in.
    pub fn record(&mut self, result: Result<Status, Failure>, took: Duration, now: SystemTime) {
        self.queries += 1;
        self.last_duration_ns = nanos(took);
        if let Some(l) = self.listing.as_mut().filter(|l| l.fresh) {
            Arc::make_mut(l).fresh = false;
        }
        self.last = Some(match result {
            Ok(mut status) => {
                // Only a success right after a success counts: a down server adds nothing,
                // and neither does the gap across a failure.
                if let (Some(Outcome::Up(_)), Some(prev)) = (&self.last, self.last_success()) {
                    let secs = now.duration_since(prev).map_or(0.0, |d| d.as_secs_f64());
                    self.player_seconds += f64::from(status.online) * secs;
                }
                self.last_success_ns = Some(unix_nanos(now));
                self.consecutive_failures = 0;
                // The first success seeds the clock: "no player seen since we first saw the
                // server up" is what makes `time() - x > 1800` mean "empty for 30 minutes"
                // without firing the moment a new or restarted exporter sees an empty server.
                if status.online > 0 || self.last_player_seen_s == 0 {
                    self.last_player_seen_s = unix_secs(now);
                }
                self.take_lists(&mut status);
                let prev = match &self.last {
                    Some(Outcome::Up(p)) => Some(p),
                    _ => None,
                };
                Outcome::Up(Published::after(status, prev))
            }
            Err(failure) => {
                self.failures.add(failure.reason);
                self.consecutive_failures = self.consecutive_failures.saturating_add(1);
                Outcome::Down(Arc::new(failure))
            }
        });
    }
}

impl Entry {
    /// Wall time of the last poll, DNS and retries included.
    pub fn last_duration(&self) -> Duration {
        Duration::from_nanos(self.last_duration_ns)
    }

    /// Time of the last successful poll, kept across failures; `None` until one.
    pub fn last_success(&self) -> Option<SystemTime> {
        self.last_success_ns
            .map(|n| SystemTime::UNIX_EPOCH + Duration::from_nanos(n.get()))
    }

    /// Time (whole seconds) of the last successful poll that saw at least one player online,
    /// or of the first successful poll while none has; kept across failures, `None` until
    /// the first success. A reload that leaves the target unchanged keeps it (the entry is
    /// kept); a changed target starts again from its next success.
    pub fn last_player_seen(&self) -> Option<SystemTime> {
        (self.last_player_seen_s > 0)
            .then(|| SystemTime::UNIX_EPOCH + Duration::from_secs(self.last_player_seen_s.into()))
    }
}

/// `t` in Unix nanoseconds, never 0 (a clock before 1970 reads as the epoch's first
/// nanosecond), saturating in 2554.
fn unix_nanos(t: SystemTime) -> NonZeroU64 {
    let n = t.duration_since(SystemTime::UNIX_EPOCH).map_or(0, nanos);
    NonZeroU64::new(n).unwrap_or(NonZeroU64::MIN)
}

/// `t` in whole Unix seconds, at least 1 (0 means "not yet"), saturating in 2106.
fn unix_secs(t: SystemTime) -> u32 {
    let s = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    u32::try_from(s).unwrap_or(u32::MAX).max(1)
}

/// `d` in whole nanoseconds, saturating (585 years).
pub(crate) fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// Failure counters per reason, indexed like [`Reason::ALL`]; allocated at a target's first
/// failure. Most targets of a large fleet never fail, and nine counters inline were 72 of an
/// entry's 176 bytes (the entry is 112 bytes now, 7 MB less at 100,000 targets).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Failures(Option<Box<[u64; Reason::ALL.len()]>>);

impl Failures {
    pub fn add(&mut self, reason: Reason) {
        if let Some(i) = Reason::ALL.iter().position(|r| *r == reason) {
            self.0.get_or_insert_with(Default::default)[i] += 1;
        }
    }

    /// Every counter, zeros included.
    pub fn counts(&self) -> [u64; Reason::ALL.len()] {
        self.0.as_deref().copied().unwrap_or_default()
    }
}

impl std::ops::Index<usize> for Failures {
    type Output = u64;
    fn index(&self, i: usize) -> &u64 {
        self.0.as_deref().map_or(&0, |c| &c[i])
    }
}

impl Entry {
    /// Moves the player list into a [`Roster`] (counting joins and leaves against the last
    /// one) and keeps only the configured rules, for targets that publish them. Targets with
    /// both off get no list from the dialogue and cost nothing here.
    fn take_lists(&mut self, status: &mut Status) {
        let target = &self.meta.target;
        if let (Some(cap), Some(players)) = (target.players, status.players.take()) {
            let roster = Arc::new(Roster::new(players, cap));
            match &mut self.listing {
                Some(l) => {
                    let l = Arc::make_mut(l);
                    let (joins, leaves) = roster::diff(&l.roster.names, &roster.names);
                    l.joins += joins;
                    l.leaves += leaves;
                    l.roster = roster;
                    l.fresh = true;
                }
                None => {
                    self.listing = Some(Arc::new(Listing {
                        roster,
                        fresh: true,
                        joins: 0,
                        leaves: 0,
                    }))
                }
            }
        }
        if let Some(rules) = status.rules.take() {
            status.rules = Some(pick_rules(&target.rules, rules));
        }
    }
}

/// The configured rules found in `rules`, in config order, each once (a server repeating a
/// name must not make two series), the value cut to [`MAX_RULE_VALUE_CHARS`].
fn pick_rules(wanted: &[String], rules: Vec<(String, String)>) -> Vec<(String, String)> {
    let mut picked = Vec::with_capacity(wanted.len().min(rules.len()));
    for name in wanted {
        if let Some((k, v)) = rules.iter().find(|(k, _)| k == name) {
            let cut = v
                .char_indices()
                .nth(MAX_RULE_VALUE_CHARS)
                .map_or(v.len(), |(i, _)| i);
            picked.push((k.clone(), v[..cut].to_string()));
        }
    }
    picked
}

/// Characters a rule value keeps.
pub const MAX_RULE_VALUE_CHARS: usize = 128;

/// Facts about the configuration itself, published as exporter self-metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReloadInfo {
    pub successful: bool,
    pub last_success: SystemTime,
}

/// One target's entry as its polls write it: the target's schedule record holds this handle,
/// so a poll result goes straight to its own entry under its own lock, with no lookup by name
/// and no contention with the other targets' polls (at 10,000 targets the shared table's lock and its
/// string compares were a measurable share of each poll).
///
/// When a reload replaces or removes the target, the table drops its handle; a poll still in
/// flight then writes into an entry nobody publishes, so it cannot leak into the new series.
///
/// The entry inside is shared with any snapshot still holding it: a write then copies it
/// first ([`Arc::make_mut`]), which happens only for the polls that finish during a scrape.
#[derive(Debug, Clone)]
pub struct Recorder(Arc<Mutex<Arc<Entry>>>);

impl Recorder {
    fn new(entry: Entry) -> Recorder {
        Recorder(Arc::new(Mutex::new(Arc::new(entry))))
    }

    pub fn record(&self, result: Result<Status, Failure>, took: Duration, now: SystemTime) {
        Arc::make_mut(&mut lock(&self.0)).record(result, took, now);
    }

    fn entry(&self) -> Arc<Entry> {
        lock(&self.0).clone()
    }

    /// Whether the table still publishes this entry: it holds the other handle of every
    /// target it publishes, and lets go when a reload removes or replaces the target. The
    /// scheduler asks before each poll and before writing one back, so a removed target's
    /// record stops. Advisory in one direction only: a snapshot copying the handles may hold
    /// one for an instant after the removal, and a write then lands in an entry nobody
    /// publishes.
    pub fn is_published(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }
}

/// The shared table of targets, sorted by name so the exposition order is stable.
#[derive(Debug)]
pub struct State {
    targets: Mutex<BTreeMap<ByName, Recorder>>,
    reload: Mutex<ReloadInfo>,
    ready: AtomicBool,
}

impl Default for State {
    fn default() -> Self {
        State {
            targets: Mutex::new(BTreeMap::new()),
            reload: Mutex::new(ReloadInfo {
                successful: true,
                last_success: SystemTime::now(),
            }),
            ready: AtomicBool::new(false),
        }
    }
}

impl State {
    /// Starts publishing `meta` with a fresh entry, replacing any previous one of that name;
    /// the handle is for the target's schedule record.
    pub fn insert(&self, meta: Arc<TargetMeta>) -> Recorder {
        let recorder = Recorder::new(Entry::new(meta.clone()));
        let mut targets = lock(&self.targets);
        // Removed first: `insert` would keep the old key, and with it the replaced meta.
        targets.remove(meta.target.name.as_str());
        targets.insert(ByName(meta), recorder.clone());
        recorder
    }

    /// Stops publishing a target: all its series disappear.
    pub fn remove(&self, name: &str) {
        lock(&self.targets).remove(name);
    }

    /// Records a poll of `meta`, unless a reload has replaced or removed it meanwhile. Target
    /// tasks write through their [`Recorder`] instead.
    pub fn record(
        &self,
        meta: &Arc<TargetMeta>,
        result: Result<Status, Failure>,
        took: Duration,
        now: SystemTime,
    ) {
        let recorder = lock(&self.targets).get(meta.target.name.as_str()).cloned();
        if let Some(r) = recorder {
            let mut e = lock(&r.0);
            if Arc::ptr_eq(&e.meta, meta) {
                Arc::make_mut(&mut e).record(result, took, now);
            }
        }
    }

    /// Every entry as it is now, one shared pointer each (see [`Recorder`]). The table lock
    /// is held only to copy the handles, so scrapes do not stall the pollers.
    pub fn snapshot(&self) -> Vec<Arc<Entry>> {
        let handles: Vec<Recorder> = lock(&self.targets).values().cloned().collect();
        handles.iter().map(Recorder::entry).collect()
    }

    /// The entry of one target, if configured.
    pub fn get(&self, name: &str) -> Option<Arc<Entry>> {
        let recorder = lock(&self.targets).get(name).cloned();
        recorder.map(|r| r.entry())
    }

    pub fn set_reload(&self, successful: bool, now: SystemTime) {
        let mut r = lock(&self.reload);
        r.successful = successful;
        if successful {
            r.last_success = now;
        }
    }

    pub fn reload_info(&self) -> ReloadInfo {
        *lock(&self.reload)
    }

    /// True once every target has finished at least one poll. Latched: targets added by a
    /// later reload do not make a running exporter unready (that would pull it out of a load
    /// balancer for a config change).
    pub fn ready(&self) -> bool {
        if self.ready.load(Ordering::Relaxed) {
            return true;
        }
        let all = lock(&self.targets)
            .values()
            .all(|r| lock(&r.0).last.is_some());
        if all {
            self.ready.store(true, Ordering::Relaxed);
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::target::{Address, Protocol};

    fn target(name: &str) -> Target {
        Target {
            labels: BTreeMap::from([("region".to_string(), "e\"u".to_string())]),
            ..Target::new(name, Protocol::A2s, Address::parse("127.0.0.1:1").unwrap())
        }
    }

    /// Success and failure update counters, the last outcome and the success time.
    #[test]
    fn record_counts() {
        let s = State::default();
        let meta = Arc::new(TargetMeta::new(target("a")));
        s.insert(meta.clone());
        assert!(!s.ready());
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(100);
        s.record(&meta, Ok(Status::default()), Duration::from_millis(5), t0);
        let later = t0 + Duration::from_secs(10);
        let fail = Failure::new(Reason::Timeout, "x");
        s.record(&meta, Err(fail), Duration::from_secs(5), later);
        let e = s.get("a").unwrap();
        assert_eq!(e.queries, 2);
        assert_eq!(e.failures[0], 1);
        assert_eq!(e.last_success(), Some(t0));
        assert_eq!(e.last_duration(), Duration::from_secs(5));
        assert!(matches!(e.last, Some(Outcome::Down(_))));
        assert!(s.ready());
    }

    /// Failure counters cost nothing until the first failure, then count per reason.
    #[test]
    fn failures_allocated_on_first() {
        let mut f = Failures::default();
        assert_eq!(f, Failures(None));
        assert_eq!(f.counts(), [0; Reason::ALL.len()]);
        assert_eq!(f[3], 0);
        f.add(Reason::Refused);
        f.add(Reason::Refused);
        f.add(Reason::Incomplete);
        assert_eq!(Reason::ALL[8], Reason::Incomplete);
        let mut want = [0; Reason::ALL.len()];
        want[1] = 2;
        want[8] = 1;
        assert_eq!(f.counts(), want);
        assert_eq!(f[1], 2);
        // Inline: the counters' pointer (8 bytes, not 72), the player lists' pointer, the
        // published result (no separate Status allocation) and the failure streak and last
        // player seen (paid for by the success time in 8 bytes): 144 bytes on 64-bit
        // targets, so the Arc<Entry> fits a 160-byte size class and, with the recorder's
        // 32-byte Arc<Mutex<..>>, a target's entry costs what one 192-byte block did.
        assert!(
            std::mem::size_of::<Entry>() <= 144,
            "{}",
            std::mem::size_of::<Entry>()
        );
    }

    /// The table is keyed by the meta itself: replacing a target releases the old meta
    /// (the key is replaced too, not only the value), and lookups by name still work.
    #[test]
    fn replaced_meta_is_released() {
        let s = State::default();
        let old = Arc::new(TargetMeta::new(target("a")));
        s.insert(old.clone());
        s.insert(Arc::new(TargetMeta::new(target("b"))));
        assert_eq!(Arc::strong_count(&old), 3, "key and entry hold it");
        let new = Arc::new(TargetMeta::new(target("a")));
        s.insert(new.clone());
        assert_eq!(Arc::strong_count(&old), 1);
        assert_eq!(Arc::strong_count(&new), 3);
        assert!(Arc::ptr_eq(&s.get("a").unwrap().meta, &new));
        let names: Vec<String> = s
            .snapshot()
            .iter()
            .map(|e| e.meta.target.name.clone())
            .collect();
        assert_eq!(names, ["a", "b"]);
    }

    /// A snapshot keeps the entries it saw while polls go on: a write copies an entry a
    /// snapshot holds, and writes in place when nothing else does.
    #[test]
    fn snapshot_is_copy_on_write() {
        let s = State::default();
        let meta = Arc::new(TargetMeta::new(target("a")));
        let recorder = s.insert(meta);
        let now = SystemTime::now();
        let held = s.snapshot();
        recorder.record(online(3), Duration::ZERO, now);
        assert_eq!(held[0].queries, 0);
        assert!(held[0].last.is_none());
        let fresh = s.get("a").unwrap();
        assert_eq!(fresh.queries, 1);
        assert!(!Arc::ptr_eq(&held[0], &fresh));
        drop((held, fresh));
        let before = Arc::as_ptr(&s.get("a").unwrap());
        recorder.record(online(4), Duration::ZERO, now);
        let after = s.get("a").unwrap();
        assert_eq!(
            Arc::as_ptr(&after),
            before,
            "copied with no snapshot around"
        );
        assert_eq!(after.queries, 2);
    }

    /// A poll finishing after its target was replaced by a reload is dropped.
    #[test]
    fn stale_writer_ignored() {
        let s = State::default();
        let old = Arc::new(TargetMeta::new(target("a")));
        s.insert(old.clone());
        s.insert(Arc::new(TargetMeta::new(target("a"))));
        s.record(
            &old,
            Ok(Status::default()),
            Duration::ZERO,
            SystemTime::now(),
        );
        assert_eq!(s.get("a").unwrap().queries, 0);
        s.remove("a");
        s.record(
            &old,
            Ok(Status::default()),
            Duration::ZERO,
            SystemTime::now(),
        );
        assert!(s.snapshot().is_empty());
    }

    fn online(n: u32) -> Result<Status, Failure> {
        Ok(Status {
            online: n,
            ..Status::default()
        })
    }

    /// Player-seconds add online x seconds between consecutive successes only: the first
    /// success, a failure and the success after it add nothing.
    #[test]
    fn player_seconds() {
        let mut e = Entry::new(Arc::new(TargetMeta::new(target("a"))));
        let t = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        e.record(online(5), Duration::ZERO, t(100));
        assert_eq!(e.player_seconds, 0.0);
        e.record(online(4), Duration::ZERO, t(115));
        assert_eq!(e.player_seconds, 60.0);
        e.record(
            Err(Failure::new(Reason::Timeout, "x")),
            Duration::ZERO,
            t(130),
        );
        e.record(online(10), Duration::ZERO, t(145));
        assert_eq!(e.player_seconds, 60.0);
        e.record(online(2), Duration::from_millis(1), t(160));
        assert_eq!(e.player_seconds, 90.0);
        // A clock stepping back adds nothing rather than subtracting.
        e.record(online(2), Duration::ZERO, t(150));
        assert_eq!(e.player_seconds, 90.0);
    }

    /// The failure streak counts failed polls in a row, any reason, and a success resets
    /// it; it saturates rather than wraps.
    #[test]
    fn consecutive_failures() {
        let mut e = Entry::new(Arc::new(TargetMeta::new(target("a"))));
        let t = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let fail = |r| Err(Failure::new(r, "x"));
        assert_eq!(e.consecutive_failures, 0);
        e.record(fail(Reason::Timeout), Duration::ZERO, t(100));
        e.record(fail(Reason::Refused), Duration::ZERO, t(115));
        assert_eq!(e.consecutive_failures, 2, "counted before any success");
        e.record(online(0), Duration::ZERO, t(130));
        assert_eq!(e.consecutive_failures, 0);
        for i in 0..3 {
            e.record(fail(Reason::Timeout), Duration::ZERO, t(145 + i));
        }
        assert_eq!(e.consecutive_failures, 3);
        assert_eq!(e.queries, 6);
        e.record(online(2), Duration::ZERO, t(200));
        assert_eq!(e.consecutive_failures, 0);
        e.consecutive_failures = u32::MAX;
        e.record(fail(Reason::Timeout), Duration::ZERO, t(215));
        assert_eq!(e.consecutive_failures, u32::MAX);
    }

    /// Last player seen: nothing until the first success, which seeds it even when empty;
    /// then only a success with players online moves it; failures never do.
    #[test]
    fn last_player_seen() {
        let mut e = Entry::new(Arc::new(TargetMeta::new(target("a"))));
        let t = |s: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(s);
        let fail = || Err(Failure::new(Reason::Timeout, "x"));
        e.record(fail(), Duration::ZERO, t(1_000));
        assert_eq!(e.last_player_seen(), None, "no success yet");
        e.record(online(0), Duration::ZERO, t(1_015));
        assert_eq!(
            e.last_player_seen(),
            Some(t(1_015)),
            "seeded by the first success"
        );
        e.record(online(0), Duration::ZERO, t(1_030));
        assert_eq!(e.last_player_seen(), Some(t(1_015)), "empty: unchanged");
        e.record(online(3), Duration::ZERO, t(1_045));
        assert_eq!(e.last_player_seen(), Some(t(1_045)));
        e.record(fail(), Duration::ZERO, t(1_060));
        assert_eq!(
            e.last_player_seen(),
            Some(t(1_045)),
            "kept across a failure"
        );
        e.record(online(0), Duration::ZERO, t(1_075));
        e.record(online(1), Duration::from_millis(1), t(1_090));
        assert_eq!(e.last_player_seen(), Some(t(1_090)));
        // Whole seconds: the fraction of the poll's time is dropped.
        e.record(
            online(1),
            Duration::ZERO,
            t(1_105) + Duration::from_millis(900),
        );
        assert_eq!(e.last_player_seen(), Some(t(1_105)));
        // The last success keeps its nanoseconds.
        assert_eq!(
            e.last_success(),
            Some(t(1_105) + Duration::from_millis(900))
        );
    }

    /// A first success while the clock reads before 1970 still counts as seen (0 would mean
    /// "never"), and the success time stays present.
    #[test]
    fn clock_before_epoch() {
        let mut e = Entry::new(Arc::new(TargetMeta::new(target("a"))));
        let before = SystemTime::UNIX_EPOCH - Duration::from_secs(5);
        e.record(online(0), Duration::ZERO, before);
        assert_eq!(
            e.last_player_seen(),
            Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1))
        );
        assert_eq!(
            e.last_success(),
            Some(SystemTime::UNIX_EPOCH + Duration::from_nanos(1))
        );
    }

    /// Lists become rosters with joins and leaves only for targets with `players` on; a poll
    /// without a list publishes none and is skipped by the next comparison; only configured
    /// rules are kept, once each.
    #[test]
    fn lists() {
        let players = |names: &[&str]| {
            Ok(Status {
                players: Some(
                    names
                        .iter()
                        .map(|n| crate::status::Player {
                            name: n.to_string(),
                            ..Default::default()
                        })
                        .collect(),
                ),
                rules: Some(vec![
                    ("b".into(), "1".into()),
                    ("x".into(), "2".into()),
                    ("b".into(), "3".into()),
                    ("a".into(), "é".repeat(200)),
                ]),
                ..Status::default()
            })
        };
        let now = SystemTime::now();
        let mut off = Entry::new(Arc::new(TargetMeta::new(target("off"))));
        off.record(players(&["p"]), Duration::ZERO, now);
        assert!(off.listing.is_none());
        let on = Target {
            players: Some(crate::target::PlayerSeries::default()),
            rules: vec!["a".into(), "b".into()].into(),
            ..target("on")
        };
        let mut e = Entry::new(Arc::new(TargetMeta::new(on)));
        e.record(players(&["p", "q"]), Duration::ZERO, now);
        let l = e.listing.clone().unwrap();
        assert!(l.fresh);
        assert_eq!((l.joins, l.leaves), (0, 0));
        let Some(Outcome::Up(s)) = &e.last else {
            panic!("up")
        };
        let rules = s.rules().unwrap();
        assert_eq!(rules.len(), 2);
        assert_eq!(rules[0].1.chars().count(), MAX_RULE_VALUE_CHARS);
        assert_eq!(rules[1], ("b".to_string(), "1".to_string()));
        e.record(online(0), Duration::ZERO, now);
        assert!(!e.listing.as_ref().unwrap().fresh);
        // A snapshot taken earlier keeps what it saw.
        assert!(l.fresh);
        e.record(players(&["q", "r", "s"]), Duration::ZERO, now);
        let l = e.listing.as_ref().unwrap();
        assert_eq!((l.joins, l.leaves), (2, 1));
    }
}
