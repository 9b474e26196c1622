//! Simulated server for `samp`: TODO.
