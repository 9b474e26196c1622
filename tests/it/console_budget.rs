//! Issue 31's budget for the admin consoles, measured at the console's port: one connection
//! (so one login) per poll, closed by the exporter at the poll's end, for every
//! dialect (Source RCON, Rust's WebRCON, 7 Days to Die's telnet). A counting TCP relay on
//! 127.0.0.1:0 stands between the poll and each console simulator.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::support::{health, wait};
use gameserver_exporter::query::poll;
use gameserver_exporter::simulate::titles::{self, DEMO_CONSOLE_PASSWORD};
use gameserver_exporter::simulate::{World, WorldState};
use gameserver_exporter::target::Console;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Connections the relay accepted, and how many of them the client has not closed yet.
#[derive(Default)]
struct Counts {
    accepted: AtomicUsize,
    open: AtomicUsize,
}

/// Relays 127.0.0.1:0 to `console`, counting connections; a connection counts as closed
/// when the client's side ends (the exporter closed it), whatever the console does after.
async fn relay(console: SocketAddr) -> (SocketAddr, Arc<Counts>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counts = Arc::new(Counts::default());
    let c = counts.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            c.accepted.fetch_add(1, Ordering::SeqCst);
            c.open.fetch_add(1, Ordering::SeqCst);
            let c = c.clone();
            tokio::spawn(async move {
                let Ok(server) = TcpStream::connect(console).await else {
                    c.open.fetch_sub(1, Ordering::SeqCst);
                    return;
                };
                let (mut cr, mut cw) = client.into_split();
                let (mut sr, mut sw) = server.into_split();
                let back = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut sr, &mut cw).await;
                });
                let mut buf = [0u8; 4096];
                loop {
                    match cr.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if sw.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
                c.open.fetch_sub(1, Ordering::SeqCst);
                let _ = sw.shutdown().await;
                back.abort();
            });
        }
    });
    (addr, counts)
}

#[tokio::test]
async fn one_connection_per_poll_closed_by_the_exporter() {
    const POLLS: usize = 3;
    for (id, console) in [
        ("tf", Console::Source),
        ("projectzomboid", Console::Source),
        ("rust", Console::WebRcon),
        ("sdtd", Console::SdtdTelnet),
    ] {
        let world = World::new(WorldState {
            players: vec![("alice".into(), 3, 60.0)],
            ..WorldState::default()
        });
        let game = titles::spawn_demo(id, console, world).await.unwrap();
        let (console_addr, _) = game.rcon.expect("a console beside the game");
        let (relayed, counts) = relay(console_addr).await;
        for n in 1..=POLLS {
            let mut req =
                health::request(game.addr, console, relayed.port(), DEMO_CONSOLE_PASSWORD);
            if id == "projectzomboid" {
                req.game = Some("projectzomboid");
            }
            let s = poll(&req).await.unwrap();
            assert!(
                !s.extras.contains_key("health_error"),
                "{id}: {:?}",
                s.extras
            );
            assert_eq!(
                counts.accepted.load(Ordering::SeqCst),
                n,
                "{id}: connections"
            );
            // Closed by the exporter: the relay sees the client's end (it may lag the poll's
            // return by a scheduling step, never by a timeout).
            wait::until(&format!("{id}: poll {n}'s connection closed"), || async {
                (counts.open.load(Ordering::SeqCst) == 0).then_some(())
            })
            .await;
        }
    }
}
