//! Waiting for an event instead of for the clock: a test polls for what it needs and only a
//! hang reaches the deadline. A loaded machine makes events late, never wrong.

use std::future::Future;
use std::time::{Duration, Instant};

pub use super::daemon::DEADLINE;

/// Asks `probe` again every 20 ms until it yields `Some`, and returns that; panics with
/// `what` (and the last state `probe` saw, if it keeps one) after [`DEADLINE`].
pub async fn until<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let started = Instant::now();
    loop {
        if let Some(v) = probe().await {
            return v;
        }
        assert!(started.elapsed() < DEADLINE, "{what}: not in {DEADLINE:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
