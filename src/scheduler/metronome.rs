//! One timer for all the targets of a slot.
//!
//! What waits here is not a task but an item (the scheduler's idle target: its schedule
//! record), parked under the instant it is due at. A single driver task sleeps until the
//! earliest instant and hands that instant's items to its `fire` callback together (the
//! scheduler spawns one poll task per item). With 10,000 targets, per-target timers kept
//! 10,000 entries cascading through tokio's timer wheel, a measurable share of each poll;
//! here the wheel holds one (and the keeper, below).
//!
//! Why items, not wakers of sleeping tasks: a sleeping task per target cost a 256-byte tokio
//! task cell for its whole life (24 MiB at 100,000 targets), though a target polls a
//! fraction of a percent of the time; a parked item costs its own size in its instant's
//! list (benches/RESULTS.md, "one task per poll").

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::sync::lock;

#[derive(Debug)]
struct Shared<T> {
    due: Mutex<Due<T>>,
    /// Tells the driver that an instant earlier than the one it sleeps for was added.
    rearm: Notify,
    /// [`Due::stopped`], read without the lock (every poll asks).
    stopped: AtomicBool,
}

#[derive(Debug)]
struct Due<T> {
    /// Instants items wait for, each with its items. The driver removes an instant's entry
    /// when it fires, before handing the items over.
    at: BTreeMap<Instant, Vec<T>>,
    /// Set by [`Metronome::stop`]: nothing is parked any more.
    stopped: bool,
    /// The capacity a new instant's list starts with: the size of the last list fired.
    /// Items fired together mostly come back together one interval later, so the list is
    /// sized once instead of doubling its way there (and keeping up to half of it unused:
    /// 3 MiB at 100,000 targets).
    hint: usize,
}

/// Shared wake-ups for parked items; dropping it stops the driver and drops what waits.
#[derive(Debug)]
pub struct Metronome<T> {
    shared: Arc<Shared<T>>,
    driver: JoinHandle<()>,
}

impl<T: Send + 'static> Metronome<T> {
    /// Starts the driver on `runtime`; it calls `fire` on `runtime` with each instant that
    /// has passed and that instant's items (taken out of the vector), earliest first.
    pub fn start<F>(runtime: &Handle, fire: F) -> Metronome<T>
    where
        F: FnMut(Instant, &mut Vec<T>) + Send + 'static,
    {
        let shared = Arc::new(Shared {
            due: Mutex::new(Due {
                at: BTreeMap::new(),
                stopped: false,
                hint: 0,
            }),
            rearm: Notify::new(),
            stopped: AtomicBool::new(false),
        });
        let driver = runtime.spawn(drive(shared.clone(), fire));
        Metronome { shared, driver }
    }
}

impl<T> Metronome<T> {
    /// Parks `item` until `at` (the driver's next turn if it has passed). Once stopped, the
    /// item is dropped at once.
    pub fn park(&self, at: Instant, item: T) {
        let mut due = lock(&self.shared.due);
        if due.stopped {
            return;
        }
        let earliest = due.at.keys().next().is_none_or(|first| at < *first);
        let hint = due.hint;
        due.at
            .entry(at)
            .or_insert_with(|| Vec::with_capacity(hint))
            .push(item);
        drop(due);
        if earliest {
            self.shared.rearm.notify_one();
        }
    }

    /// Makes room for `n` more items at each instant (a scheduler about to park a whole
    /// config's first polls knows how many fall on each).
    pub fn reserve(&self, counts: impl IntoIterator<Item = (Instant, usize)>) {
        let mut due = lock(&self.shared.due);
        if due.stopped {
            return;
        }
        let first = due.at.keys().next().copied();
        for (at, n) in counts {
            due.at.entry(at).or_default().reserve_exact(n);
        }
        // A new earliest instant: the driver must wake for it (parking there will not tell
        // it, the instant being there already).
        let earliest = due.at.keys().next().copied() != first;
        drop(due);
        if earliest {
            self.shared.rearm.notify_one();
        }
    }

    /// Drops every parked item `keep` refuses (a reload's removed and changed targets), at
    /// once rather than when their instants come.
    pub fn retain(&self, mut keep: impl FnMut(&T) -> bool) {
        let mut gone = Vec::new();
        {
            let mut due = lock(&self.shared.due);
            due.at.retain(|_, items| {
                let mut i = 0;
                while i < items.len() {
                    if keep(&items[i]) {
                        i += 1;
                    } else {
                        gone.push(items.swap_remove(i));
                    }
                }
                !items.is_empty()
            });
        }
        // Dropped outside the lock: an item may own a good deal (its target's state).
        drop(gone);
    }

    /// Drops everything parked and refuses what comes later: a poll in flight when the
    /// scheduler stops is not parked again.
    pub fn stop(&self) {
        let parked = {
            let mut due = lock(&self.shared.due);
            due.stopped = true;
            self.shared.stopped.store(true, Ordering::Relaxed);
            std::mem::take(&mut due.at)
        };
        self.driver.abort();
        drop(parked);
    }

    /// Whether [`Metronome::stop`] was called.
    pub fn is_stopped(&self) -> bool {
        self.shared.stopped.load(Ordering::Relaxed)
    }

    /// How many items are parked (tests, and what a bench may print).
    pub fn parked(&self) -> usize {
        lock(&self.shared.due).at.values().map(Vec::len).sum()
    }
}

impl<T> Drop for Metronome<T> {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// How far ahead the keeper timer waits when there is no second instant to hold.
const KEEPER_IDLE: Duration = Duration::from_secs(3600);

async fn drive<T, F>(shared: Arc<Shared<T>>, mut fire: F)
where
    F: FnMut(Instant, &mut Vec<T>),
{
    {
        let mut fired: Vec<(Instant, Vec<T>)> = Vec::new();
        // A second timer, on the instant after the next one, that never fires before the
        // main one (it is only re-aimed). Why: when tokio's timer driver fires an entry it
        // notes the wheel's next expiration, and registering any timer earlier than that (or
        // with the wheel empty) makes it write its eventfd to wake itself. Without the keeper
        // the wheel is empty right after an instant fires (its polls have not started yet),
        // so every poll's deadline and resend timer cost one eventfd write: 1.3 system calls
        // per poll, more than the sends and receives themselves once those are batched (load
        // bench, strace). With it, the next instant is the wheel's next expiration and the
        // polls' timers, all later, register silently.
        let keeper = tokio::time::sleep_until(Instant::now() + KEEPER_IDLE);
        tokio::pin!(keeper);
        loop {
            let now = Instant::now();
            let (next, second) = {
                let mut due = lock(&shared.due);
                while let Some(entry) = due.at.first_entry() {
                    if *entry.key() > now {
                        break;
                    }
                    let at = *entry.key();
                    let items = entry.remove();
                    if !items.is_empty() {
                        due.hint = items.len();
                    }
                    fired.push((at, items));
                }
                let mut keys = due.at.keys();
                (keys.next().copied(), keys.next().copied())
            };
            if let Some(second) = second {
                if keeper.deadline() != second {
                    keeper.as_mut().reset(second);
                }
            }
            for (at, mut items) in fired.drain(..) {
                fire(at, &mut items);
            }
            match next {
                Some(at) => {
                    tokio::select! {
                        _ = tokio::time::sleep_until(at) => {}
                        _ = shared.rearm.notified() => {}
                        // Only fires when the instants it was aimed at went away: look again.
                        _ = keeper.as_mut(), if !keeper.is_elapsed() => {}
                    }
                }
                None => shared.rearm.notified().await,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    type Log = Arc<Mutex<Vec<(usize, Duration)>>>;

    fn logging(t0: Instant) -> (Metronome<usize>, Log) {
        let log: Log = Arc::default();
        let into = log.clone();
        let m = Metronome::start(&Handle::current(), move |at, items: &mut Vec<usize>| {
            assert!(at <= Instant::now());
            let mut log = into.lock().unwrap();
            for i in items.drain(..) {
                log.push((i, Instant::now() - t0));
            }
        });
        (m, log)
    }

    /// Items fire at their instant, in order, including ones parked while the driver sleeps
    /// for a later instant; an instant in the past fires on the driver's next turn.
    #[tokio::test(start_paused = true)]
    async fn fires_each_item_at_its_instant() {
        let t0 = Instant::now();
        let (m, log) = logging(t0);
        let when = [300u64, 100, 100, 200];
        for (i, ms) in when.into_iter().enumerate() {
            m.park(t0 + Duration::from_millis(ms), i);
            // Later items arrive while the driver already sleeps for an earlier one.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        tokio::time::sleep(Duration::from_millis(400)).await;
        let fired = log.lock().unwrap().clone();
        let order: Vec<usize> = fired.iter().map(|w| w.0).collect();
        assert!(order == [1, 2, 3, 0] || order == [2, 1, 3, 0], "{fired:?}");
        for (i, at) in fired {
            let want = Duration::from_millis(when[i]);
            assert!(
                at >= want && at < want + Duration::from_millis(2),
                "{i}: {at:?}"
            );
        }
        assert_eq!(m.parked(), 0);
        m.park(t0, 9);
        tokio::time::sleep(Duration::from_millis(1)).await;
        assert_eq!(log.lock().unwrap().last().map(|l| l.0), Some(9));
    }

    /// An instant made room for before anything is parked there still wakes the driver,
    /// earlier than the one it sleeps for or not.
    #[tokio::test(start_paused = true)]
    async fn reserved_instants_fire() {
        let t0 = Instant::now();
        let (m, log) = logging(t0);
        tokio::time::sleep(Duration::from_millis(1)).await;
        let (early, late) = (
            t0 + Duration::from_millis(100),
            t0 + Duration::from_millis(200),
        );
        m.reserve([(late, 1)]);
        m.park(late, 2);
        m.reserve([(early, 1)]);
        m.park(early, 1);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let fired: Vec<usize> = log.lock().unwrap().iter().map(|l| l.0).collect();
        assert_eq!(fired, [1, 2]);
    }

    /// Refused items go at once and leave the others of their instant; a stopped metronome
    /// drops what waits and what is parked later, and fires nothing.
    #[tokio::test(start_paused = true)]
    async fn retain_and_stop() {
        let t0 = Instant::now();
        let (m, log) = logging(t0);
        let at = t0 + Duration::from_secs(1);
        for i in 0..6 {
            m.park(at, i);
        }
        m.park(at + Duration::from_secs(1), 8);
        m.retain(|i| i % 2 == 0);
        assert_eq!(m.parked(), 4);
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut fired: Vec<usize> = log.lock().unwrap().iter().map(|l| l.0).collect();
        fired.sort();
        assert_eq!(fired, [0, 2, 4]);
        m.stop();
        assert!(m.is_stopped());
        assert_eq!(m.parked(), 0);
        m.park(at + Duration::from_secs(2), 10);
        assert_eq!(m.parked(), 0);
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert_eq!(log.lock().unwrap().len(), 3);
    }
}
