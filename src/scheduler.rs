//! TODO: daemon (scheduler).
