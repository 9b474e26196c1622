//! Name resolution with deadlines. IP literals skip DNS entirely.

use std::net::SocketAddr;

use tokio::time::Instant;

use super::NetError;
use crate::target::Address;

/// Resolves `address` to one socket address, using `default_port` when it names none.
/// IPv4 answers are preferred: most game servers listen on IPv4 only.
pub async fn resolve(
    address: &Address,
    default_port: u16,
    deadline: Instant,
) -> Result<SocketAddr, NetError> {
    let port = address.port.unwrap_or(default_port);
    if let Some(ip) = address.ip() {
        return Ok(SocketAddr::new(ip, port));
    }
    let host = &*address.host;
    let lookup = tokio::net::lookup_host((host, port));
    let addrs: Vec<SocketAddr> = match tokio::time::timeout_at(deadline, lookup).await {
        Ok(Ok(it)) => it.collect(),
        Ok(Err(e)) => {
            return Err(NetError::Dns {
                name: host.to_string(),
                detail: e.to_string(),
            })
        }
        Err(_) => return Err(NetError::Timeout),
    };
    addrs
        .iter()
        .find(|a| a.is_ipv4())
        .or(addrs.first())
        .copied()
        .ok_or(NetError::Dns {
            name: host.to_string(),
            detail: "no addresses".into(),
        })
}
