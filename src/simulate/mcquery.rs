//! Simulated server for `mcquery`: TODO.
