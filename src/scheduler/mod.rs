//! One tokio task per poll, polling each target on its interval.
//!
//! - Between polls a target is a small [`Record`] (its target, its recorder, its [`Session`])
//!   parked on the [`Metronome`] under its next grid point: no task, no socket, no timer.
//!   When an instant comes, the metronome's one timer fires and every record due then gets a
//!   task for its poll, which parks the record again for its next grid point when done. A
//!   task per target cost 256 bytes for its whole life though a target polls a fraction of a
//!   percent of the time (24 MiB at 100,000 targets; benches/RESULTS.md, "one task per poll").
//! - Each target starts at a pseudo-random offset within its interval (a hash of its name
//!   with a per-process seed), so 10,000 targets configured at once do not poll in the same
//!   instant.
//! - A record is either parked or in its one poll task, so polls of one target never
//!   overlap; if a poll (or the wait for a permit) runs past the next tick, that tick is
//!   skipped, not doubled, and the target polls again at its next point on the grid.
//! - A global [`Semaphore`] caps the polls in flight across all targets.
//! - Each record keeps its [`Session`] (A2S challenge, Query token) between polls.
//! - [`Scheduler::apply`] reloads by diff: unchanged targets keep their record, state and
//!   counters; changed ones restart with fresh state; removed ones stop and lose their series.
//!   A removed or replaced target's parked record is dropped at once; a poll of it still in
//!   flight finishes (within its deadline) but writes nothing back and is not parked again.
//!
//! The poll itself is injected through [`Prober`], so tests can run the scheduler against a
//! fake without sockets, under `tokio::time::pause`.

mod metronome;
pub mod poller;

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::hash::BuildHasher;
use std::pin::Pin;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};

use tokio::runtime::Handle;
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::net::udp::UdpMux;
use crate::query::registry::{dispatch, Build, Spec, Visit};
use crate::query::{Observer, Request, Session};
use crate::state::{ByName, Recorder, State, TargetMeta};
use crate::status::{Failure, Reason, Status};
use crate::sync::lock;
use crate::target::Target;
pub use metronome::Metronome;

pub type PollFuture<'a> = Pin<Box<dyn Future<Output = Result<Status, Failure>> + Send + 'a>>;

/// Polls one server once. The real one is [`QueryProber`]; tests pass fakes.
pub trait Prober: Send + Sync + 'static {
    fn poll<'a>(&'a self, req: &'a Request, session: &'a mut Session) -> PollFuture<'a>;

    /// Like [`Prober::poll`], showing `observer` every step on the wire
    /// (`/probe?debug=true`). A fake without a wire may leave the observer unused.
    fn poll_observed<'a>(
        &'a self,
        req: &'a Request,
        session: &'a mut Session,
        observer: &'a mut dyn Observer,
    ) -> PollFuture<'a> {
        let _ = observer;
        self.poll(req, session)
    }

    /// One scheduled poll of a configured target, as its poll task runs it: the request
    /// built from `target` (steady-state UDP on `mux`), under the global cap, cut off past its
    /// deadline. The default builds on [`Prober::poll`]; [`QueryProber`] puts the whole poll
    /// in one allocation.
    fn poll_target<'a>(
        &'a self,
        target: &'a Target,
        mux: &'a Arc<UdpMux>,
        permits: &'a Permits,
        session: &'a mut Session,
    ) -> TargetPollFuture<'a> {
        Box::pin(async move {
            let req = request_for(target, mux);
            under_cap(permits, req.timeout, |_| self.poll(&req, session)).await
        })
    }
}

/// A scheduled poll (see [`Prober::poll_target`]).
pub type TargetPollFuture<'a> = Pin<Box<dyn Future<Output = Polled> + Send + 'a>>;

/// What one scheduled poll gave.
#[derive(Debug)]
pub struct Polled {
    pub result: Result<Status, Failure>,
    /// Wall time of the poll, DNS and retries included, the wait for a permit excluded.
    pub took: Duration,
    /// When it ended: the `now` for the target's next grid point (one clock read fewer).
    pub ended: Instant,
}

/// The real prober: [`crate::query::poll_with`].
#[derive(Debug, Clone, Copy, Default)]
pub struct QueryProber;

impl Prober for QueryProber {
    fn poll<'a>(&'a self, req: &'a Request, session: &'a mut Session) -> PollFuture<'a> {
        Box::pin(crate::query::poll_with(req, session))
    }

    fn poll_observed<'a>(
        &'a self,
        req: &'a Request,
        session: &'a mut Session,
        observer: &'a mut dyn Observer,
    ) -> PollFuture<'a> {
        Box::pin(crate::query::poll_observed(req, session, Some(observer)))
    }

    /// One allocation per poll: the request, the permit wait, the deadline guard and the
    /// dialogue itself (monomorphized for the target's protocol through
    /// [`dispatch`]) in one box, beside the poll's task (which holds this box's pointer);
    /// boxing it twice (the task's poll, then the prober's dialogue) cost one more allocation
    /// and a copy of the dialogue's future per poll (benches/RESULTS.md, c1-cpu).
    fn poll_target<'a>(
        &'a self,
        target: &'a Target,
        mux: &'a Arc<UdpMux>,
        permits: &'a Permits,
        session: &'a mut Session,
    ) -> TargetPollFuture<'a> {
        struct Boxed<'a> {
            target: &'a Target,
            mux: &'a Arc<UdpMux>,
            permits: &'a Permits,
            session: &'a mut Session,
        }
        impl<'a> Visit for Boxed<'a> {
            type Output = TargetPollFuture<'a>;
            fn visit<X: Build>(self, spec: &'static Spec) -> TargetPollFuture<'a> {
                let Boxed {
                    target,
                    mux,
                    permits,
                    session,
                } = self;
                Box::pin(async move {
                    let req = request_for(target, mux);
                    under_cap(permits, req.timeout, |deadline| {
                        crate::query::poll_until_as::<X>(spec, &req, session, deadline)
                    })
                    .await
                })
            }
        }
        let v = Boxed {
            target,
            mux,
            permits,
            session,
        };
        dispatch(target.protocol, v)
    }
}

/// The request a scheduled poll of `target` sends, on the shared UDP sockets.
fn request_for(target: &Target, mux: &Arc<UdpMux>) -> Request {
    let mut req = Request::from(target);
    req.mux = Some(mux.clone());
    req
}

/// Grace beyond a request's own timeout before the scheduler gives up on a poll: the dialogues
/// honour their deadline, this only guards against a prober that does not.
const POLL_GRACE: Duration = Duration::from_secs(1);

/// Start offsets are multiples of this: the polls of one slot start on one timer wake-up and
/// their replies arrive close together, so the runtime wakes once per batch instead of once per
/// poll. Load bench, 10,000 A2S targets at 5 s: CPU per poll about halved (benches/RESULTS.md).
pub const SLOT: Duration = Duration::from_millis(10);

/// The share of the interval over which first polls are spread: the rest leaves room for the
/// last of them to finish before one interval has passed.
pub const SPREAD: f64 = 0.9;

/// Polls the start grid aims to put in one slot. Every wake-up of the runtime (timer, then
/// replies) costs about the same whether it serves one poll or a hundred, so a sparse config on
/// 10 ms slots paid that cost per poll: load bench, 100 A2S targets at 5 s, 179 µs of CPU per
/// poll on 10 ms slots against 44 µs on 500 ms slots. The grid widens until a slot holds about
/// this many polls. 128 rather than 32: 10,000 A2S targets at 5 s went from 20 to 60 ms slots,
/// the poller from 0.10 to 0.025 wake-ups per poll and 26.5 to 17.3 µs of CPU per poll (64:
/// 20.0); a slot's replies still fit the default 208 KiB socket buffer at A2S sizes, and a
/// config polling more than 12,800 times a second already had bigger slots (benches/RESULTS.md,
/// "Bigger start batches").
pub const BATCH: f64 = 128.0;

/// A wide grid still leaves at least this many slots per interval, so a small config's polls
/// are spread rather than all in one burst.
pub const MIN_SLOTS: u32 = 4;

/// The global cap on polls in flight, resizable on reload without restarting tasks.
#[derive(Debug, Clone)]
pub struct Permits(Arc<Mutex<(usize, Arc<Semaphore>)>>);

impl Permits {
    pub fn new(n: usize) -> Permits {
        Permits(Arc::new(Mutex::new((n, Arc::new(Semaphore::new(n))))))
    }

    fn current(&self) -> Arc<Semaphore> {
        lock(&self.0).1.clone()
    }

    /// A new cap takes effect for permits taken from now on; polls in flight finish on the old.
    pub fn resize(&self, n: usize) {
        let mut g = lock(&self.0);
        if g.0 != n {
            *g = (n, Arc::new(Semaphore::new(n)));
        }
    }
}

/// Runs one poll under the global cap: the result and its wall time (DNS and retries
/// included, the wait for a permit excluded).
pub async fn poll_once(
    prober: &dyn Prober,
    permits: &Permits,
    req: &Request,
    session: &mut Session,
) -> (Result<Status, Failure>, Duration) {
    poll_once_observed(prober, permits, req, session, None).await
}

/// Like [`poll_once`], showing `observer` (if any) every step on the wire.
pub async fn poll_once_observed(
    prober: &dyn Prober,
    permits: &Permits,
    req: &Request,
    session: &mut Session,
    observer: Option<&mut dyn Observer>,
) -> (Result<Status, Failure>, Duration) {
    let polled = under_cap(permits, req.timeout, |_| match observer {
        Some(o) => prober.poll_observed(req, session, o),
        None => prober.poll(req, session),
    })
    .await;
    (polled.result, polled.took)
}

/// Waits for a permit, then runs the poll `start` makes from its deadline (`timeout` from
/// now), cut off [`POLL_GRACE`] after it. The clock is read twice per poll here (start and
/// end), and the dialogue and the guard share the start.
async fn under_cap<F>(
    permits: &Permits,
    timeout: Duration,
    start: impl FnOnce(Instant) -> F,
) -> Polled
where
    F: Future<Output = Result<Status, Failure>>,
{
    let sem = permits.current();
    let _permit = sem.acquire_owned().await;
    let started = Instant::now();
    let deadline = started + timeout;
    let result = match tokio::time::timeout_at(deadline + POLL_GRACE, start(deadline)).await {
        Ok(r) => r,
        Err(_) => Err(Failure::new(Reason::Timeout, "poll overran its deadline")),
    };
    let ended = Instant::now();
    Polled {
        result,
        took: ended.saturating_duration_since(started),
        ended,
    }
}

/// What a reload changed, by target name.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Diff {
    pub added: Vec<String>,
    pub changed: Vec<String>,
    pub removed: Vec<String>,
    pub kept: usize,
}

/// Owns the targets' schedule.
pub struct Scheduler {
    state: Arc<State>,
    /// What every poll uses.
    shared: Arc<Shared>,
    /// Every scheduled target, by name (the records themselves are parked or polling).
    targets: HashSet<ByName>,
    seed: std::collections::hash_map::RandomState,
    /// What offsets count from, for every target: slots stay aligned across a whole config
    /// (starting 10,000 targets takes long enough to smear offsets taken from each one's now).
    epoch: Instant,
    /// Slot width for offsets: a multiple of [`SLOT`] sized by the config's poll rate.
    grid: Duration,
}

impl Scheduler {
    /// A scheduler whose polls run on the current tokio runtime. Must run inside one.
    pub fn new(prober: Arc<dyn Prober>, state: Arc<State>, max_concurrent: usize) -> Scheduler {
        Scheduler::on(Handle::current(), prober, state, max_concurrent)
    }

    /// A scheduler whose polls run on `runtime` (the daemon passes its [`crate::scheduler::poller`]).
    pub fn on(
        runtime: Handle,
        prober: Arc<dyn Prober>,
        state: Arc<State>,
        max_concurrent: usize,
    ) -> Scheduler {
        Scheduler {
            shared: Shared::start(&runtime, prober, Permits::new(max_concurrent)),
            state,
            targets: HashSet::new(),
            seed: Default::default(),
            epoch: Instant::now(),
            grid: SLOT,
        }
    }

    pub fn prober(&self) -> Arc<dyn Prober> {
        self.shared.prober.clone()
    }

    pub fn permits(&self) -> Permits {
        self.shared.permits.clone()
    }

    /// Where in its interval a target polls first: stable for a name within one process.
    ///
    /// Offsets fall in the first [`SPREAD`] of the interval, so the first round completes
    /// within one interval, and on the grid (at most a [`MIN_SLOTS`]th of the interval wide)
    /// when the interval is long enough.
    pub fn offset(&self, name: &str, interval: Duration) -> Duration {
        let h = self.seed.hash_one(name);
        // 53 bits make an exact f64 fraction in [0, 1).
        let frac = (h >> 11) as f64 / (1u64 << 53) as f64;
        let offset = interval.mul_f64(frac * SPREAD);
        if interval >= SLOT * 100 {
            let width = on_slots(self.grid.min(interval / MIN_SLOTS));
            width * (offset.as_nanos() / width.as_nanos()) as u32
        } else {
            offset
        }
    }

    /// Brings the schedule in line with `targets`. A kept target's entry in `targets` is
    /// replaced by the scheduled (equal) one, so the new config and the records share each
    /// target instead of holding two copies after a reload.
    pub fn apply(&mut self, targets: &mut [Arc<Target>], max_concurrent: usize) -> Diff {
        self.shared.permits.resize(max_concurrent);
        // Kept targets keep their phase; only targets started by this apply use the new grid.
        self.grid = grid_for(targets);
        let mut diff = Diff::default();
        let now = Instant::now();
        self.reserve_first_polls(targets, now);
        // The table is updated in place: a second table for the new set (2.2 MB at 100,000
        // targets) was alive next to the old one during every reload.
        self.targets
            .reserve(targets.len().saturating_sub(self.targets.len()));
        for t in targets.iter_mut() {
            match self.targets.get(t.name.as_str()) {
                Some(old) if old.0.target == *t => {
                    *t = old.0.target.clone();
                    diff.kept += 1;
                    continue;
                }
                Some(_) => {
                    self.targets.remove(t.name.as_str());
                    diff.changed.push(t.name.clone());
                }
                None => diff.added.push(t.name.clone()),
            }
            let meta = Arc::new(TargetMeta::new(t.clone()));
            // Replaces a changed target's entry: its old record sees itself unpublished.
            let recorder = self.state.insert(meta.clone());
            self.start(meta.clone(), recorder, now);
            self.targets.insert(ByName(meta));
        }
        // Every name in `targets` is scheduled now, and names are unique (a validated
        // config's are), so more scheduled than wanted means some were removed.
        if self.targets.len() > targets.len() {
            let wanted: HashSet<&str> = targets.iter().map(|t| t.name.as_str()).collect();
            let state = &self.state;
            self.targets.retain(|old| {
                if wanted.contains(old.name()) {
                    return true;
                }
                state.remove(old.name());
                diff.removed.push(old.name().to_string());
                false
            });
        }
        if !diff.changed.is_empty() || !diff.removed.is_empty() {
            // The old records go now rather than at their next grid point (a reload replacing
            // every target would otherwise hold two of everything for up to an interval).
            self.shared.metronome.retain(|r| r.recorder.is_published());
        }
        diff.added.sort();
        diff.changed.sort();
        diff.removed.sort();
        diff
    }

    /// Sizes each instant's list for the first polls `apply` is about to park: one list per
    /// slot, allocated once at its size instead of doubling its way there.
    fn reserve_first_polls(&self, targets: &[Arc<Target>], now: Instant) {
        let mut counts: HashMap<Instant, usize> = HashMap::new();
        for t in targets {
            if self
                .targets
                .get(t.name.as_str())
                .is_some_and(|old| old.0.target == *t)
            {
                continue;
            }
            *counts.entry(self.first_poll(t, now)).or_default() += 1;
        }
        self.shared.metronome.reserve(counts);
    }

    /// When a target started at `now` polls first.
    fn first_poll(&self, t: &Target, now: Instant) -> Instant {
        next_on_grid(
            self.epoch + self.offset(&t.name, t.interval),
            t.interval,
            now,
        )
    }

    /// Parks a new target's record for its first poll. `now` is when the apply began: a
    /// target whose grid point passed while earlier targets were being started still polls
    /// at once rather than an interval later.
    fn start(&self, meta: Arc<TargetMeta>, recorder: Recorder, now: Instant) {
        let first = self.first_poll(&meta.target, now);
        self.shared
            .metronome
            .park(first, Record::new(meta, recorder));
    }

    /// Stops polling for good: parked records are dropped, polls in flight write nothing
    /// back; the series stay in the state until it is dropped.
    pub fn shutdown(&mut self) {
        self.shared.metronome.stop();
        self.targets.clear();
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The slot width that puts about [`BATCH`] polls in a slot at the config's total poll rate.
fn grid_for(targets: &[Arc<Target>]) -> Duration {
    let rate: f64 = targets
        .iter()
        .filter(|t| !t.interval.is_zero())
        .map(|t| 1.0 / t.interval.as_secs_f64())
        .sum();
    if rate <= 0.0 {
        return SLOT;
    }
    on_slots(Duration::from_secs_f64((BATCH / rate).min(86_400.0)))
}

/// `width` rounded down to a whole number of [`SLOT`]s, at least one.
fn on_slots(width: Duration) -> Duration {
    SLOT * ((width.as_nanos() / SLOT.as_nanos()).clamp(1, u32::MAX as u128) as u32)
}

/// The first of `first + k * interval` (k >= 0) that is not before `now`; a point less than
/// one [`SLOT`] past still counts (it fires at once), so the targets of the first slot do not
/// wait an interval because the scheduler was created a moment before the apply.
fn next_on_grid(first: Instant, interval: Duration, now: Instant) -> Instant {
    if first + SLOT >= now || interval.is_zero() {
        return first;
    }
    let periods = (now - first).as_nanos().div_ceil(interval.as_nanos());
    let ahead = interval.as_nanos().saturating_mul(periods);
    first + Duration::from_nanos(u64::try_from(ahead).unwrap_or(u64::MAX))
}

/// What every poll uses, behind one pointer per poll task.
struct Shared {
    prober: Arc<dyn Prober>,
    /// The global cap on polls in flight.
    permits: Permits,
    /// Shared UDP sockets for every target's steady-state polls; bound on first use, stopped
    /// when the scheduler and its polls are gone.
    mux: Arc<UdpMux>,
    /// Where idle targets wait for their next poll.
    metronome: Metronome<Record>,
}

impl Shared {
    /// The metronome, when an instant comes, spawns a poll task per record due then (on
    /// `runtime`: the driver runs there). It holds the rest weakly: the records it parks
    /// would otherwise keep the scheduler's shared parts alive.
    fn start(runtime: &Handle, prober: Arc<dyn Prober>, permits: Permits) -> Arc<Shared> {
        Arc::new_cyclic(|me: &Weak<Shared>| {
            let me = me.clone();
            Shared {
                metronome: Metronome::start(runtime, move |at, due: &mut Vec<Record>| {
                    let Some(shared) = me.upgrade() else {
                        return;
                    };
                    for record in due.drain(..) {
                        tokio::spawn(poll_due(record, at, shared.clone()));
                    }
                }),
                prober,
                permits,
                mux: Arc::new(UdpMux::new()),
            }
        })
    }
}

/// An idle target: what it keeps from one poll to the next, parked on the metronome under
/// its next grid point (which is not stored here: the metronome's key holds it). A hundred
/// thousand of these are most of what the scheduler holds (see `record_is_small`).
struct Record {
    meta: Arc<TargetMeta>,
    recorder: Recorder,
    session: Session,
    /// What the last poll said, to log a change between up and down once.
    was_up: Option<bool>,
}

impl Record {
    fn new(meta: Arc<TargetMeta>, recorder: Recorder) -> Record {
        Record {
            meta,
            recorder,
            session: Session::default(),
            was_up: None,
        }
    }

    /// Logs the poll and writes it to the target's entry.
    fn report(&mut self, result: Result<Status, Failure>, took: Duration) {
        let t = &self.meta.target;
        // Per-poll detail is debug; a change between up and down is worth an operator's eye.
        let up = result.is_ok();
        match &result {
            Ok(s) => {
                tracing::debug!(target_name = %t.name, online = s.online, max = s.max, "poll ok")
            }
            Err(f) => {
                tracing::debug!(target_name = %t.name, reason = %f.reason, detail = %f.detail, "poll failed")
            }
        }
        match (&result, self.was_up) {
            (Ok(_), Some(false)) => tracing::info!(target_name = %t.name, "target is up again"),
            (Err(f), Some(true) | None) => {
                tracing::warn!(target_name = %t.name, reason = %f.reason, detail = %f.detail, "target is down")
            }
            _ => {}
        }
        self.was_up = Some(up);
        self.recorder.record(result, took, SystemTime::now());
    }
}

/// The poll of a target due at `due`, then its record parked for its next grid point (or,
/// when that has passed already, the next poll at once, in this task).
async fn poll_due(mut record: Record, mut due: Instant, shared: Arc<Shared>) {
    loop {
        // Removed or replaced by a reload after the metronome fired it.
        if !record.recorder.is_published() {
            return;
        }
        // The poll's state (request, permit wait, deadline timer, dialogue) lives in the one
        // box the prober returns.
        let Polled {
            result,
            took,
            ended,
        } = shared
            .prober
            .poll_target(
                &record.meta.target,
                &shared.mux,
                &shared.permits,
                &mut record.session,
            )
            .await;
        // Removed or replaced while in flight, or the scheduler stopped: the result belongs
        // to nobody, and the target is not polled again.
        if !record.recorder.is_published() || shared.metronome.is_stopped() {
            return;
        }
        record.report(result, took);
        let interval = record.meta.target.interval;
        // After an overrun the target skips to its next grid point and stays in its slot.
        due = next_on_grid(due + interval, interval, ended);
        if due > ended {
            shared.metronome.park(due, record);
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::target::{Address, Protocol};

    /// Counts polls per target and how many run at once; each poll takes `delay`.
    #[derive(Default)]
    struct Fake {
        delay: Duration,
        calls: Mutex<Vec<(String, Instant)>>,
        in_flight: AtomicUsize,
        max_in_flight: AtomicUsize,
    }

    impl Prober for Fake {
        fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
            Box::pin(async move {
                let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
                self.max_in_flight.fetch_max(now, Ordering::SeqCst);
                self.calls
                    .lock()
                    .unwrap()
                    .push((req.address.host.to_string(), Instant::now()));
                tokio::time::sleep(self.delay).await;
                self.in_flight.fetch_sub(1, Ordering::SeqCst);
                Ok(Status {
                    online: 1,
                    ..Default::default()
                })
            })
        }
    }

    fn target(name: &str, interval: u64) -> Target {
        Target {
            interval: Duration::from_secs(interval),
            timeout: Duration::from_secs(interval) / 2,
            ..Target::new(name, Protocol::A2s, Address::parse(name).unwrap())
        }
    }

    fn calls_of(f: &Fake, name: &str) -> Vec<Instant> {
        let calls = f.calls.lock().unwrap();
        calls
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, t)| *t)
            .collect()
    }

    /// Offsets are spread within the interval and stable per name.
    #[tokio::test]
    async fn offsets_within_interval() {
        let s = Scheduler::new(Arc::new(Fake::default()), Arc::default(), 1);
        let i = Duration::from_secs(15);
        let offs: Vec<Duration> = (0..100).map(|n| s.offset(&format!("t{n}"), i)).collect();
        assert!(offs.iter().all(|o| *o < i));
        assert_eq!(s.offset("t1", i), offs[1]);
        let early = offs.iter().filter(|o| **o < i / 2).count();
        assert!(
            (20..=80).contains(&early),
            "{early} of 100 in the first half"
        );
    }

    /// On long intervals, offsets sit on slot boundaries (polls start in batches) and leave
    /// the last tenth of the interval free; short intervals are not rounded.
    #[tokio::test]
    async fn offsets_on_slots() {
        let s = Scheduler::new(Arc::new(Fake::default()), Arc::default(), 1);
        let i = Duration::from_secs(5);
        for n in 0..200 {
            let o = s.offset(&format!("t{n}"), i);
            assert_eq!(o.as_nanos() % SLOT.as_nanos(), 0, "{o:?}");
            assert!(o < i.mul_f64(SPREAD));
        }
        let short = Duration::from_millis(200);
        let unrounded = (0..200)
            .map(|n| s.offset(&format!("t{n}"), short))
            .filter(|o| o.as_nanos() % SLOT.as_nanos() != 0)
            .count();
        assert!(unrounded > 150, "{unrounded} of 200 unrounded");
    }

    /// The grid widens as the poll rate falls, so a slot holds about BATCH polls: 10,000
    /// targets at 5 s keep slots of a few tens of milliseconds, 100 targets share a few slots
    /// (never fewer than MIN_SLOTS per interval), 100,000 at 5 s stay on the finest grid.
    #[tokio::test]
    async fn grid_follows_poll_rate() {
        let many: Vec<Arc<Target>> = (0..10_000)
            .map(|n| target(&format!("t{n}"), 5).into())
            .collect();
        assert_eq!(grid_for(&many), Duration::from_millis(60));
        let thousand = &many[..1000];
        assert_eq!(grid_for(thousand), Duration::from_millis(640));
        assert_eq!(grid_for(&[]), SLOT);
        let busy: Vec<Arc<Target>> = (0..100_000)
            .map(|n| target(&format!("t{n}"), 5).into())
            .collect();
        assert_eq!(grid_for(&busy), SLOT);

        let mut s = Scheduler::new(Arc::new(Fake::default()), Arc::default(), 1);
        s.grid = grid_for(&many[..100]);
        assert_eq!(s.grid, Duration::from_millis(6400));
        let i = Duration::from_secs(5);
        let mut slots: BTreeMap<Duration, usize> = BTreeMap::new();
        for n in 0..100 {
            *slots.entry(s.offset(&format!("t{n}"), i)).or_default() += 1;
        }
        // At most MIN_SLOTS slots of interval / MIN_SLOTS, inside the spread.
        assert!(slots.len() <= MIN_SLOTS as usize, "{slots:?}");
        assert!(slots.len() >= 3, "{slots:?}");
        for o in slots.keys() {
            assert_eq!(o.as_nanos() % Duration::from_millis(1250).as_nanos(), 0);
            assert!(*o < i.mul_f64(SPREAD));
        }
        assert!(slots.values().all(|n| *n >= 5), "{slots:?}");
    }

    /// An idle target stays small: it waits for the whole run but polls a fraction of a
    /// percent of the time, so the poll's state lives in its own task and the prober's box,
    /// not here. At 100,000 targets every 8 bytes here are 0.8 MB (benches/RESULTS.md, "one
    /// task per poll"; a sleeping tokio task per target was 256).
    #[test]
    fn record_is_small() {
        assert!(std::mem::size_of::<Session>() <= 40);
        assert!(std::mem::size_of::<Record>() <= 64);
    }

    /// Idle targets hold no task: between polls the runtime runs only the metronome's driver,
    /// whatever the number of targets.
    #[tokio::test(start_paused = true)]
    async fn idle_targets_hold_no_task() {
        let fake = Arc::new(Fake::default());
        let mut s = Scheduler::new(fake.clone(), Arc::default(), 8);
        let base = Handle::current().metrics().num_alive_tasks();
        let mut targets: Vec<Arc<Target>> = (0..500)
            .map(|n| target(&format!("t{n}"), 10).into())
            .collect();
        s.apply(&mut targets, 8);
        assert_eq!(s.shared.metronome.parked(), 500);
        // Every target has polled once (offsets fall within 9 s) and waits for its second.
        tokio::time::sleep(Duration::from_millis(9_500)).await;
        assert_eq!(fake.calls.lock().unwrap().len(), 500);
        assert_eq!(s.shared.metronome.parked(), 500);
        assert_eq!(Handle::current().metrics().num_alive_tasks(), base);
        s.shutdown();
        assert_eq!(s.shared.metronome.parked(), 0);
    }

    /// A target spawned late starts on the next point of its grid, never in the past.
    #[test]
    fn grid_points() {
        let t0 = Instant::now();
        let i = Duration::from_secs(5);
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert_eq!(next_on_grid(at(300), i, at(100)), at(300));
        assert_eq!(next_on_grid(at(300), i, at(300)), at(300));
        assert_eq!(next_on_grid(at(300), i, at(305)), at(300));
        assert_eq!(next_on_grid(at(300), i, at(400)), at(5300));
        assert_eq!(next_on_grid(at(300), i, at(12_000)), at(15_300));
        assert_eq!(next_on_grid(at(300), Duration::ZERO, at(400)), at(300));
    }

    /// The first poll waits for the offset, later ones follow the interval.
    #[tokio::test(start_paused = true)]
    async fn polls_on_interval_after_offset() {
        let fake = Arc::new(Fake::default());
        let state: Arc<State> = Arc::default();
        let mut s = Scheduler::new(fake.clone(), state.clone(), 4);
        let start = Instant::now();
        s.apply(&mut [target("a", 10).into()], 4);
        let offset = s.offset("a", Duration::from_secs(10));
        // Offsets sit on the grid (here 2.5 s), so stop between grid points: a poll due at
        // the very instant the sleep ends may or may not have run.
        tokio::time::sleep(Duration::from_millis(36_100)).await;
        let calls = calls_of(&fake, "a");
        let want: Vec<Instant> = (0..4)
            .map(|k| start + offset + Duration::from_secs(10 * k))
            .filter(|t| *t <= start + Duration::from_secs(36))
            .collect();
        // tokio timers fire on whole milliseconds.
        assert_eq!(calls.len(), want.len());
        for (got, want) in calls.iter().zip(&want) {
            assert!(*got >= *want && *got - *want < Duration::from_millis(2));
        }
        assert_eq!(state.get("a").unwrap().queries, want.len() as u64);
    }

    /// A poll longer than the interval delays the next one instead of overlapping it.
    #[tokio::test(start_paused = true)]
    async fn never_overlaps_itself() {
        let fake = Arc::new(Fake {
            delay: Duration::from_secs(25),
            ..Default::default()
        });
        let mut s = Scheduler::new(fake.clone(), Arc::default(), 4);
        // timeout 5s + grace would cut a 25s poll; give this target a long timeout.
        let mut t = target("a", 10);
        t.timeout = Duration::from_secs(60);
        s.apply(&mut [t.into()], 4);
        tokio::time::sleep(Duration::from_secs(100)).await;
        let calls = calls_of(&fake, "a");
        assert!(calls.len() >= 3);
        // Each 25 s poll skips the ticks it overran: the next poll is at the next point of
        // the target's own 10 s grid, 30 s after the previous one.
        for w in calls.windows(2) {
            let gap = w[1] - w[0];
            assert!(
                gap >= Duration::from_secs(30) && gap < Duration::from_millis(30_002),
                "{gap:?}"
            );
        }
        assert_eq!(fake.max_in_flight.load(Ordering::SeqCst), 1);
    }

    /// The global cap bounds polls in flight across targets.
    #[tokio::test(start_paused = true)]
    async fn global_cap() {
        let fake = Arc::new(Fake {
            delay: Duration::from_secs(4),
            ..Default::default()
        });
        let mut s = Scheduler::new(fake.clone(), Arc::default(), 2);
        let mut targets: Vec<Arc<Target>> = (0..20)
            .map(|n| target(&format!("t{n}"), 10).into())
            .collect();
        s.apply(&mut targets, 2);
        tokio::time::sleep(Duration::from_secs(60)).await;
        assert_eq!(fake.max_in_flight.load(Ordering::SeqCst), 2);
        assert!(fake.calls.lock().unwrap().len() >= 20);
    }

    /// A prober ignoring its deadline is cut off as a timeout.
    #[tokio::test(start_paused = true)]
    async fn overrun_is_timeout() {
        let fake = Arc::new(Fake {
            delay: Duration::from_secs(1000),
            ..Default::default()
        });
        let state: Arc<State> = Arc::default();
        let mut s = Scheduler::new(fake.clone(), state.clone(), 2);
        s.apply(&mut [target("a", 10).into()], 2);
        tokio::time::sleep(Duration::from_secs(20)).await;
        let e = state.get("a").unwrap();
        assert!(e.queries >= 1);
        assert_eq!(e.failures[0], e.queries);
        assert_eq!(e.last_duration(), Duration::from_secs(6));
    }

    /// A poll in flight when a reload removes or replaces its target finishes, but writes
    /// nothing to the new entry and is not followed by another: the replaced target polls
    /// only on its new record, the removed one not at all.
    #[tokio::test(start_paused = true)]
    async fn in_flight_poll_of_reloaded_target_is_dropped() {
        for replace in [false, true] {
            let fake = Arc::new(Fake {
                delay: Duration::from_secs(4),
                ..Default::default()
            });
            let state: Arc<State> = Arc::default();
            let mut s = Scheduler::new(fake.clone(), state.clone(), 4);
            let start = Instant::now();
            let mut a = target("a", 10);
            a.timeout = Duration::from_secs(8);
            s.apply(&mut [a.clone().into()], 4);
            let offset = s.offset("a", Duration::from_secs(10));
            // The first poll is in flight (it lasts 4 s).
            tokio::time::sleep_until(start + offset + Duration::from_millis(500)).await;
            assert_eq!(fake.in_flight.load(Ordering::SeqCst), 1);
            a.labels.insert("region".into(), "eu".into());
            let mut next = if replace { vec![a.into()] } else { vec![] };
            let diff = s.apply(&mut next, 4);
            assert_eq!(diff.changed.len(), usize::from(replace));
            assert_eq!(diff.removed.len(), usize::from(!replace));
            // The old poll ends; nothing of it reaches the state.
            tokio::time::sleep_until(start + offset + Duration::from_millis(4_600)).await;
            assert_eq!(fake.in_flight.load(Ordering::SeqCst), 0);
            assert_eq!(state.get("a").map(|e| e.queries), replace.then_some(0));
            // Only the new record waits: the old one was not parked again.
            assert_eq!(s.shared.metronome.parked(), usize::from(replace));
            // A new record polls from its next grid point on; the old one never again.
            tokio::time::sleep_until(start + offset + Duration::from_millis(35_500)).await;
            let polls = calls_of(&fake, "a").len();
            if replace {
                assert_eq!(polls, 1 + 3);
                assert_eq!(state.get("a").unwrap().queries, 3);
            } else {
                assert_eq!(polls, 1);
            }
            assert_eq!(s.shared.metronome.parked(), usize::from(replace));
        }
    }

    /// Reload by diff: kept targets keep counters and last player seen, changed ones
    /// restart, removed ones vanish.
    #[tokio::test(start_paused = true)]
    async fn reload_by_diff() {
        let fake = Arc::new(Fake::default());
        let state: Arc<State> = Arc::default();
        let mut s = Scheduler::new(fake.clone(), state.clone(), 4);
        s.apply(
            &mut [
                target("a", 10).into(),
                target("b", 10).into(),
                target("c", 10).into(),
            ],
            4,
        );
        tokio::time::sleep(Duration::from_secs(25)).await;
        let before_a = state.get("a").unwrap().queries;
        assert!(before_a >= 2);
        // The fake reports a player online, so every target has been seen populated.
        let seen_a = state.get("a").unwrap().last_player_seen();
        assert!(seen_a.is_some());
        assert!(state.get("b").unwrap().last_player_seen().is_some());
        let mut b2 = target("b", 10);
        b2.labels.insert("region".into(), "eu".into());
        let mut next = [Arc::new(target("a", 10)), b2.into(), target("d", 10).into()];
        let diff = s.apply(&mut next, 4);
        assert_eq!(
            diff,
            Diff {
                added: vec!["d".into()],
                changed: vec!["b".into()],
                removed: vec!["c".into()],
                kept: 1,
            }
        );
        assert_eq!(state.get("a").unwrap().queries, before_a);
        // What "empty for 30 minutes" reads survives a reload that keeps the target, and a
        // changed target starts over (absent until its next success).
        assert_eq!(state.get("a").unwrap().last_player_seen(), seen_a);
        assert_eq!(state.get("b").unwrap().last_player_seen(), None);
        // The kept target's new config entry is the running task's, not a second copy.
        assert!(Arc::ptr_eq(&next[0], &state.get("a").unwrap().meta.target));
        assert!(Arc::ptr_eq(&next[1], &state.get("b").unwrap().meta.target));
        assert_eq!(state.get("b").unwrap().queries, 0);
        let b = state.get("b").unwrap();
        assert!(crate::metrics::labels::of(&b.meta)
            .to_string()
            .contains("region=\"eu\""));
        assert!(state.get("c").is_none());
        let c_calls = calls_of(&fake, "c").len();
        tokio::time::sleep(Duration::from_secs(25)).await;
        assert!(state.get("a").unwrap().queries >= before_a + 2);
        assert!(state.get("b").unwrap().queries >= 2);
        assert!(state.get("d").unwrap().queries >= 2);
        assert_eq!(
            calls_of(&fake, "c").len(),
            c_calls,
            "removed target stopped"
        );
    }
}
