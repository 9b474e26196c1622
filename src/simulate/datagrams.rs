//! The loop every datagram simulator runs: receive, answer from the protocol's own code, send
//! the replies back to whoever asked.

use std::io;
use std::net::SocketAddr;

use tokio::net::UdpSocket;

use super::{SimServer, World, WorldState};
use crate::target::MAX_DATAGRAM;

/// What a datagram simulator does with one request: given the bytes, the sender and the
/// server's own address, the datagrams to send back (none to stay silent).
pub trait Answer: Send + 'static {
    fn answer(&mut self, request: &[u8], from: SocketAddr, own: SocketAddr) -> Vec<Vec<u8>>;
}

impl<F> Answer for F
where
    F: FnMut(&[u8], SocketAddr, SocketAddr) -> Vec<Vec<u8>> + Send + 'static,
{
    fn answer(&mut self, request: &[u8], from: SocketAddr, own: SocketAddr) -> Vec<Vec<u8>> {
        self(request, from, own)
    }
}

/// Binds 127.0.0.1 on a port of the system's choosing and answers every datagram with
/// `server` until the returned [`SimServer`] is dropped.
pub async fn spawn(server: impl Answer) -> io::Result<SimServer> {
    spawn_on(UdpSocket::bind("127.0.0.1:0").await?, server)
}

/// As [`spawn`], for a server whose answer depends only on the request and the world
/// (most one-shot UDP simulators): `answer` gets a snapshot of `world` taken as each request
/// arrives and returns the datagrams to send back (an `Option` for at most one, none to stay
/// silent).
pub async fn spawn_world<R>(
    world: World,
    mut answer: impl FnMut(&[u8], &WorldState) -> R + Send + 'static,
) -> io::Result<SimServer>
where
    R: IntoIterator<Item = Vec<u8>>,
{
    spawn(move |req: &[u8], _from, _own| answer(req, &world.snapshot()).into_iter().collect()).await
}

/// As [`spawn`], on a socket already bound (a simulator that also serves TCP on the same
/// port number).
pub fn spawn_on(socket: UdpSocket, mut server: impl Answer) -> io::Result<SimServer> {
    let own = socket.local_addr()?;
    let task = tokio::spawn(async move {
        let mut buf = vec![0u8; MAX_DATAGRAM];
        loop {
            let (n, from) = match socket.recv_from(&mut buf).await {
                Ok(x) => x,
                // ICMP errors from earlier sends surface here; they are no reason to stop.
                Err(_) => continue,
            };
            for reply in server.answer(&buf[..n], from, own) {
                let _ = socket.send_to(&reply, from).await;
            }
        }
    });
    Ok(SimServer::new(own, vec![task]))
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Every reply goes back to the sender in order; an empty answer sends nothing; the
    /// answer sees the server's own address.
    #[tokio::test]
    async fn answers_the_sender() {
        let server = spawn(|req: &[u8], _from, own: SocketAddr| match req {
            b"two" => vec![b"one".to_vec(), own.port().to_be_bytes().to_vec()],
            _ => vec![],
        })
        .await
        .unwrap();
        let client = UdpSocket::bind("127.0.0.1:0").await.unwrap();
        client.send_to(b"none", server.addr).await.unwrap();
        client.send_to(b"two", server.addr).await.unwrap();
        let mut buf = [0u8; 16];
        let wait = Duration::from_secs(2);
        let (n, from) = tokio::time::timeout(wait, client.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!((&buf[..n], from), (&b"one"[..], server.addr));
        let (n, _) = tokio::time::timeout(wait, client.recv_from(&mut buf))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(&buf[..n], server.addr.port().to_be_bytes());
        assert!(
            tokio::time::timeout(Duration::from_millis(100), client.recv_from(&mut buf))
                .await
                .is_err()
        );
    }
}
