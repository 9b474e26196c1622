//! The accept loop every TCP simulator shares: bind 127.0.0.1 port 0, accept, one task per
//! connection, stop when the [`SimServer`] is dropped. A simulator writes only its session.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;
use tokio::time::timeout;

use super::{SimServer, World};

/// A protocol simulator's connection is dropped after this long, whatever the client does
/// (a misbehaviour that stalls or floods must not hold a task forever).
pub const MAX_CONNECTION: Duration = Duration::from_secs(30);

/// Serves a protocol simulator on 127.0.0.1, on a port of the system's choosing, until the
/// returned [`SimServer`] is dropped: each connection runs `serve` with the world and the
/// shared configuration, Nagle off (a misbehaviour's pieces reach the client as separate
/// segments) and cut off after [`MAX_CONNECTION`].
pub async fn serve_tcp<C, F, Fut>(world: World, config: C, serve: F) -> io::Result<SimServer>
where
    C: Send + Sync + 'static,
    F: Fn(TcpStream, World, Arc<C>) -> Fut + Send + 'static,
    Fut: Future + Send + 'static,
{
    let config = Arc::new(config);
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    serve_on(listener, move |stream, _peer| {
        let _ = stream.set_nodelay(true);
        let session = serve(stream, world.clone(), config.clone());
        async move {
            let _ = timeout(MAX_CONNECTION, session).await;
        }
    })
}

/// Serves `session` for every connection to `listener` (already bound: a port shared with
/// UDP, or a server that sets its sockets up itself) until the returned [`SimServer`] is
/// dropped.
pub fn serve_on<S, Fut>(listener: TcpListener, session: S) -> io::Result<SimServer>
where
    S: Fn(TcpStream, SocketAddr) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let addr = listener.local_addr()?;
    Ok(SimServer::new(addr, vec![accept_loop(listener, session)]))
}

/// The accept loop alone, for a simulator that runs other tasks beside it: each connection
/// to `listener` runs `session` on a task of its own. Aborting the handle stops accepting;
/// sessions already running end on their own.
pub fn accept_loop<S, Fut>(listener: TcpListener, session: S) -> JoinHandle<()>
where
    S: Fn(TcpStream, SocketAddr) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    tokio::spawn(async move {
        loop {
            // A failed accept (a client gone before it was taken, descriptors running out
            // under a flood test) loses that connection only.
            let Ok((stream, peer)) = listener.accept().await else {
                continue;
            };
            tokio::spawn(session(stream, peer));
        }
    })
}

/// Writes `bytes` at once, or in pieces of `piece` bytes each flushed on its own (a
/// misbehaviour splitting a reply across segments; Nagle is off, see [`serve_tcp`]).
/// `Some(1)` writes byte by byte (every simulator's `Bytewise`).
pub async fn write_split(
    stream: &mut TcpStream,
    bytes: &[u8],
    piece: Option<usize>,
) -> io::Result<()> {
    let Some(n) = piece else {
        return stream.write_all(bytes).await;
    };
    for piece in bytes.chunks(n.max(1)) {
        stream.write_all(piece).await?;
        stream.flush().await?;
    }
    Ok(())
}
