//! Serves the simulated Unreal 2 (UT2004) server on 127.0.0.1 until killed, for the qstat
//! interop check (`.ci/interop/qstat-unreal2.sh`).
//!
//! Prints `addr=HOST:PORT`, then what our own decoder reads from it:
//! `ours name=... map=... players=N max=M`, then serves until the process is killed.

use std::time::{Duration, Instant};

use gameserver_exporter::protocol::unreal2::{self, Poll, Step, Want, DEFAULT_QUIET_GAP};
use gameserver_exporter::simulate::unreal2::{spawn, Unreal2Config};
use gameserver_exporter::simulate::{World, WorldState};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let world = World::new(WorldState {
        name: "Interop UT2004".into(),
        map: "DM-Rankin".into(),
        game: "xDeathMatch".into(),
        max: 16,
        players: vec![("Malcolm".into(), 25, 0.0), ("Brock".into(), 17, 0.0)],
        rules: vec![("ServerMode".into(), "dedicated".into())],
        ..WorldState::default()
    });
    // No colour code in the name: qstat 2.17 skips one byte too many after a colour code
    // (docs/protocols/unreal2.md), so a coloured name would differ by its first letter.
    let server = spawn(world, Unreal2Config::default()).await?;
    println!("addr={}", server.addr);

    let sock = tokio::net::UdpSocket::bind("127.0.0.1:0").await?;
    sock.connect(server.addr).await?;
    let start = Instant::now();
    let want = Want {
        rules: true,
        players: true,
    };
    let (mut poll, requests) = Poll::start(
        want,
        start,
        start + Duration::from_secs(3),
        DEFAULT_QUIET_GAP,
    );
    for r in requests {
        sock.send(&r).await?;
    }
    let mut buf = vec![0u8; 65_536];
    let outcome = loop {
        let now = Instant::now();
        match poll.step(now) {
            Step::Done(o) => break o,
            Step::Failed(e) => return Err(e.into()),
            Step::Wait(until) => {
                let wait = until.saturating_duration_since(now);
                if let Ok(Ok(n)) = tokio::time::timeout(wait, sock.recv(&mut buf)).await {
                    poll.receive(&buf[..n], Instant::now());
                }
            }
        }
    };
    let s = unreal2::to_status(&outcome, start.elapsed(), false);
    println!(
        "ours name={} map={} players={} max={}",
        s.name,
        s.map.unwrap_or_default(),
        s.online,
        s.max
    );
    std::future::pending::<()>().await;
    Ok(())
}
