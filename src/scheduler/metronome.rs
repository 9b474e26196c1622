//! One timer for all the targets of a slot.
//!
//! Target tasks wait for their next poll on a [`Metronome`] instead of a timer each: tasks due
//! at the same instant share one entry, and a single driver task sleeps until the earliest
//! entry and wakes all of its tasks together. With 10,000 targets, per-target timers kept
//! 10,000 entries cascading through tokio's timer wheel, a measurable share of each poll;
//! here the wheel holds one.
//!
//! A waiting task keeps its waker in its instant's list ([`Until`]), not a `Notify` waiter:
//! the wait is part of every target's task for its whole life, and `Notified` (about 120
//! bytes) made the task future 272 bytes, which with tokio's header and trailer rounds the
//! task to 384 (tasks are 128-byte aligned); the list costs 16 bytes a waiter.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::sync::lock;

#[derive(Debug, Default)]
struct Shared {
    /// Instants someone waits for, each with the wakers of the tasks waiting for it. The
    /// driver removes an instant's entry when it fires, before waking them.
    due: Mutex<BTreeMap<Instant, Vec<Waker>>>,
    /// Tells the driver that an instant earlier than the one it sleeps for was added.
    rearm: Notify,
}

/// Shared wake-ups; dropping it stops the driver (tasks still waiting then wait forever, so
/// drop it only with them).
#[derive(Debug)]
pub struct Metronome {
    shared: Arc<Shared>,
    driver: JoinHandle<()>,
}

impl Metronome {
    /// Starts the driver on `runtime`.
    pub fn start(runtime: &Handle) -> Metronome {
        let shared = Arc::new(Shared::default());
        let driver = runtime.spawn(drive(shared.clone()));
        Metronome { shared, driver }
    }

    /// Waits until `at` (at once if it has passed).
    pub fn until(&self, at: Instant) -> Until<'_> {
        Until {
            shared: &self.shared,
            at,
            waker: None,
        }
    }
}

/// The wait of [`Metronome::until`].
#[derive(Debug)]
pub struct Until<'a> {
    shared: &'a Shared,
    at: Instant,
    /// The waker this wait put in the instant's list, if it did (to take it back on drop).
    waker: Option<Waker>,
}

impl Future for Until<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.at <= Instant::now() {
            self.waker = None;
            return Poll::Ready(());
        }
        let shared = self.shared;
        let at = self.at;
        let mut due = lock(&shared.due);
        let Some(mine) = &self.waker else {
            let earliest = due.keys().next().is_none_or(|first| at < *first);
            due.entry(at).or_default().push(cx.waker().clone());
            drop(due);
            self.waker = Some(cx.waker().clone());
            if earliest {
                shared.rearm.notify_one();
            }
            return Poll::Pending;
        };
        // Woken or polled again: the entry gone means the driver fired it (it fires only
        // instants that have passed by its clock).
        let Some(wakers) = due.get_mut(&at) else {
            drop(due);
            self.waker = None;
            return Poll::Ready(());
        };
        if !mine.will_wake(cx.waker()) {
            // Polled from elsewhere: the list gets the new waker in place of the old.
            if let Some(i) = wakers.iter().position(|w| w.will_wake(mine)) {
                wakers.swap_remove(i);
            }
            wakers.push(cx.waker().clone());
            drop(due);
            self.waker = Some(cx.waker().clone());
        }
        Poll::Pending
    }
}

impl Drop for Until<'_> {
    /// An abandoned wait (an aborted task) takes its waker back: a waker keeps its task's
    /// memory alive, so a reload replacing every target would otherwise hold all the old
    /// tasks until their instants passed.
    fn drop(&mut self) {
        let Some(mine) = self.waker.take() else {
            return;
        };
        let mut due = lock(&self.shared.due);
        if let Some(wakers) = due.get_mut(&self.at) {
            if let Some(i) = wakers.iter().position(|w| w.will_wake(&mine)) {
                wakers.swap_remove(i);
            }
        }
    }
}

impl Drop for Metronome {
    fn drop(&mut self) {
        self.driver.abort();
    }
}

/// How far ahead the keeper timer waits when there is no second instant to hold.
const KEEPER_IDLE: Duration = Duration::from_secs(3600);

async fn drive(shared: Arc<Shared>) {
    let mut fired: Vec<Waker> = Vec::new();
    // A second timer, on the instant after the next one, that never fires before the main
    // one (it is only re-aimed). Why: when tokio's timer driver fires an entry it notes the
    // wheel's next expiration, and registering any timer earlier than that (or with the
    // wheel empty) makes it write its eventfd to wake itself. Without the keeper the wheel is
    // empty right after an instant fires (its polls have not started yet), so every poll's
    // deadline and resend timer cost one eventfd write: 1.3 system calls per poll, more
    // than the sends and receives themselves once those are batched (load bench, strace).
    // With it, the next instant is the wheel's next expiration and the polls' timers, all
    // later, register silently.
    let keeper = tokio::time::sleep_until(Instant::now() + KEEPER_IDLE);
    tokio::pin!(keeper);
    loop {
        let now = Instant::now();
        let (next, second) = {
            let mut due = lock(&shared.due);
            while let Some(entry) = due.first_entry() {
                if *entry.key() > now {
                    break;
                }
                fired.append(&mut entry.remove());
            }
            let mut keys = due.keys();
            (keys.next().copied(), keys.next().copied())
        };
        if let Some(second) = second {
            if keeper.deadline() != second {
                keeper.as_mut().reset(second);
            }
        }
        for w in fired.drain(..) {
            w.wake();
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Waiters wake at their instant, in order, including ones added while the driver sleeps
    /// for a later instant; an instant in the past returns at once.
    #[tokio::test(start_paused = true)]
    async fn wakes_each_waiter_at_its_instant() {
        let m = Arc::new(Metronome::start(&Handle::current()));
        let t0 = Instant::now();
        let woke = Arc::new(Mutex::new(Vec::new()));
        let mut tasks = Vec::new();
        for (i, ms) in [300u64, 100, 100, 200].into_iter().enumerate() {
            let (m, woke) = (m.clone(), woke.clone());
            tasks.push(tokio::spawn(async move {
                m.until(t0 + Duration::from_millis(ms)).await;
                woke.lock().unwrap().push((i, Instant::now() - t0));
            }));
            // Later waiters arrive while the driver already sleeps for an earlier one.
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        for t in tasks {
            t.await.unwrap();
        }
        let woke = woke.lock().unwrap().clone();
        let order: Vec<usize> = woke.iter().map(|w| w.0).collect();
        assert!(order == [1, 2, 3, 0] || order == [2, 1, 3, 0], "{woke:?}");
        for (i, at) in woke {
            let want = Duration::from_millis([300u64, 100, 100, 200][i]);
            assert!(
                at >= want && at < want + Duration::from_millis(2),
                "{i}: {at:?}"
            );
        }
        m.until(t0).await;
        assert!(lock(&m.shared.due).is_empty());
    }

    /// A waiter dropped before its instant (an aborted task) leaves nothing behind once the
    /// instant passes, and does not disturb another waiter of the same instant.
    #[tokio::test(start_paused = true)]
    async fn dropped_waiter_is_harmless() {
        let m = Arc::new(Metronome::start(&Handle::current()));
        let at = Instant::now() + Duration::from_secs(1);
        let m2 = m.clone();
        let gone = tokio::spawn(async move { m2.until(at).await });
        let m3 = m.clone();
        let kept = tokio::spawn(async move { m3.until(at).await });
        tokio::time::sleep(Duration::from_millis(10)).await;
        gone.abort();
        kept.await.unwrap();
        assert!(Instant::now() >= at);
        assert!(lock(&m.shared.due).is_empty());
    }
}
