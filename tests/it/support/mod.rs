//! What several suites share: the in-process daemon, the HTTP client, the strict exposition
//! parser, the TLS simulator.

// Each suite uses its own subset of these.
#![allow(dead_code)]

pub mod catalogue;
pub mod daemon;
pub mod expo;
pub mod health;
pub mod http;
pub mod json_page;
pub mod patience;
pub mod poll_sim;
pub mod rest_api;
pub mod tls_sim;
pub mod wait;
