//! Simulated server for `minecraft`: TODO.
