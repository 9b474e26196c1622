//! The latest result of every configured target, shared between the target tasks (writers)
//! and the renderer (reader).
//!
//! Writers hold the lock for one map update; the renderer takes a [`State::snapshot`], which
//! copies reference-counted pointers only, and encodes outside the lock. A task writes only
//! while its own [`TargetMeta`] is still the current one, so a poll that was in flight while a
//! reload replaced its target cannot leak into the new target's series.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use crate::status::{Failure, Reason, Status};
use crate::sync::lock;
use crate::target::Target;

/// A configured target as its task and the renderer share it, built once per config load.
#[derive(Debug)]
pub struct TargetMeta {
    pub target: Target,
    /// A cache slot owned by the metrics renderer: the target's label set, encoded at its
    /// first render so a scrape does not re-escape 10,000 label sets. State never reads it.
    pub labels: OnceLock<String>,
}

impl TargetMeta {
    pub fn new(target: Target) -> TargetMeta {
        TargetMeta {
            target,
            labels: OnceLock::new(),
        }
    }
}

/// Two metas are the same when their targets are: the label cache follows from the target.
impl PartialEq for TargetMeta {
    fn eq(&self, other: &Self) -> bool {
        self.target == other.target
    }
}

/// What the last poll of a target gave.
#[derive(Debug, Clone)]
pub enum Outcome {
    Up(Arc<Status>),
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
    pub failures: [u64; Reason::ALL.len()],
    pub last_success: Option<SystemTime>,
    /// Wall time of the last poll, DNS and retries included.
    pub last_duration: Duration,
}

impl Entry {
    pub fn new(meta: Arc<TargetMeta>) -> Entry {
        Entry {
            meta,
            last: None,
            queries: 0,
            failures: [0; Reason::ALL.len()],
            last_success: None,
            last_duration: Duration::ZERO,
        }
    }

    /// Folds one poll result in.
    pub fn record(&mut self, result: Result<Status, Failure>, took: Duration, now: SystemTime) {
        self.queries += 1;
        self.last_duration = took;
        self.last = Some(match result {
            Ok(status) => {
                self.last_success = Some(now);
                Outcome::Up(Arc::new(status))
            }
            Err(failure) => {
                if let Some(i) = Reason::ALL.iter().position(|r| *r == failure.reason) {
                    self.failures[i] += 1;
                }
                Outcome::Down(Arc::new(failure))
            }
        });
    }
}

/// Facts about the configuration itself, published as exporter self-metrics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReloadInfo {
    pub successful: bool,
    pub last_success: SystemTime,
}

/// One target's entry as its task writes it: the task holds this handle, so a poll result
/// goes straight to its own entry under its own lock, with no lookup by name and no
/// contention with the other targets' tasks (at 10,000 targets the shared table's lock and its
/// string compares were a measurable share of each poll).
///
/// When a reload replaces or removes the target, the table drops its handle; a poll still in
/// flight then writes into an entry nobody publishes, so it cannot leak into the new series.
#[derive(Debug, Clone)]
pub struct Recorder(Arc<Mutex<Entry>>);

impl Recorder {
    pub fn record(&self, result: Result<Status, Failure>, took: Duration, now: SystemTime) {
        lock(&self.0).record(result, took, now);
    }

    fn entry(&self) -> Entry {
        lock(&self.0).clone()
    }
}

/// The shared table of targets, sorted by name so the exposition order is stable.
#[derive(Debug)]
pub struct State {
    targets: Mutex<BTreeMap<String, Recorder>>,
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
    /// the handle is for the target's task.
    pub fn insert(&self, meta: Arc<TargetMeta>) -> Recorder {
        let name = meta.target.name.clone();
        let recorder = Recorder(Arc::new(Mutex::new(Entry::new(meta))));
        lock(&self.targets).insert(name, recorder.clone());
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
        let recorder = lock(&self.targets).get(&meta.target.name).cloned();
        if let Some(r) = recorder {
            let mut e = lock(&r.0);
            if Arc::ptr_eq(&e.meta, meta) {
                e.record(result, took, now);
            }
        }
    }

    /// A copy of every entry, cheap: statuses and failures are shared, not cloned. The table
    /// lock is held only to copy the handles, so scrapes do not stall the pollers.
    pub fn snapshot(&self) -> Vec<Entry> {
        let handles: Vec<Recorder> = lock(&self.targets).values().cloned().collect();
        handles.iter().map(Recorder::entry).collect()
    }

    /// The entry of one target, if configured.
    pub fn get(&self, name: &str) -> Option<Entry> {
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
        assert_eq!(e.last_success, Some(t0));
        assert_eq!(e.last_duration, Duration::from_secs(5));
        assert!(matches!(e.last, Some(Outcome::Down(_))));
        assert!(s.ready());
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
}
