//! Locking shared by the daemon's modules.

use std::sync::{Mutex, MutexGuard};

/// Locks `m`, taking the data even if a panic poisoned it: every critical section in this
/// crate is a single map or field update that a panic cannot leave half-done, so the data is
/// still whole, and one panicking task must not take the exporter down with it.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
