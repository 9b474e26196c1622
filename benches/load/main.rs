//! Load benchmark: the exporter's polling engine against N canned-reply targets on loopback,
//! compared with a raw-socket floor measured in the same run.
//!
//! ```text
//! cargo bench --bench load -- --a2s 10000 --minecraft 0 --samp 0 --interval 5s --seconds 30
//! cargo bench --bench load -- --engine raw ...   # query::poll_with in a plain loop per target
//! ```
//!
//! `--engine daemon` (the default) runs the real daemon in-process (config parsed from TOML,
//! target tasks on the daemon's own poller thread,
//! state) and also reports time to the first complete round, a one-target reload,
//! and `/metrics` rendering (wall time and allocations per render, counted by a wrapping
//! global allocator).
//!
//! The responder runs in a child process (this binary re-executed with `--responder A M S`),
//! so `getrusage(RUSAGE_SELF)` of this process counts only the exporter side. Each protocol
//! gets its own steady-state window: one interval of warm-up (first polls, challenges), then
//! `--seconds` of measurement. Prints CPU per successful poll and its ratio to the floor;
//! ratios, never wall-clock thresholds, are what the results compare.

// The counting allocator and the getrusage/clock_gettime calls need unsafe; nothing else
// in the package may (Cargo.toml [lints], and forbid in src/).
#![allow(unsafe_code)]

mod responder;

use std::alloc::{GlobalAlloc, Layout, System};

use std::io::{BufRead, BufReader, Write};
use std::net::SocketAddr;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::config;
use gameserver_exporter::handles::Daemon;
use gameserver_exporter::metrics::{self, encode::Format, Globals};
use gameserver_exporter::query::{poll_with, Request, Session};
use gameserver_exporter::scheduler::QueryProber;
use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Address;
use gameserver_exporter::target::Protocol;
use tokio::time::Instant;

/// Counts allocations, so the render report can say how many a scrape makes.
struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards every call to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.alloc_zeroed(layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

struct Args {
    /// Drive the real daemon (true) or a plain poll loop per target.
    daemon: bool,
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
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        daemon: true,
        a2s: 1000,
        minecraft: 0,
        samp: 0,
        interval: Duration::from_secs(5),
        seconds: 20,
        timeout: Duration::from_secs(2),
        floor_rounds: 20_000,
        workers: 0,
        slot: Duration::ZERO,
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
                a.daemon = match value()?.as_str() {
                    "daemon" => true,
                    "raw" => false,
                    other => return Err(format!("--engine: daemon or raw, not {other}")),
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
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(a)
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("--responder") {
        let n = |i: usize| argv.get(i).and_then(|s| s.parse().ok()).unwrap_or(0);
        raise_fd_limit();
        if let Err(e) = responder::run_responder(n(2), n(3), n(4)) {
            eprintln!("responder: {e}");
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

struct Responder {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<std::process::ChildStdout>,
    ports: [Vec<u16>; 3],
}

impl Responder {
    fn start(a2s: usize, minecraft: usize, samp: usize) -> std::io::Result<Responder> {
        let mut child = Command::new(std::env::current_exe()?)
            .args(["--responder", &a2s.to_string(), &minecraft.to_string()])
            .arg(samp.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take();
        let mut stdout = BufReader::new(child.stdout.take().ok_or_else(no_pipe)?);
        let mut ports: [Vec<u16>; 3] = Default::default();
        for p in &mut ports {
            let mut line = String::new();
            stdout.read_line(&mut line)?;
            *p = line
                .split_whitespace()
                .skip(1)
                .filter_map(|s| s.parse().ok())
                .collect();
        }
        Ok(Responder {
            child,
            stdin,
            stdout,
            ports,
        })
    }

    /// The responder's request counters: (A2S info requests, challenges issued, SA:MP `i`
    /// requests, Minecraft connections).
    fn counters(&mut self) -> std::io::Result<[u64; 4]> {
        let stdin = self.stdin.as_mut().ok_or_else(no_pipe)?;
        stdin.write_all(b"stats\n")?;
        stdin.flush()?;
        let mut line = String::new();
        self.stdout.read_line(&mut line)?;
        let mut out = [0u64; 4];
        for (o, v) in out.iter_mut().zip(line.split_whitespace()) {
            *o = v.parse().unwrap_or(0);
        }
        Ok(out)
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

fn loopback(ports: &[u16]) -> Vec<SocketAddr> {
    ports
        .iter()
        .map(|&p| SocketAddr::from(([127, 0, 0, 1], p)))
        .collect()
}

#[derive(Default)]
struct Stats {
    ok: AtomicU64,
    failed: AtomicU64,
    by_reason: [AtomicU64; Reason::ALL.len()],
}

struct Window {
    protocol: &'static str,
    targets: usize,
    polls_per_s: f64,
    success: f64,
    cpu_per_poll: Duration,
    /// Heap allocations in the whole process per successful poll over the window.
    allocs_per_poll: f64,
    failures: Vec<(Reason, u64)>,
}

fn run(args: &Args) -> std::io::Result<()> {
    let mut resp = Responder::start(args.a2s, args.minecraft, args.samp)?;
    println!(
        "# machine: {} cpu(s), {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model()
    );
    println!(
        "# engine: {}; targets: a2s {} minecraft {} samp {}; interval {:?}, window {} s, poll timeout {:?}",
        if args.daemon { "daemon (scheduler + state)" } else { "raw poll loop" },
        resp.ports[0].len(),
        resp.ports[1].len(),
        resp.ports[2].len(),
        args.interval,
        args.seconds,
        args.timeout
    );

    let a2s = loopback(&resp.ports[0]);
    let mc = loopback(&resp.ports[1]);
    let samp = loopback(&resp.ports[2]);
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
                "floor {name}: {:.2} µs CPU per query ({ok} ok)",
                micros(*cpu)
            );
        }
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
    for (i, (protocol, name, addrs)) in plan.into_iter().enumerate() {
        if addrs.is_empty() {
            continue;
        }
        let before = resp.counters()?;
        let w = if args.daemon {
            rt.block_on(daemon_steady_state(protocol, name, addrs, args))
        } else {
            rt.block_on(steady_state(protocol, name, addrs, args))
        };
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
        let floor = floors[i].map(|f| f.0);
        print_window(&w, floor);
    }
    drop(rt);
    println!("peak RSS (VmHWM): {:.1} MiB", vm_hwm_kib() as f64 / 1024.0);
    drop(resp);
    Ok(())
}

fn print_window(w: &Window, floor: Option<Duration>) {
    let ratio = floor
        .filter(|f| !f.is_zero())
        .map(|f| {
            format!(
                "{:.2}x floor",
                w.cpu_per_poll.as_secs_f64() / f.as_secs_f64()
            )
        })
        .unwrap_or_else(|| "no floor".into());
    println!(
        "{}: {} targets, {:.0} polls/s, success {:.4}, {:.2} µs CPU per successful poll ({ratio}), \
         {:.1} allocations per poll",
        w.protocol,
        w.targets,
        w.polls_per_s,
        w.success,
        micros(w.cpu_per_poll),
        w.allocs_per_poll
    );
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
        allocs_per_poll: (allocs1 - allocs0) as f64 / ok.max(1) as f64,
        failures,
    }
}

/// The daemon's config for these targets, as an operator would write it.
fn config_text(protocol: Protocol, name: &str, addrs: &[SocketAddr], args: &Args) -> String {
    let mut t = format!(
        "[exporter]\ninterval = \"{}\"\ntimeout = \"{}\"\nmax_concurrent_polls = {}\n",
        humantime::format_duration(args.interval),
        humantime::format_duration(args.timeout),
        addrs.len().max(1)
    );
    for (i, a) in addrs.iter().enumerate() {
        t.push_str(&format!(
            "[[target]]\nname = \"{name}-{i}\"\nprotocol = \"{}\"\naddress = \"{a}\"\n",
            protocol.as_str()
        ));
    }
    t
}

/// Sums (successful polls, failed polls, failures per reason) over the daemon's state.
fn daemon_counts(d: &Daemon) -> (u64, u64, [u64; Reason::ALL.len()]) {
    let (mut queries, mut reasons) = (0, [0u64; Reason::ALL.len()]);
    for e in d.state().snapshot() {
        queries += e.queries;
        for (r, f) in reasons.iter_mut().zip(e.failures) {
            *r += f;
        }
    }
    let failed: u64 = reasons.iter().sum();
    (queries - failed, failed, reasons)
}

/// The real daemon (config from TOML, scheduler, state) against the responder; then a
/// one-target reload and `/metrics` renders.
async fn daemon_steady_state(
    protocol: Protocol,
    name: &'static str,
    addrs: &[SocketAddr],
    args: &Args,
) -> Window {
    let text = config_text(protocol, name, addrs, args);
    let cfg = match config::parse("load.toml", &text) {
        Ok(c) => c,
        Err(e) => panic!("generated config does not parse: {e}"),
    };
    let started = Instant::now();
    let daemon = Daemon::start(cfg.clone(), None, Arc::new(QueryProber));
    while !daemon.state().ready() && started.elapsed() < args.interval * 3 {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "# {name}: first complete round after {:.2} s (interval {:?}, ready: {})",
        started.elapsed().as_secs_f64(),
        args.interval,
        daemon.state().ready()
    );
    tokio::time::sleep_until(started + args.interval).await;
    let allocs0 = ALLOCATIONS.load(Ordering::Relaxed);
    let (cpu0, (ok0, fail0, reasons0)) = (responder::process_cpu(), daemon_counts(&daemon));
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    let (cpu1, (ok1, fail1, reasons1)) = (responder::process_cpu(), daemon_counts(&daemon));
    let allocs1 = ALLOCATIONS.load(Ordering::Relaxed);

    // Reload with one target changed: the other targets keep their tasks and counters.
    let mut changed = cfg.clone();
    if let Some(t) = changed.targets.first_mut() {
        t.interval += Duration::from_secs(1);
    }
    let before: Vec<u64> = daemon
        .state()
        .snapshot()
        .iter()
        .map(|e| e.queries)
        .collect();
    let diff = daemon.apply(changed);
    let after: Vec<u64> = daemon
        .state()
        .snapshot()
        .iter()
        .map(|e| e.queries)
        .collect();
    let kept_counters = before
        .iter()
        .zip(&after)
        .filter(|(b, a)| a >= b && **a > 0)
        .count();
    println!(
        "# {name}: reload changing one target: kept {}, changed {}, added {}, removed {}; \
         {kept_counters} targets kept their counters",
        diff.kept,
        diff.changed.len(),
        diff.added.len(),
        diff.removed.len()
    );

    render_report(&daemon, name);
    drop(daemon);

    let (ok, failed) = (ok1 - ok0, fail1 - fail0);
    Window {
        protocol: name,
        targets: addrs.len(),
        polls_per_s: (ok + failed) as f64 / args.seconds as f64,
        success: ok as f64 / (ok + failed).max(1) as f64,
        cpu_per_poll: (cpu1 - cpu0) / ok.max(1) as u32,
        allocs_per_poll: (allocs1 - allocs0) as f64 / ok.max(1) as f64,
        failures: Reason::ALL
            .iter()
            .zip(reasons1.iter().zip(reasons0))
            .map(|(r, (a, b))| (*r, a - b))
            .filter(|(_, n)| *n > 0)
            .collect(),
    }
}

/// Renders `/metrics` as the HTTP handler does (snapshot, process stats, render), several
/// times, and prints the median wall time and the allocations per render.
fn render_report(daemon: &Daemon, name: &str) {
    let mut times = Vec::new();
    let (mut allocs, mut bytes) = (0, 0);
    const RENDERS: u64 = 11;
    for _ in 0..RENDERS {
        let a0 = ALLOCATIONS.load(Ordering::Relaxed);
        let t = std::time::Instant::now();
        let entries = daemon.state().snapshot();
        let globals = Globals {
            reload: daemon.state().reload_info(),
            process: metrics::process::read(),
            shard: daemon.shard(),
        };
        let body = metrics::render(Format::Text, &entries, &globals);
        times.push(t.elapsed());
        bytes = body.len();
        drop((body, entries));
        allocs += ALLOCATIONS.load(Ordering::Relaxed) - a0;
    }
    times.sort();
    println!(
        "{name}: /metrics render for {} targets: median {:.2} ms, max {:.2} ms, {} bytes, {} allocations per render",
        daemon.state().snapshot().len(),
        times[times.len() / 2].as_secs_f64() * 1e3,
        times[times.len() - 1].as_secs_f64() * 1e3,
        bytes,
        allocs / RENDERS
    );
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn vm_hwm_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
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
