//! The extras key every console dialect notes its failure under: one file below `health`
//! and the dialects it dispatches to (`webrcon_health`, `sdtd_health`), which all need it.

/// The extras key naming why the health query failed.
pub const HEALTH_ERROR: &str = "health_error";
