//! TODO: daemon (config).
