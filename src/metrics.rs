//! TODO: daemon (metrics).
