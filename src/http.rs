//! TODO: daemon (http).
