//! Load benchmark: the exporter's polling engine against N canned-reply targets on loopback,
//! compared with a raw-socket floor measured in the same run.
//!
//! ```text
//! cargo bench --bench load -- --a2s 10000 --minecraft 0 --samp 0 --interval 5s --seconds 30
//! cargo bench --bench load -- --engine raw ...   # query::poll_with in a plain loop per target
//! cargo bench --bench load -- --a2s 100000 --interval 15s --seconds 15 --network both
//! cargo bench --bench load -- --engine exporter --a2s 100000 --interval 15s --seconds 15 --network both
//! cargo bench --bench load -- --table --targets 10000 --seconds 10   # every protocol (table.rs)
//! cargo bench --bench load -- --table --targets 1000 --no-reference   # without A2S beside each
//! ```
//!
//! More targets than one responder process can hold sockets for (`--per-child`, 16,000: the
//! machine allows 20,000 descriptors per process) are spread over several responder
//! children, each on its own loopback address (127.0.0.2, .3, ...) with ports counted up from
//! 10,000, so every target is a distinct (address, port) pair and the ephemeral range stays
//! free for the exporter's own sockets.
//!
//! `--network lossy` makes the responders delay each UDP reply by a random 5-150 ms
//! (`--delay-ms MIN-MAX`) and drop 1 % of them (`--drop-percent`); `--network both` runs the
//! daemon phase twice on the same targets, loopback first, so the two compare in one sitting.
//! `--silent-percent P` makes P % of the UDP targets (the same ones throughout) ignore every
//! request during the daemon phases: their polls wait until the timeout, as a fleet with
//! servers down keeps polls in flight.
//!
//! `--no-coalesce` sends each datagram on the shared UDP sockets with its own `send_to`
//! instead of one `sendmmsg` per batch (`net::udp::set_coalesced_sends`), to measure what
//! coalescing buys against the same command without it.
//!
//! `--engine daemon` (the default) runs the real daemon in-process (config parsed from TOML,
//! poll tasks on the daemon's own poller thread,
//! state) and also reports time to the first complete round, a one-target reload,
//! and `/metrics` rendering (wall time and allocations per render, counted by a wrapping
//! global allocator).
//!
//! `--engine exporter` runs the real release binary (`gameserver-exporter`, which cargo
//! builds for benches) as a child process on the same generated config, written to a
//! temporary file, listening on 127.0.0.1 with an ephemeral port, and measures it from
//! outside (exporter.rs): time to the first complete round (`/-/ready`), VmRSS and VmHWM
//! from /proc/PID/status, CPU per successful poll from /proc/PID/stat (clock ticks) between
//! two gzip `/metrics` scrapes whose counters give the polls, and VmHWM of each following
//! step alone (a gzip scrape, a plain one, a reload of the rewritten file through
//! `POST /-/reload`). Its RSS is the process an operator runs: no floors, no bench
//! bookkeeping; allocations are not counted there.
//!
//! The responder runs in a child process (this binary re-executed with `--responder A M S`),
//! so `getrusage(RUSAGE_SELF)` of this process counts only the exporter side. Each protocol
//! gets its own steady-state window: one interval of warm-up (first polls, challenges), then
//! `--seconds` of measurement. Prints CPU per successful poll and its ratio to the floor;
//! ratios, never wall-clock thresholds, are what the results compare.

// The counting allocator and the getrusage/clock_gettime calls need unsafe; nothing else
// in the package may (Cargo.toml [lints], and forbid in src/).
#![allow(unsafe_code)]

mod exporter;
// The integration tests' client; the benchmark uses a part of it.
#[allow(dead_code)]
#[path = "../../tests/it/support/http.rs"]
mod http;
mod page;
mod responder;
mod table;

use std::alloc::{GlobalAlloc, Layout};

use std::io::{BufRead, BufReader, Write};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::config;
use gameserver_exporter::daemon::Daemon;
use gameserver_exporter::metrics::{self, encode::Format, Globals};
use gameserver_exporter::query::{poll_with, Request, Session};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use tokio::time::Instant;

/// Counts allocations, so the render report can say how many a scrape makes; allocates with
/// mimalloc, as the exporter binary does (src/main.rs).
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
/// Bytes requested and not yet freed (malloc's own overhead not included): what the daemon's
/// structures hold, per target, without RSS noise from freed-but-kept pages.
static LIVE_BYTES: AtomicI64 = AtomicI64::new(0);
/// The most LIVE_BYTES ever reached (reset per phase): with VmHWM it tells malloc's
/// overhead and kept pages apart from a transient peak of the daemon's own.
static PEAK_BYTES: AtomicI64 = AtomicI64::new(0);

fn grew(by: i64) {
    let now = LIVE_BYTES.fetch_add(by, Ordering::Relaxed) + by;
    PEAK_BYTES.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: forwards every call to mimalloc unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        grew(layout.size() as i64);
        mimalloc::MiMalloc.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE_BYTES.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        mimalloc::MiMalloc.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        grew(layout.size() as i64);
        mimalloc::MiMalloc.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        grew(new_size as i64 - layout.size() as i64);
        mimalloc::MiMalloc.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// What polls the responders.
#[derive(Clone, Copy, PartialEq)]
enum Engine {
    /// A plain poll loop per target.
    Raw,
    /// The real daemon, in this process.
    Daemon,
    /// The real release binary, as a child process (exporter.rs).
    Exporter,
}

struct Args {
    engine: Engine,
    a2s: usize,
    minecraft: usize,
    samp: usize,
    interval: Duration,
    seconds: u64,
    timeout: Duration,
    floor_rounds: usize,
    /// Runtime worker threads (0: tokio's default, one per CPU).
    workers: usize,
    /// Start offsets are rounded down to a multiple of this, so polls fire in batches.
    slot: Duration,
    /// Daemon phases to run: loopback as is, and/or through the simulated network.
    phases: Vec<bool>,
    /// The simulated network: reply delay range and drop rate.
    delay_ms: (u64, u64),
    drop_ppm: u32,
    /// Sockets one responder child holds at most.
    per_child: usize,
    /// Targets that never answer during the daemon phases, in parts per million.
    silent_ppm: u32,
    /// `--table`: every protocol against its simulator, beside the floors (table.rs).
    table: bool,
    /// Targets per protocol in `--table` mode.
    targets: usize,
    /// `--protocols a,b`: the table's protocols (all of `Protocol::ALL` when empty).
    protocols: Vec<Protocol>,
    /// Simulators per child process in `--table` mode.
    sims_per_child: usize,
    /// `--table`: an A2S window right before each other protocol, its yardstick
    /// (`--no-reference` leaves them out).
    reference: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        engine: Engine::Daemon,
        a2s: 1000,
        minecraft: 0,
        samp: 0,
        interval: Duration::from_secs(5),
        seconds: 20,
        timeout: Duration::from_secs(2),
        floor_rounds: 20_000,
        workers: 0,
        slot: Duration::ZERO,
        phases: vec![false],
        delay_ms: (5, 150),
        drop_ppm: 10_000,
        per_child: 16_000,
        silent_ppm: 0,
        table: false,
        targets: 10_000,
        protocols: Vec::new(),
        sims_per_child: 2_000,
        reference: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        // `cargo bench` passes `--bench` to every harness-less bench.
        if flag == "--bench" {
            continue;
        }
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let num = |v: String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
        let dur = |v: String| humantime::parse_duration(&v).map_err(|e| format!("{flag}: {e}"));
        match flag.as_str() {
            "--engine" => {
                a.engine = match value()?.as_str() {
                    "daemon" => Engine::Daemon,
                    "raw" => Engine::Raw,
                    "exporter" => Engine::Exporter,
                    other => return Err(format!("--engine: daemon, exporter or raw, not {other}")),
                }
            }
            "--a2s" => a.a2s = num(value()?)?,
            "--minecraft" => a.minecraft = num(value()?)?,
            "--samp" => a.samp = num(value()?)?,
            "--interval" => a.interval = dur(value()?)?,
            "--seconds" => a.seconds = num(value()?)? as u64,
            "--timeout" => a.timeout = dur(value()?)?,
            "--floor-rounds" => a.floor_rounds = num(value()?)?,
            "--workers" => a.workers = num(value()?)?,
            "--slot" => a.slot = dur(value()?)?,
            "--network" => {
                a.phases = match value()?.as_str() {
                    "loopback" => vec![false],
                    "lossy" => vec![true],
                    "both" => vec![false, true],
                    other => {
                        return Err(format!("--network: loopback, lossy or both, not {other}"))
                    }
                }
            }
            "--delay-ms" => {
                let v = value()?;
                let (lo, hi) = v
                    .split_once('-')
                    .ok_or(format!("--delay-ms: MIN-MAX, not {v}"))?;
                let ms = |x: &str| x.parse::<u64>().map_err(|e| format!("--delay-ms: {e}"));
                a.delay_ms = (ms(lo)?, ms(hi)?);
                if a.delay_ms.0 > a.delay_ms.1 || a.delay_ms.1 == 0 {
                    return Err(format!("--delay-ms: {v} is not a range"));
                }
            }
            "--drop-percent" => {
                let v = value()?;
                let pct: f64 = v.parse().map_err(|e| format!("--drop-percent: {e}"))?;
                if !(0.0..=100.0).contains(&pct) {
                    return Err(format!("--drop-percent: {v} is not a percentage"));
                }
                a.drop_ppm = (pct * 10_000.0).round() as u32;
            }
            "--per-child" => a.per_child = num(value()?)?.max(1),
            "--silent-percent" => {
                let v = value()?;
                let pct: f64 = v.parse().map_err(|e| format!("--silent-percent: {e}"))?;
                if !(0.0..=100.0).contains(&pct) {
                    return Err(format!("--silent-percent: {v} is not a percentage"));
                }
                a.silent_ppm = (pct * 10_000.0).round() as u32;
            }
            "--table" => a.table = true,
            "--no-reference" => a.reference = false,
            // Measurement only: sends on the shared UDP sockets go out one send_to each
            // instead of one sendmmsg per batch, to show what coalescing buys.
            "--no-coalesce" => gameserver_exporter::net::udp::set_coalesced_sends(false),
            "--targets" => a.targets = num(value()?)?.max(1),
            "--sims-per-child" => a.sims_per_child = num(value()?)?.clamp(1, 8_000),
            "--protocols" => {
                for id in value()?.split(',').filter(|s| !s.is_empty()) {
                    let p = Protocol::from_name(id).ok_or(format!(
                        "--protocols: {id} is not one of {}",
                        Protocol::names()
                    ))?;
                    a.protocols.push(p);
                }
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--responder") {
        raise_fd_limit();
        if let Err(e) = responder::run_responder(responder::ChildOpts::parse(&argv[2..])) {
            eprintln!("responder: {e}");
            std::process::exit(1);
        }
        return;
    }
    if argv.get(1).map(String::as_str) == Some("--sims") {
        raise_fd_limit();
        if let Err(e) = table::run_sims(&argv[2..]) {
            eprintln!("simulators: {e}");
            std::process::exit(1);
        }
        return;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("load: {e}");
            std::process::exit(2);
        }
    };
    raise_fd_limit();
    if let Err(e) = run(&args) {
        eprintln!("load: {e}");
        std::process::exit(1);
    }
}

/// 10,000 targets need 10,000 responder sockets in the child and up to one socket per poll in
/// flight here; the soft limit is often 1024.
fn raise_fd_limit() {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: both calls only read or write the struct we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}

/// One responder child process.
struct Responder {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
}

/// The responder children and every target address they serve, per protocol.
struct Responders {
    children: Vec<Responder>,
    addrs: [Vec<SocketAddr>; 3],
}

impl Responders {
    /// Starts as many children as `per_child` sockets each need: one child on 127.0.0.1 with
    /// ephemeral ports (as before), or several on 127.0.0.2, .3, ... from port 10,000 up.
    fn start(counts: [usize; 3], args: &Args) -> std::io::Result<Responders> {
        let total: usize = counts.iter().sum();
        let k = total.div_ceil(args.per_child).max(1);
        if k > 250 {
            return Err(std::io::Error::other("too many responder children"));
        }
        let mut out = Responders {
            children: Vec::new(),
            addrs: Default::default(),
        };
        for i in 0..k {
            let share = |n: usize| n * (i + 1) / k - n * i / k;
            let opts = responder::ChildOpts {
                a2s: share(counts[0]),
                minecraft: share(counts[1]),
                samp: share(counts[2]),
                ip: if k == 1 {
                    Ipv4Addr::LOCALHOST
                } else {
                    Ipv4Addr::new(127, 0, 0, 2 + i as u8)
                },
                first_port: (k > 1).then_some(10_000),
                delay_ms: Some(args.delay_ms),
                drop_ppm: args.drop_ppm,
                silent_ppm: args.silent_ppm,
            };
            let mut child = Command::new(std::env::current_exe()?)
                .arg("--responder")
                .args(opts.to_args())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()?;
            let stdin = child.stdin.take();
            let mut stdout = BufReader::new(child.stdout.take().ok_or_else(no_pipe)?);
            for p in &mut out.addrs {
                let mut line = String::new();
                stdout.read_line(&mut line)?;
                p.extend(
                    line.split_whitespace()
                        .skip(1)
                        .filter_map(|s| s.parse::<u16>().ok())
                        .map(|port| SocketAddr::from((opts.ip, port))),
                );
            }
            out.children.push(Responder {
                child,
                stdin,
                stdout,
            });
        }
        Ok(out)
    }

    /// Sends `command` to every child and sums their counters: (A2S info requests,
    /// challenges issued, SA:MP `i` requests, Minecraft connections, replies dropped).
    fn command(&mut self, command: &str) -> std::io::Result<[u64; 5]> {
        let mut out = [0u64; 5];
        for c in &mut self.children {
            let stdin = c.stdin.as_mut().ok_or_else(no_pipe)?;
            writeln!(stdin, "{command}")?;
            stdin.flush()?;
            let mut line = String::new();
            c.stdout.read_line(&mut line)?;
            for (o, v) in out.iter_mut().zip(line.split_whitespace()) {
                *o += v.parse::<u64>().unwrap_or(0);
            }
        }
        Ok(out)
    }

    fn counters(&mut self) -> std::io::Result<[u64; 5]> {
        self.command("stats")
    }

    /// Makes the silent share of targets ignore requests, or answer again.
    fn silence(&mut self, on: bool) -> std::io::Result<()> {
        self.command(if on { "silent on" } else { "silent off" })
            .map(drop)
    }

    /// Switches the simulated network on or off in every child.
    fn network(&mut self, on: bool) -> std::io::Result<()> {
        self.command(if on { "net on" } else { "net off" })
            .map(drop)
    }
}

impl Drop for Responder {
    fn drop(&mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

fn no_pipe() -> std::io::Error {
    std::io::Error::other("responder pipe missing")
}

#[derive(Default)]
struct Stats {
    ok: AtomicU64,
    failed: AtomicU64,
    by_reason: [AtomicU64; Reason::ALL.len()],
}

struct Window {
    protocol: &'static str,
    /// "loopback" or the simulated network's description.
    network: String,
    targets: usize,
    polls_per_s: f64,
    success: f64,
    cpu_per_poll: Duration,
    /// Heap allocations in the whole process per successful poll over the window (not
    /// counted for the exporter child).
    allocs_per_poll: Option<f64>,
    /// Context switches per second over the window: the poller thread's (voluntary, i.e.
    /// the times it went to sleep waiting for work, and involuntary), when there is one.
    poller_switches: Option<(f64, f64)>,
    /// The whole process's voluntary context switches per second.
    process_wakeups: f64,
    failures: Vec<(Reason, u64)>,
    /// Appended to the summary line (the exporter engine's memory figures).
    extra: String,
    /// Median `/metrics` render in ms, (gzip, plain), where the daemon engine measured it.
    scrape_ms: Option<(f64, f64)>,
}

fn run(args: &Args) -> std::io::Result<()> {
    if args.table {
        return table::run_table(args);
    }
    let mut resp = Responders::start([args.a2s, args.minecraft, args.samp], args)?;
    println!(
        "# machine: {} cpu(s), {}; load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        load_average()
    );
    println!(
        "# engine: {}; targets: a2s {} minecraft {} samp {} on {} responder process(es); \
         interval {:?}, window {} s, poll timeout {:?}",
        match args.engine {
            Engine::Daemon => "daemon (scheduler + state)",
            Engine::Exporter => "exporter (the release binary as a child process)",
            Engine::Raw => "raw poll loop",
        },
        resp.addrs[0].len(),
        resp.addrs[1].len(),
        resp.addrs[2].len(),
        resp.children.len(),
        args.interval,
        args.seconds,
        args.timeout
    );

    println!(
        "# per-target structures (bytes, heap parts not included): Target {}, TargetMeta {}, \
         state Entry {}, Status {}, Failure {}, Request {}, Session {}",
        std::mem::size_of::<gameserver_exporter::target::Target>(),
        std::mem::size_of::<gameserver_exporter::state::TargetMeta>(),
        std::mem::size_of::<gameserver_exporter::state::Entry>(),
        std::mem::size_of::<gameserver_exporter::status::Status>(),
        std::mem::size_of::<gameserver_exporter::status::Failure>(),
        std::mem::size_of::<Request>(),
        std::mem::size_of::<Session>()
    );

    let [a2s, mc, samp] = std::mem::take(&mut resp.addrs);
    let mut floors = [None, None, None];
    if !a2s.is_empty() {
        floors[0] = Some(responder::raw_udp_floor(
            &a2s,
            &responder::a2s_request(),
            args.floor_rounds,
        )?);
    }
    if !mc.is_empty() {
        floors[1] = Some(responder::raw_tcp_floor(&mc, args.floor_rounds / 10)?);
    }
    if !samp.is_empty() {
        floors[2] = Some(responder::raw_udp_floor(
            &samp,
            &responder::samp_request(),
            args.floor_rounds,
        )?);
    }
    for (name, f) in [
        "a2s (UDP, info with challenge)",
        "minecraft (TCP, status+ping)",
        "samp (UDP, i)",
    ]
    .iter()
    .zip(&floors)
    {
        if let Some((cpu, ok)) = f {
            println!(
                "floor {name}: {:.2} µs CPU per query, blocking round trips ({ok} ok)",
                micros(*cpu)
            );
        }
    }
    // The batched floors: K requests in flight from one thread, as a batching poller has.
    // The daemon's second ratio is against sendto/recvfrom with K = 16.
    let mut batched = [None, None, None];
    for (i, name, addrs, request) in [
        (0, "a2s", &a2s, responder::a2s_request()),
        (2, "samp", &samp, responder::samp_request()),
    ] {
        if addrs.is_empty() {
            continue;
        }
        for (k, calls, what) in [
            (16, responder::Calls::Single, "sendto/recvfrom"),
            (32, responder::Calls::Single, "sendto/recvfrom"),
            (16, responder::Calls::Batched, "sendmmsg/recvmmsg"),
            (32, responder::Calls::Batched, "sendmmsg/recvmmsg"),
        ] {
            let (cpu, ok) =
                responder::batched_udp_floor(addrs, &request, args.floor_rounds, k, calls)?;
            println!(
                "floor {name} batched, K={k} in flight, {what}: {:.2} µs CPU per query ({ok} ok)",
                micros(cpu)
            );
            if k == 16 && calls == responder::Calls::Single {
                batched[i] = Some(cpu);
            }
        }
    }

    if args.silent_ppm > 0 {
        // After the floors, which wait for every reply.
        resp.silence(true)?;
        println!(
            "# {} % of the targets never answer during the daemon phases (--silent-percent)",
            f64::from(args.silent_ppm) / 10_000.0
        );
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if args.workers > 0 {
        builder.worker_threads(args.workers);
    }
    // Named, so a profile tells the exporter's threads from the responder's.
    let rt = builder.thread_name("exporter").enable_all().build()?;
    let plan = [
        (Protocol::A2s, "a2s", &a2s),
        (Protocol::Minecraft, "minecraft", &mc),
        (Protocol::Samp, "samp", &samp),
    ];
    let shaped = format!(
        "{}-{} ms delay, {} % dropped",
        args.delay_ms.0,
        args.delay_ms.1,
        f64::from(args.drop_ppm) / 10_000.0
    );
    for (i, (protocol, name, addrs)) in plan.into_iter().enumerate() {
        if addrs.is_empty() {
            continue;
        }
        for &lossy in &args.phases {
            resp.network(lossy)?;
            let mut network = if lossy {
                shaped.clone()
            } else {
                "loopback".to_string()
            };
            let before = resp.counters()?;
            let mut w = match args.engine {
                Engine::Daemon => rt.block_on(daemon_steady_state(protocol, name, addrs, args)),
                Engine::Raw => rt.block_on(steady_state(protocol, name, addrs, args)),
                Engine::Exporter => {
                    network.push_str(", exporter process");
                    exporter::exporter_steady_state(protocol, name, addrs, args, &rt)?
                }
            };
            w.network = network;
            let after = resp.counters()?;
            if protocol == Protocol::A2s {
                let polls = (w.polls_per_s * args.seconds as f64).max(1.0);
                println!(
                    "# a2s: responder saw {} info requests and issued {} challenges over the whole phase \
                     ({} polls in the window): steady state is one round trip when requests ≈ polls",
                    after[0] - before[0],
                    after[1] - before[1],
                    polls as u64
                );
            }
            if lossy {
                println!(
                    "# {name}: the simulated network dropped {} replies over the whole phase",
                    after[4] - before[4]
                );
            }
            let floor = floors[i].map(|f| f.0);
            print_window(&w, floor, batched[i]);
        }
    }
    drop(rt);
    resp.network(false)?;
    println!(
        "peak RSS (VmHWM): {:.1} MiB{}",
        vm_hwm_kib() as f64 / 1024.0,
        if args.engine == Engine::Exporter {
            " (this bench process; the exporter's are above)"
        } else {
            ""
        }
    );
    drop(resp);
    Ok(())
}

/// Prints one window; `floor` is the blocking floor, `batched` the batched one (K = 16,
/// sendto/recvfrom) where the protocol has one.
fn print_window(w: &Window, floor: Option<Duration>, batched: Option<Duration>) {
    let times = |f: Duration| w.cpu_per_poll.as_secs_f64() / f.as_secs_f64();
    let mut ratio = floor
        .filter(|f| !f.is_zero())
        .map(|f| format!("{:.2}x floor", times(f)))
        .unwrap_or_else(|| "no floor".into());
    if let Some(b) = batched.filter(|b| !b.is_zero()) {
        ratio.push_str(&format!(", {:.2}x batched floor K=16", times(b)));
    }
    println!(
        "{} ({}): {} targets, {:.0} polls/s, success {:.5}, {:.2} µs CPU per successful poll ({ratio}), \
         {}{}",
        w.protocol,
        w.network,
        w.targets,
        w.polls_per_s,
        w.success,
        micros(w.cpu_per_poll),
        w.allocs_per_poll.map_or_else(
            || "allocations not counted".to_string(),
            |a| format!("{a:.1} allocations per poll")
        ),
        w.extra
    );
    let per_poll = |x: f64| x / w.polls_per_s.max(1.0);
    match w.poller_switches {
        Some((vol, invol)) => println!(
            "  wake-ups: poller thread {vol:.0}/s voluntary ({:.3} per poll), {invol:.0}/s involuntary; \
             whole process {:.0}/s voluntary",
            per_poll(vol),
            w.process_wakeups
        ),
        None => println!(
            "  wake-ups: whole process {:.0}/s voluntary ({:.3} per poll)",
            w.process_wakeups,
            per_poll(w.process_wakeups)
        ),
    }
    for (r, n) in &w.failures {
        println!("  failures {r}: {n}");
    }
}

/// One tokio task per target, each on its own phase of the interval (as a jittered scheduler
/// spreads them), polling with a Session it keeps. Warm-up of one interval, then the window.
async fn steady_state(
    protocol: Protocol,
    name: &'static str,
    addrs: &[SocketAddr],
    args: &Args,
) -> Window {
    let stats = Arc::new(Stats::default());
    let n = addrs.len();
    let start = Instant::now() + Duration::from_millis(50);
    let window_start = start + args.interval;
    let window_end = window_start + Duration::from_secs(args.seconds);
    let mut tasks = Vec::with_capacity(n);
    {
        let (req, mut session) = (
            Request::new(protocol, Address::parse("127.0.0.1").expect("ip")),
            Session::default(),
        );
        println!(
            "# {name}: one poll's future is {} bytes",
            std::mem::size_of_val(&poll_with(&req, &mut session))
        );
    }
    for (i, addr) in addrs.iter().enumerate() {
        let mut req = Request::new(
            protocol,
            Address::parse(&addr.to_string()).expect("loopback"),
        );
        req.timeout = args.timeout;
        let mut offset = args.interval.mul_f64(i as f64 / n as f64);
        if !args.slot.is_zero() {
            offset = args.slot * (offset.as_nanos() / args.slot.as_nanos()) as u32;
        }
        let stats = stats.clone();
        let interval = args.interval;
        tasks.push(tokio::spawn(async move {
            let mut session = Session::default();
            let mut next = start + offset;
            while next < window_end {
                tokio::time::sleep_until(next).await;
                // Boxed, as the scheduler's Prober does: a sleeping target then holds only its
                // small loop state, not a whole poll's.
                let result = Box::pin(poll_with(&req, &mut session)).await;
                match result {
                    Ok(_) => stats.ok.fetch_add(1, Ordering::Relaxed),
                    Err(f) => {
                        let k = Reason::ALL.iter().position(|r| *r == f.reason).unwrap_or(0);
                        stats.by_reason[k].fetch_add(1, Ordering::Relaxed);
                        stats.failed.fetch_add(1, Ordering::Relaxed)
                    }
                };
                next += interval;
            }
        }));
    }
    tokio::time::sleep_until(window_start).await;
    let allocs0 = ALLOCATIONS.load(Ordering::Relaxed);
    let switches0 = process_switches();
    let (cpu0, ok0, fail0) = (
        responder::process_cpu(),
        stats.ok.load(Ordering::Relaxed),
        stats.failed.load(Ordering::Relaxed),
    );
    let reasons0: Vec<u64> = stats
        .by_reason
        .iter()
        .map(|a| a.load(Ordering::Relaxed))
        .collect();
    tokio::time::sleep_until(window_end).await;
    let allocs1 = ALLOCATIONS.load(Ordering::Relaxed);
    let switches1 = process_switches();
    let (cpu1, ok1, fail1) = (
        responder::process_cpu(),
        stats.ok.load(Ordering::Relaxed),
        stats.failed.load(Ordering::Relaxed),
    );
    for t in tasks {
        let _ = t.await;
    }
    let ok = ok1 - ok0;
    let failed = fail1 - fail0;
    let failures = Reason::ALL
        .iter()
        .zip(stats.by_reason.iter().zip(reasons0))
        .map(|(r, (a, b))| (*r, a.load(Ordering::Relaxed) - b))
        .filter(|(_, n)| *n > 0)
        .collect();
    Window {
        protocol: name,
        targets: n,
        polls_per_s: (ok + failed) as f64 / args.seconds as f64,
        success: ok as f64 / (ok + failed).max(1) as f64,
        cpu_per_poll: (cpu1 - cpu0) / ok.max(1) as u32,
        allocs_per_poll: Some((allocs1 - allocs0) as f64 / ok.max(1) as f64),
        poller_switches: None,
        process_wakeups: (switches1 - switches0) as f64 / args.seconds as f64,
        network: String::new(),
        failures,
        extra: String::new(),
        scrape_ms: None,
    }
}

/// The daemon's config for these targets, as an operator would write it, written to `path`
/// as it is generated: a 100,000-target text built in memory first (7 MB, grown by
/// doubling) was the bench's own and showed in the daemon's VmHWM. `first_interval` gives
/// the first target an interval of its own (the reload's one changed target).
fn write_config(
    path: &std::path::Path,
    protocol: Protocol,
    name: &str,
    addrs: &[SocketAddr],
    args: &Args,
    first_interval: Option<Duration>,
) -> u64 {
    let write = || -> std::io::Result<u64> {
        let mut w = std::io::BufWriter::new(std::fs::File::create(path)?);
        write!(
            w,
            "[exporter]\ninterval = \"{}\"\ntimeout = \"{}\"\nmax_concurrent_polls = {}\n",
            humantime::format_duration(args.interval),
            humantime::format_duration(args.timeout),
            addrs.len().max(1)
        )?;
        // A protocol that answers nothing without a password (Factorio's RCON) logs in
        // with the simulator's, from a file beside the config, as an operator's would.
        let password_file = match gameserver_exporter::simulate::simulator(protocol).password {
            Some(password) => {
                let file = path.with_extension("password");
                std::fs::write(&file, password)?;
                use std::os::unix::fs::PermissionsExt as _;
                std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
                Some(file)
            }
            None => None,
        };
        for (i, a) in addrs.iter().enumerate() {
            w.write_all(b"[[target]]\n")?;
            if let Some(file) = &password_file {
                writeln!(w, "password_file = {:?}", file.display().to_string())?;
            }
            if let (0, Some(d)) = (i, first_interval) {
                writeln!(w, "interval = \"{}\"", humantime::format_duration(d))?;
            }
            write!(
                w,
                "name = \"{name}-{i}\"\nprotocol = \"{}\"\naddress = \"{a}\"\n",
                protocol.as_str()
            )?;
        }
        w.flush()?;
        Ok(std::fs::metadata(path)?.len())
    };
    match write() {
        Ok(n) => n,
        Err(e) => panic!("cannot write {}: {e}", path.display()),
    }
}

/// Runs one reload and prints what it did: time, the diff, how many targets kept their
/// counters, its heap peak over the running daemon and what it left, VmRSS and VmHWM.
fn measured_reload<E: std::fmt::Display>(
    daemon: &Daemon,
    name: &str,
    what: &str,
    reload: impl FnOnce() -> Result<gameserver_exporter::scheduler::Diff, E>,
) {
    let before = queries(daemon);
    let live_before = LIVE_BYTES.load(Ordering::Relaxed);
    PEAK_BYTES.store(live_before, Ordering::Relaxed);
    let t = std::time::Instant::now();
    let reloaded = reload();
    let took = t.elapsed();
    let reload_peak = PEAK_BYTES.load(Ordering::Relaxed) - live_before;
    let reload_after = LIVE_BYTES.load(Ordering::Relaxed) - live_before;
    let kept_counters = kept(&before, daemon);
    drop(before);
    match reloaded {
        Ok(diff) => println!(
            "# {name}: {what} took {:.0} ms: tasks kept {}, changed {}, added {}, removed {}; \
             {kept_counters} targets kept their counters; heap peak +{:.1} MiB over the running \
             daemon, +{:.1} MiB after; VmRSS {:.1} MiB, VmHWM {:.1} MiB",
            took.as_secs_f64() * 1e3,
            diff.kept,
            diff.changed.len(),
            diff.added.len(),
            diff.removed.len(),
            reload_peak as f64 / MIB,
            reload_after as f64 / MIB,
            vm_kib("VmRSS:") as f64 / 1024.0,
            vm_hwm_kib() as f64 / 1024.0
        ),
        Err(e) => println!("# {name}: {what} failed: {e}"),
    }
}

/// Sums (successful polls, failed polls, failures per reason) over the daemon's state.
fn daemon_counts(d: &Daemon) -> (u64, u64, [u64; Reason::ALL.len()]) {
    let (mut queries, mut reasons) = (0, [0u64; Reason::ALL.len()]);
    each_entry(d, |e| {
        queries += e.queries;
        for (r, f) in reasons.iter_mut().zip(e.failures.counts()) {
            *r += f;
        }
    });
    let failed: u64 = reasons.iter().sum();
    (queries - failed, failed, reasons)
}

/// Visits every configured target's entry one at a time: a whole snapshot is one Entry per
/// target at once, which the bench would add to the daemon's peak RSS.
fn each_entry(d: &Daemon, mut f: impl FnMut(&gameserver_exporter::state::Entry)) {
    for t in &d.config().targets {
        if let Some(e) = d.state().get(&t.name) {
            f(&e);
        }
    }
}

/// The queries counter of every configured target, in config order.
fn queries(d: &Daemon) -> Vec<u64> {
    let mut out = Vec::new();
    each_entry(d, |e| out.push(e.queries));
    out
}

/// How many targets kept their counters across a reload (the same or more, and polled),
/// compared in place: a second vector of 100,000 counters would add to the peak measured.
fn kept(before: &[u64], d: &Daemon) -> usize {
    let mut before = before.iter();
    let mut kept = 0;
    each_entry(d, |e| {
        if before
            .next()
            .is_some_and(|b| e.queries >= *b && e.queries > 0)
        {
            kept += 1;
        }
    });
    kept
}

/// The real daemon (config from TOML, scheduler, state) against the responder; then a
/// one-target reload and `/metrics` renders. Also reports the heap the daemon holds per
/// target and the peak RSS before and with a scrape.
async fn daemon_steady_state(
    protocol: Protocol,
    name: &'static str,
    addrs: &[SocketAddr],
    args: &Args,
) -> Window {
    let live0 = LIVE_BYTES.load(Ordering::Relaxed);
    // The daemon reads its config from a file, as the exporter does (and as a reload
    // re-reads it); the bench writes it as it generates it, holding no copy.
    let path = std::env::temp_dir().join(format!("load-bench-{}-{name}.toml", std::process::id()));
    let file_bytes = write_config(&path, protocol, name, addrs, args, None);
    PEAK_BYTES.store(LIVE_BYTES.load(Ordering::Relaxed), Ordering::Relaxed);
    let cfg = match config::load(&path) {
        Ok(c) => c,
        Err(e) => panic!("generated config does not parse: {e}"),
    };
    let n = addrs.len().max(1) as f64;
    let live_config = (LIVE_BYTES.load(Ordering::Relaxed) - live0) as f64;
    let peak_config = (PEAK_BYTES.load(Ordering::Relaxed) - live0) as f64;
    PEAK_BYTES.store(LIVE_BYTES.load(Ordering::Relaxed), Ordering::Relaxed);
    let started = Instant::now();
    let daemon = Daemon::start(cfg, Some(path.clone()), Arc::new(QueryProber));
    let live_started = (LIVE_BYTES.load(Ordering::Relaxed) - live0) as f64;
    let peak_start = (PEAK_BYTES.load(Ordering::Relaxed) - live0) as f64;
    println!(
        "# {name}: start-up heap: config file {:.1} MiB; config::load peak {:.1} MiB, holds {:.1} MiB \
         after; Daemon::start peak {:.1} MiB, holds {:.1} MiB after; VmHWM {:.1} MiB",
        file_bytes as f64 / MIB,
        peak_config / MIB,
        live_config / MIB,
        peak_start / MIB,
        live_started / MIB,
        vm_hwm_kib() as f64 / 1024.0
    );
    PEAK_BYTES.store(LIVE_BYTES.load(Ordering::Relaxed), Ordering::Relaxed);
    while !daemon.state().ready() && started.elapsed() < args.interval * 3 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "# {name}: first complete round after {:.2} s (interval {:?}, ready: {}); peak heap \
         {:.1} MiB up to the daemon's start (config parsing included), {:.1} MiB since",
        started.elapsed().as_secs_f64(),
        args.interval,
        daemon.state().ready(),
        peak_config.max(peak_start) / MIB,
        (PEAK_BYTES.load(Ordering::Relaxed) - live0) as f64 / MIB
    );
    tokio::time::sleep_until(started + args.interval).await;
    let live = (LIVE_BYTES.load(Ordering::Relaxed) - live0) as f64;
    println!(
        "# {name}: heap per target: parsed config {:.0} bytes, + tasks and state at start {:.0}, \
         + after one interval (results, polls in flight) {:.0}",
        live_config / n,
        (live_started - live_config) / n,
        (live - live_started) / n
    );
    println!(
        "# {name}: after one interval the daemon holds {:.1} MiB of heap ({:.0} bytes per target, \
         config included; peak so far {:.1} MiB); VmRSS {:.1} MiB ({:.0} bytes per target), \
         VmHWM {:.1} MiB",
        live / MIB,
        live / n,
        (PEAK_BYTES.load(Ordering::Relaxed) - live0) as f64 / MIB,
        vm_kib("VmRSS:") as f64 / 1024.0,
        vm_kib("VmRSS:") as f64 * 1024.0 / n,
        vm_hwm_kib() as f64 / 1024.0
    );
    let poller = poller_tid();
    let allocs0 = ALLOCATIONS.load(Ordering::Relaxed);
    let switches0 = (
        process_switches(),
        poller.as_deref().and_then(thread_switches),
    );
    let (cpu0, (ok0, fail0, reasons0)) = (responder::process_cpu(), daemon_counts(&daemon));
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let (cpu1, (ok1, fail1, reasons1)) = (responder::process_cpu(), daemon_counts(&daemon));
    let allocs1 = ALLOCATIONS.load(Ordering::Relaxed);
    let switches1 = (
        process_switches(),
        poller.as_deref().and_then(thread_switches),
    );
    let secs = args.seconds as f64;
    let poller_switches = match (switches0.1, switches1.1) {
        (Some((v0, i0)), Some((v1, i1))) => {
            Some(((v1 - v0) as f64 / secs, (i1 - i0) as f64 / secs))
        }
        _ => None,
    };

    println!(
        "# {name}: after the window, before the reloads: VmRSS {:.1} MiB, VmHWM {:.1} MiB",
        vm_kib("VmRSS:") as f64 / 1024.0,
        vm_hwm_kib() as f64 / 1024.0
    );
    // Reload with one target changed: the other targets keep their tasks and counters.
    let mut changed = (*daemon.config()).clone();
    if let Some(t) = changed.targets.first_mut() {
        Arc::make_mut(t).interval += Duration::from_secs(1);
    }
    measured_reload(&daemon, name, "reload changing one target", || {
        Ok::<_, String>(daemon.apply(changed))
    });

    // An operator's reload: the file re-read and re-parsed, one target changed in it.
    let changed_interval = args.interval + Duration::from_secs(2);
    write_config(&path, protocol, name, addrs, args, Some(changed_interval));
    measured_reload(
        &daemon,
        name,
        "reload from the file (one target changed)",
        || daemon.reload(),
    );
    let _ = std::fs::remove_file(&path);

    println!(
        "# {name}: peak RSS (VmHWM) {:.1} MiB before the first scrape (reloads included)",
        vm_hwm_kib() as f64 / 1024.0
    );
    let scrape_ms = render_report(&daemon, name);
    drop(daemon);

    let (ok, failed) = (ok1 - ok0, fail1 - fail0);
    Window {
        protocol: name,
        network: String::new(),
        targets: addrs.len(),
        polls_per_s: (ok + failed) as f64 / secs,
        success: ok as f64 / (ok + failed).max(1) as f64,
        cpu_per_poll: (cpu1 - cpu0) / ok.max(1) as u32,
        allocs_per_poll: Some((allocs1 - allocs0) as f64 / ok.max(1) as f64),
        poller_switches,
        process_wakeups: (switches1.0 - switches0.0) as f64 / secs,
        failures: Reason::ALL
            .iter()
            .zip(reasons1.iter().zip(reasons0))
            .map(|(r, (a, b))| (*r, a - b))
            .filter(|(_, n)| *n > 0)
            .collect(),
        extra: String::new(),
        scrape_ms: Some(scrape_ms),
    }
}

const MIB: f64 = 1024.0 * 1024.0;

/// The daemon's poller thread (named `poller`): its directory under /proc/self/task.
fn poller_tid() -> Option<std::path::PathBuf> {
    std::fs::read_dir("/proc/self/task")
        .ok()?
        .filter_map(Result::ok)
        .find(|t| {
            std::fs::read_to_string(t.path().join("comm")).is_ok_and(|c| c.trim() == "poller")
        })
        .map(|t| t.path())
}

/// A thread's (voluntary, involuntary) context switches, from its /proc/PID/task/TID
/// directory: voluntary ones are the times it blocked waiting for work, i.e. one per wake-up.
fn thread_switches(task: &std::path::Path) -> Option<(u64, u64)> {
    let status = std::fs::read_to_string(task.join("status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse::<u64>().ok())
    };
    Some((
        field("voluntary_ctxt_switches:")?,
        field("nonvoluntary_ctxt_switches:")?,
    ))
}

/// Voluntary context switches of the whole process (every thread), from getrusage.
fn process_switches() -> u64 {
    // SAFETY: rusage is plain integers, for which all-zero is valid; getrusage writes into the
    // struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    ru.ru_nvcsw as u64
}

/// Renders `/metrics` as the HTTP handler does (snapshot, process stats, render into a sink
/// that takes the page piece by piece, as the streamed body does): first gzipped while
/// rendering, as Prometheus gets it, then plain, several times each; prints the median wall
/// time, the bytes, the allocations per plain render and the peak RSS after each kind.
fn render_report(daemon: &Daemon, name: &str) -> (f64, f64) {
    let globals = || Globals {
        reload: daemon.state().reload_info(),
        process: metrics::process::read(),
        shard: daemon.shard(),
    };
    let median = |t: &mut Vec<Duration>| {
        t.sort();
        (
            t[t.len() / 2].as_secs_f64() * 1e3,
            t[t.len() - 1].as_secs_f64() * 1e3,
        )
    };
    let mut times = Vec::new();
    let mut zipped = 0;
    let live0 = LIVE_BYTES.load(Ordering::Relaxed);
    PEAK_BYTES.store(live0, Ordering::Relaxed);
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let entries = daemon.state().snapshot();
        let mut z = gameserver_exporter::http::web::gzip::writer(Counted::default());
        let body = metrics::render_to(Format::Text, &entries, &globals(), &mut z)
            .and_then(|()| z.finish());
        times.push(t.elapsed());
        match body {
            Ok(b) => zipped = b.0,
            Err(e) => println!("{name}: gzip render failed: {e}"),
        }
    }
    let (med, max) = median(&mut times);
    let gzip_median = med;
    println!(
        "{name}: /metrics gzip (level {}, rendered into the compressor as served): median {med:.2} ms, \
         max {max:.2} ms, {zipped} bytes; the scrape's own peak heap {:.1} MiB (snapshot, \
         compressor, chunks, and entries copied by polls meanwhile); peak RSS after {:.1} MiB",
        gameserver_exporter::http::web::gzip::LEVEL,
        (PEAK_BYTES.load(Ordering::Relaxed) - live0) as f64 / MIB,
        vm_hwm_kib() as f64 / 1024.0
    );

    let mut times = Vec::new();
    let (mut allocs, mut bytes) = (0, 0);
    const RENDERS: u64 = 11;
    for _ in 0..RENDERS {
        let a0 = ALLOCATIONS.load(Ordering::Relaxed);
        let t = std::time::Instant::now();
        let entries = daemon.state().snapshot();
        let mut body = Counted::default();
        if let Err(e) = metrics::render_to(Format::Text, &entries, &globals(), &mut body) {
            println!("{name}: plain render failed: {e}");
        }
        times.push(t.elapsed());
        bytes = body.0;
        drop(entries);
        allocs += ALLOCATIONS.load(Ordering::Relaxed) - a0;
    }
    let (med, max) = median(&mut times);
    println!(
        "{name}: /metrics plain render for {} targets: median {med:.2} ms, max {max:.2} ms, {bytes} bytes \
         ({:.1} % gzipped), {} allocations per render; peak RSS after {:.1} MiB",
        daemon.state().snapshot().len(),
        zipped as f64 * 100.0 / bytes.max(1) as f64,
        allocs / RENDERS,
        vm_hwm_kib() as f64 / 1024.0
    );
    (gzip_median, med)
}

/// A sink that counts what it is given, standing for the client a streamed page goes to.
#[derive(Default)]
struct Counted(usize);

impl Write for Counted {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0 += b.len();
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn vm_hwm_kib() -> u64 {
    vm_kib("VmHWM:")
}

/// A `Vm*:` line of /proc/self/status, in KiB.
fn vm_kib(field: &str) -> u64 {
    status_kib(
        &std::fs::read_to_string("/proc/self/status").unwrap_or_default(),
        field,
    )
}

/// A `Vm*:` line of a /proc/PID/status text, in KiB (0 if missing).
fn status_kib(status: &str, field: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("model name"))
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}
