//! Minecraft Java edition: server list ping (1.7+ and legacy) over TCP, and Query (GameSpy4)
//! over UDP.

pub mod health;
pub mod legacy;
pub mod motd;
pub mod query;
pub mod query_exchange;
pub mod query_spec;
pub mod slp;
pub mod slp_exchange;
pub mod slp_spec;
pub mod status_json;
pub mod varint;
