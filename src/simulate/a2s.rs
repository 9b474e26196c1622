//! Simulated server for `a2s`: TODO.
