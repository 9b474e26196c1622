//! The thread the poll tasks run on: a single-threaded tokio runtime of its own, apart from
//! the HTTP runtime.
//!
//! Why one thread: a poll is a few microseconds of work between two waits, and on a
//! multi-threaded runtime every wake-up could hand the task to the other worker (unpark,
//! futex, eventfd, work stealing), which cost more than the poll itself. Load bench, 10,000
//! A2S targets at 5 s: 26 µs of CPU per poll on two workers, 18 µs on one (benches/RESULTS.md).
//! One thread ran 10,000 A2S polls per second at about 16 % of a core in the same bench.
//!
//! Why apart from HTTP: rendering `/metrics` for 10,000 targets takes tens of milliseconds;
//! on the pollers' thread that would delay replies being read and inflate measured latency.

use std::sync::Mutex;
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::sync::oneshot;

use crate::sync::lock;

/// How long stopping waits for the runtime's blocking threads (DNS lookups in flight).
const STOP_GRACE: Duration = Duration::from_secs(1);

/// A running poller thread; dropping it stops the runtime, which drops every task on it
/// (and closes their sockets).
#[derive(Debug)]
pub struct PollerThread {
    handle: Handle,
    stop: Mutex<Option<oneshot::Sender<()>>>,
}

impl PollerThread {
    pub fn start() -> std::io::Result<PollerThread> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("poller".into())
            .spawn(move || {
                // Either a stop signal or the sender being dropped ends the runtime.
                let _ = runtime.block_on(stopped);
                runtime.shutdown_timeout(STOP_GRACE);
            })?;
        Ok(PollerThread {
            handle,
            stop: Mutex::new(Some(stop)),
        })
    }

    /// Where poll tasks are spawned.
    pub fn handle(&self) -> &Handle {
        &self.handle
    }
}

impl Drop for PollerThread {
    fn drop(&mut self) {
        let stop = lock(&self.stop).take();
        if let Some(stop) = stop {
            let _ = stop.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    use super::*;

    /// Tasks run on the poller's own thread, and stop when it is dropped.
    #[test]
    fn runs_and_stops_tasks() {
        let poller = PollerThread::start().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        poller.handle().spawn(async move {
            tx.send(std::thread::current().name().map(String::from))
                .unwrap();
        });
        let name = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(name.as_deref(), Some("poller"));

        struct SetOnDrop(Arc<AtomicBool>);
        impl Drop for SetOnDrop {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let dropped = Arc::new(AtomicBool::new(false));
        let guard = SetOnDrop(dropped.clone());
        poller.handle().spawn(async move {
            let _guard = guard;
            std::future::pending::<()>().await;
        });
        drop(poller);
        for _ in 0..500 {
            if dropped.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        panic!("a task on the poller outlived it");
    }
}
