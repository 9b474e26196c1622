//! TODO: daemon (state).
