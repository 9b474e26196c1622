//! A fleet of simulated game servers for the soak test (`benches/soak.sh`): N targets spread
//! over the four protocols, most healthy, about a third misbehaving in one of the simulators'
//! hostile ways. Writes two exporter configurations that differ in a few targets (so reloads
//! add, remove and change something) and serves until killed.
//!
//! Usage: simfleet <count> <out-dir> [interval] [timeout]
//! Writes <out-dir>/a.toml, <out-dir>/b.toml, then <out-dir>/ready (the listen port inside).

use std::fmt::Write as _;
use std::net::TcpListener;
use std::path::PathBuf;

use gameserver_exporter::simulate::{self, SimServer, World, WorldState};

/// Every `HOSTILE_EVERY`-th target of each protocol misbehaves.
const HOSTILE_EVERY: usize = 3;
/// Targets that exist in only one of the two configurations (each side).
const SWAPPED: usize = 5;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let count: usize = args.get(1).map_or(Ok(1000), |s| s.parse())?;
    let out = PathBuf::from(args.get(2).map_or("/tmp/simfleet", String::as_str));
    let interval = args.get(3).map_or("10s", String::as_str).to_string();
    let timeout = args.get(4).map_or("2s", String::as_str).to_string();
    std::fs::create_dir_all(&out)?;

    // Keep every server alive until the process is killed.
    let mut servers: Vec<SimServer> = Vec::with_capacity(count + 2 * SWAPPED);
    let mut targets: Vec<String> = Vec::with_capacity(count + 2 * SWAPPED);
    let mut kinds = [0usize; 4];
    for i in 0..count + 2 * SWAPPED {
        let kind = i % 4;
        let nth = kinds[kind];
        kinds[kind] += 1;
        let hostile = nth % HOSTILE_EVERY == HOSTILE_EVERY - 1;
        let world = World::new(WorldState {
            name: format!("fleet {i}"),
            players: (0..(i % 7) as i32)
                .map(|p| (format!("p{p}"), p, p as f32))
                .collect(),
            ..WorldState::default()
        });
        let (protocol, label, server) = spawn(kind, nth / HOSTILE_EVERY, hostile, world).await?;
        targets.push(format!(
            "[[target]]\nname = \"t{i:04}-{protocol}-{label}\"\nprotocol = \"{protocol}\"\naddress = \"{}\"\n",
            server.addr
        ));
        servers.push(server);
    }

    let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let head = format!(
        "[exporter]\nlisten = \"127.0.0.1:{port}\"\ninterval = \"{interval}\"\ntimeout = \"{timeout}\"\n\n"
    );
    // a: targets 0..count; b: drops the first SWAPPED, adds SWAPPED extra, and changes the
    // interval of the next SWAPPED (a changed target restarts under the same name).
    let mut a = head.clone();
    for t in &targets[..count] {
        a.push_str(t);
    }
    let mut b = head;
    for (i, t) in targets[SWAPPED..count + SWAPPED].iter().enumerate() {
        b.push_str(t);
        if i < SWAPPED {
            let _ = writeln!(b, "interval = \"7s\"");
        }
    }
    std::fs::write(out.join("a.toml"), a)?;
    std::fs::write(out.join("b.toml"), b)?;
    std::fs::write(out.join("ready"), format!("{port}\n"))?;
    eprintln!(
        "simfleet: {} simulators up, daemon port {port}, configs in {}",
        servers.len(),
        out.display()
    );
    std::future::pending::<()>().await;
    Ok(())
}

/// Starts simulator `kind` (0 a2s, 1 minecraft, 2 minecraft-query, 3 samp); a hostile one
/// cycles through that simulator's misbehaviours with `n`.
async fn spawn(
    kind: usize,
    n: usize,
    hostile: bool,
    world: World,
) -> std::io::Result<(&'static str, String, SimServer)> {
    use simulate::{a2s, mcquery, minecraft, samp};
    Ok(match kind {
        0 => {
            let all = [
                a2s::Misbehaviour::Silence,
                a2s::Misbehaviour::Truncated,
                a2s::Misbehaviour::LengthBeyondDatagram,
                a2s::Misbehaviour::EndlessSplit,
                a2s::Misbehaviour::CompressionBomb,
                a2s::Misbehaviour::ChallengeLoop,
                a2s::Misbehaviour::JunkFlood,
                a2s::Misbehaviour::Zeros,
            ];
            let m = if hostile {
                all[n % all.len()]
            } else {
                Default::default()
            };
            let config = a2s::A2sConfig {
                misbehaviour: m,
                ..Default::default()
            };
            ("a2s", format!("{m:?}"), a2s::spawn(world, config).await?)
        }
        1 => {
            let all = [
                minecraft::Misbehaviour::AcceptSilent,
                minecraft::Misbehaviour::Slowloris,
                minecraft::Misbehaviour::VarIntTooLong,
                minecraft::Misbehaviour::Announce2GiB,
                minecraft::Misbehaviour::InvalidJson,
                minecraft::Misbehaviour::DeepJson(10_000),
                minecraft::Misbehaviour::HugeJson(2 << 20),
                minecraft::Misbehaviour::LegacyOddSections,
                minecraft::Misbehaviour::ResetMidReply,
            ];
            let m = if hostile {
                all[n % all.len()]
            } else {
                Default::default()
            };
            let config = minecraft::McConfig {
                misbehaviour: m,
                ..Default::default()
            };
            let label = format!("{m:?}").replace(['(', ')'], "");
            ("minecraft", label, minecraft::spawn(world, config).await?)
        }
        2 => {
            let all = [
                mcquery::Misbehaviour::Silence,
                mcquery::Misbehaviour::NonNumericToken,
                mcquery::Misbehaviour::Truncated,
                mcquery::Misbehaviour::WrongSession,
                mcquery::Misbehaviour::JunkFlood,
            ];
            let m = if hostile {
                all[n % all.len()]
            } else {
                Default::default()
            };
            let config = mcquery::McQueryConfig {
                misbehaviour: m,
                ..Default::default()
            };
            let label = format!("{m:?}");
            (
                "minecraft-query",
                label,
                mcquery::spawn(world, config).await?,
            )
        }
        _ => {
            let all = [
                samp::Misbehaviour::Silence,
                samp::Misbehaviour::Truncated,
                samp::Misbehaviour::LengthBeyondDatagram,
                samp::Misbehaviour::WrongHeader,
                samp::Misbehaviour::JunkFlood,
            ];
            let m = if hostile {
                all[n % all.len()]
            } else {
                Default::default()
            };
            let config = samp::SampConfig {
                misbehaviour: m,
                ..Default::default()
            };
            ("samp", format!("{m:?}"), samp::spawn(world, config).await?)
        }
    })
}
