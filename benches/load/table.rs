//! `--table`: every protocol of `Protocol::ALL` against its own simulator, one after the
//! other in one sitting, beside floors measured in the same run (issue 23).
//!
//! Each protocol gets `--targets` simulated servers (`simulate::simulator(p).spawn` on the
//! default world: no players, so an info-only poll): one server per target, each on its own
//! 127.0.0.1 port, so every exchange runs for real (challenges, fragments, TCP, HTTP) and
//! a protocol with a minimum gap between two polls of one server (TeamSpeak 3: 2 s, FiveM:
//! 600 ms) keeps it with a 5 s interval. The simulators run in child processes (this binary
//! re-executed with `--sims PROTOCOL N`), so `getrusage` here counts only the daemon:
//! `--sims-per-child` servers each, 2,000 by default (each child is one thread, and at 6,000
//! Palworld's fell behind), at most 8,000 (a FiveM server holds two descriptors, a TCP one a
//! connection besides its listener, and one process may hold 20,000). The daemon runs
//! in-process as `--engine daemon` does (main.rs: `daemon_steady_state`).
//!
//! The floors use the canned-reply responder (responder.rs): UDP request/reply with 1, 4, 16
//! and 256 requests in flight (one thread, non-blocking socket, `poll`, thread CPU time), and
//! TCP with the bytes of a Minecraft status ping (handshake + status request, read the status,
//! ping, read the pong, close) with 1, 16 and 256 connections in flight on epoll.
//!
//! Drift: the same code's CPU per poll moved by 40 % between runs minutes apart on a quiet
//! machine (A2S 23.6 and 33.5 µs, benches/RESULTS.md, session 9), so a protocol compared with
//! an A2S row measured minutes earlier carries that drift. Hence the floors are measured at
//! the start and again at the end, and "x floor" is against the mean of the two (both
//! printed); and A2S is run again right before each other protocol (an "a2s reference"
//! window: the same targets, interval and window, on the same A2S simulators, kept alive
//! across the whole table), so each protocol's "x a2s adj." is against the A2S window that
//! ran next to it. The A2S row's own figure ("x a2s 1st") and the references' spread are
//! printed beside it. `--no-reference` leaves the references out (a quick run, or a
//! callgrind count that must see one protocol only).

use std::fmt::Write as _;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use gameserver_exporter::simulate::{self, World};
use gameserver_exporter::target::Protocol;

use super::{micros, responder, vm_hwm_kib, vm_kib, Args, Responders, Window};

/// The `--sims PROTOCOL N` child: starts N simulators of PROTOCOL, prints their addresses on
/// one line (`addrs A B ...`), serves until stdin closes.
pub fn run_sims(argv: &[String]) -> io::Result<()> {
    let protocol = argv
        .first()
        .and_then(|p| Protocol::from_name(p))
        .ok_or_else(|| io::Error::other("--sims: a protocol id first"))?;
    let n: usize = argv
        .get(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other("--sims: a count second"))?;
    // One thread: the simulators' CPU is not what is measured, and the machine is small.
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let sim = simulate::simulator(protocol);
        let world = World::default();
        let mut servers = Vec::with_capacity(n);
        let mut line = String::from("addrs");
        for _ in 0..n {
            // FiveM's simulator needs a UDP port whose TCP twin is free too, and gives up after
            // 32 tries: with thousands of ports bound or in TIME_WAIT it may, so try again.
            let mut tries = 0;
            let s = loop {
                match (sim.spawn)(world.clone()).await {
                    Ok(s) => break s,
                    Err(e) if e.kind() == io::ErrorKind::AddrInUse && tries < 10 => tries += 1,
                    Err(e) => return Err(e),
                }
            };
            let _ = write!(line, " {}", s.addr);
            servers.push(s);
        }
        let mut out = io::stdout().lock();
        writeln!(out, "{line}")?;
        out.flush()?;
        drop(out);
        tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            let _ = io::stdin().read_to_end(&mut sink);
        })
        .await
        .map_err(io::Error::other)?;
        drop(servers);
        Ok(())
    })
}

/// The simulator children of one protocol.
struct Fleet {
    children: Vec<(Child, Option<ChildStdin>)>,
    addrs: Vec<SocketAddr>,
}

impl Fleet {
    fn start(protocol: Protocol, n: usize, per_child: usize) -> io::Result<Fleet> {
        let k = n.div_ceil(per_child.max(1)).max(1);
        let mut fleet = Fleet {
            children: Vec::new(),
            addrs: Vec::with_capacity(n),
        };
        for i in 0..k {
            let share = n * (i + 1) / k - n * i / k;
            let mut child = Command::new(std::env::current_exe()?)
                .arg("--sims")
                .arg(protocol.as_str())
                .arg(share.to_string())
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()?;
            let stdin = child.stdin.take();
            let stdout = child
                .stdout
                .take()
                .ok_or_else(|| io::Error::other("simulator pipe missing"))?;
            fleet.children.push((child, stdin));
            let mut lines = BufReader::new(stdout).lines();
            let line = loop {
                match lines.next() {
                    Some(Ok(l)) if l.starts_with("addrs") => break l,
                    Some(Ok(_)) => continue,
                    _ => return Err(io::Error::other("a simulator child exited early")),
                }
            };
            fleet.addrs.extend(
                line.split_whitespace()
                    .skip(1)
                    .filter_map(|a| a.parse::<SocketAddr>().ok()),
            );
        }
        if fleet.addrs.len() != n {
            return Err(io::Error::other(format!(
                "{protocol}: {} of {n} simulators started",
                fleet.addrs.len()
            )));
        }
        Ok(fleet)
    }
}

impl Drop for Fleet {
    fn drop(&mut self) {
        for (child, stdin) in &mut self.children {
            drop(stdin.take());
            let _ = child.wait();
        }
    }
}

/// Whether a protocol's poll is a TCP exchange (the HTTP APIs included), compared with the
/// TCP floor; the others with the UDP floor. Satisfactory's HTTPS API follows its UDP query
/// only with an API token, which the table's targets do not have: its polls are UDP here.
fn tcp(p: Protocol) -> bool {
    p.over_tcp() || (p.http().is_some() && p != Protocol::Satisfactory)
}

/// What a row measured beyond the common setup.
fn note(p: Protocol) -> &'static str {
    match p {
        Protocol::A2s => "info; the simulator asks no challenge: one round trip",
        Protocol::Minecraft => "a connection per poll: handshake+status, ping",
        Protocol::MinecraftQuery => "the shared socket, the token remembered: one round trip",
        Protocol::Gamespy3 => "handshake for the challenge, then the request: two round trips",
        Protocol::Teamspeak3 => "a ServerQuery session per poll; 2 s gap per server",
        Protocol::Fivem => "getinfo; 600 ms gap per server",
        Protocol::Teeworlds => "500 ms gap per server",
        Protocol::Terraria => "HTTP: one GET",
        Protocol::Palworld => "HTTP: two or three GETs on one connection",
        _ => "",
    }
}

/// The VmHWM of this process back to its VmRSS (Linux 4.0+), so each protocol's peak is its
/// own; false if refused (then the peak is cumulative).
fn reset_hwm() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

struct Row {
    protocol: Protocol,
    window: Option<Window>,
    /// The A2S reference window run right before this protocol's (none for A2S itself, or
    /// with `--no-reference`).
    reference: Option<Window>,
    rss_before: f64,
    peak: f64,
    error: Option<String>,
}

/// One floor: (in flight, CPU per reply, replies).
type Floor = (usize, Duration, usize);

struct Floors {
    udp: Vec<Floor>,
    tcp: Vec<Floor>,
}

/// The floors measured at the start of the table and again at its end.
struct FloorRuns {
    start: Floors,
    end: Option<Floors>,
}

impl FloorRuns {
    /// The 256-in-flight floor of a transport that "x floor" divides by: the mean of the
    /// start and end figures (the start alone until the end is measured). The protocols run
    /// between the two, some near the start and some near the end; the mean takes neither
    /// end for the truth, and both are printed, so a drift between them shows.
    fn reference(&self, tcp: bool) -> Option<Duration> {
        let last = |f: &Floors| if tcp { f.tcp.last() } else { f.udp.last() }.map(|x| x.1);
        let start = last(&self.start)?;
        Some(match self.end.as_ref().and_then(last) {
            Some(end) => (start + end) / 2,
            None => start,
        })
    }
}

fn print_floors(f: &Floors, when: &str) {
    for (k, cpu, ok) in &f.udp {
        println!(
            "floor UDP (A2S info request/reply), {k} in flight, {when}: {:.2} µs CPU per reply ({ok} replies)",
            micros(*cpu)
        );
    }
    for (k, cpu, ok) in &f.tcp {
        println!(
            "floor TCP (Minecraft status ping, connect to close), {k} in flight, {when}: {:.2} µs CPU per exchange ({ok} exchanges)",
            micros(*cpu)
        );
    }
}

pub fn run_table(args: &Args) -> io::Result<()> {
    println!(
        "# machine: {} cpu(s), {}; load average {}",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        super::cpu_model(),
        super::load_average()
    );
    let protocols: Vec<Protocol> = if args.protocols.is_empty() {
        Protocol::ALL.to_vec()
    } else {
        args.protocols.clone()
    };
    println!(
        "# table: {} protocol(s), {} targets each (one simulator per target, at most {} per \
         child process), interval {:?}, window {} s after one interval of warm-up, poll timeout \
         {:?}; the daemon in-process; {}; floors at the start and at the end",
        protocols.len(),
        args.targets,
        args.sims_per_child,
        args.interval,
        args.seconds,
        args.timeout,
        if args.reference {
            "an A2S reference window right before each other protocol, on A2S simulators kept \
             for the whole table"
        } else {
            "no A2S reference windows (--no-reference)"
        }
    );

    let start = measure_floors(args)?;
    print_floors(&start, "start");
    let mut floors = FloorRuns { start, end: None };

    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if args.workers > 0 {
        builder.worker_threads(args.workers);
    }
    let rt = builder.thread_name("exporter").enable_all().build()?;
    let resettable = reset_hwm();
    // The A2S simulators of the A2S row and of every reference window, started once: they
    // sit idle in their children while another protocol runs (a child holds 2,000 sockets
    // by default, 8,000 at most, of the 20,000 a process may), so each reference costs a
    // window, not 10,000 simulators started again.
    let a2s_fleet = if args.reference {
        match Fleet::start(Protocol::A2s, args.targets, args.sims_per_child) {
            Ok(f) => Some(f),
            Err(e) => {
                println!("a2s reference: simulators did not start ({e}): no reference windows");
                None
            }
        }
    } else {
        None
    };
    let mut rows = Vec::new();
    for p in protocols {
        let name = p.as_str();
        // A2S polls the kept fleet when there is one; any other protocol its own, started now.
        let own = match (&a2s_fleet, p) {
            (Some(_), Protocol::A2s) => None,
            _ => match Fleet::start(p, args.targets, args.sims_per_child) {
                Ok(f) => Some(f),
                Err(e) => {
                    println!("{name}: simulators did not start: {e}");
                    rows.push(Row {
                        protocol: p,
                        window: None,
                        reference: None,
                        rss_before: 0.0,
                        peak: 0.0,
                        error: Some(e.to_string()),
                    });
                    continue;
                }
            },
        };
        let addrs = match (&own, &a2s_fleet) {
            (Some(f), _) | (None, Some(f)) => &f.addrs[..],
            (None, None) => &[],
        };
        // Right before the protocol's window, its simulators already up: the A2S window it
        // is compared with.
        let reference = match &a2s_fleet {
            Some(f) if p != Protocol::A2s => {
                let w = rt.block_on(super::daemon_steady_state(
                    Protocol::A2s,
                    "a2s-reference",
                    &f.addrs,
                    args,
                ));
                println!(
                    "reference: a2s before {name}: {:.2} µs CPU per successful poll, success {:.4}",
                    micros(w.cpu_per_poll),
                    w.success
                );
                Some(w)
            }
            _ => None,
        };
        reset_hwm();
        let rss_before = vm_kib("VmRSS:") as f64 / 1024.0;
        let w = rt.block_on(super::daemon_steady_state(p, name, addrs, args));
        let peak = vm_hwm_kib() as f64 / 1024.0;
        drop(own);
        rows.push(Row {
            protocol: p,
            window: Some(w),
            reference,
            rss_before,
            peak,
            error: None,
        });
        if let Some(r) = rows.last() {
            println!("row: {}", line(r, &floors, a2s_cost(&rows)));
        }
    }
    drop(rt);
    drop(a2s_fleet);
    let end = measure_floors(args)?;
    print_floors(&end, "end");
    floors.end = Some(end);

    println!();
    println!(
        "Per protocol: {} targets, interval {:?}, {} s window; CPU of the whole exporter process \
         (getrusage) per successful poll; x floor = ratio to the 256-in-flight floor of its \
         transport, the mean of the floors measured at the start and at the end of the table \
         (both below); a2s ref = CPU per poll of the A2S window run right before this \
         protocol's (the same targets, interval and window, on the same simulators); x a2s adj. \
         = ratio to that window, x a2s 1st = ratio to the A2S row (minutes away: it carries the \
         drift between them); peak RSS of this process over the protocol's phase{} (VmRSS \
         before it in brackets); scrape = median /metrics render, gzip / plain.",
        args.targets,
        args.interval,
        args.seconds,
        if resettable {
            " (VmHWM reset before each)"
        } else {
            " (cumulative VmHWM)"
        }
    );
    println!();
    println!("| protocol | polls/s | success | CPU µs/poll | x floor | a2s ref µs | x a2s adj. | x a2s 1st | allocs/poll | peak RSS MiB | scrape ms gzip / plain | measured |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
    let a2s = a2s_cost(&rows);
    for r in &rows {
        println!("{}", line(r, &floors, a2s));
    }
    println!();
    println!("{}", floor_summary(&floors));
    if let Some(spread) = reference_spread(&rows, a2s) {
        println!("{spread}");
    }
    Ok(())
}

/// The floors below the table: each in-flight count's start and end figure.
fn floor_summary(f: &FloorRuns) -> String {
    let cells = |start: &[Floor], end: Option<&[Floor]>| {
        start
            .iter()
            .enumerate()
            .map(|(i, (k, cpu, _))| match end.and_then(|e| e.get(i)) {
                Some((_, e, _)) => format!("{k}: {:.2} / {:.2}", micros(*cpu), micros(*e)),
                None => format!("{k}: {:.2}", micros(*cpu)),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "Floors, µs CPU per reply (in flight: start / end of the table): UDP {}; TCP {}. \
         x floor divides by the mean of the two 256-in-flight figures.",
        cells(&f.start.udp, f.end.as_ref().map(|e| &e.udp[..])),
        cells(&f.start.tcp, f.end.as_ref().map(|e| &e.tcp[..]))
    )
}

/// The A2S reference windows' spread (min / median / max), beside the A2S row: how far the
/// same code's cost moved over the table.
fn reference_spread(rows: &[Row], first: Option<Duration>) -> Option<String> {
    let mut refs: Vec<Duration> = rows
        .iter()
        .filter_map(|r| r.reference.as_ref())
        .map(|w| w.cpu_per_poll)
        .collect();
    refs.sort();
    let (min, max) = (*refs.first()?, *refs.last()?);
    let median = refs[refs.len() / 2];
    let spread = if min.is_zero() {
        String::new()
    } else {
        format!(" (max / min {:.2})", max.as_secs_f64() / min.as_secs_f64())
    };
    let first = first
        .map(|a| format!("; the A2S row {:.2}", micros(a)))
        .unwrap_or_default();
    Some(format!(
        "A2S reference windows: {}, µs CPU per poll min {:.2} / median {:.2} / max {:.2}{spread}{first}.",
        refs.len(),
        micros(min),
        micros(median),
        micros(max)
    ))
}

/// A2S's CPU per poll in this run's A2S row, the yardstick of the other UDP protocols
/// before the reference windows.
fn a2s_cost(rows: &[Row]) -> Option<Duration> {
    rows.iter()
        .find(|r| r.protocol == Protocol::A2s)
        .and_then(|r| r.window.as_ref())
        .map(|w| w.cpu_per_poll)
}

/// `cpu` as a multiple of `of`, two decimals; empty without a yardstick.
fn times(cpu: Duration, of: Option<Duration>) -> String {
    of.filter(|a| !a.is_zero())
        .map(|a| format!("{:.2}", cpu.as_secs_f64() / a.as_secs_f64()))
        .unwrap_or_default()
}

fn line(r: &Row, floors: &FloorRuns, a2s: Option<Duration>) -> String {
    let name = r.protocol.as_str();
    let Some(w) = &r.window else {
        return format!(
            "| {name} | | | | | | | | | | | not measured: {} |",
            r.error.as_deref().unwrap_or("?")
        );
    };
    let transport = if tcp(r.protocol) { "TCP" } else { "UDP" };
    let ratio = floors
        .reference(tcp(r.protocol))
        .filter(|f| !f.is_zero())
        .map(|f| {
            format!(
                "{:.1} ({transport})",
                w.cpu_per_poll.as_secs_f64() / f.as_secs_f64()
            )
        })
        .unwrap_or_else(|| "-".into());
    let reference = r.reference.as_ref().map(|x| x.cpu_per_poll);
    let ref_cell = reference
        .map(|x| format!("{:.1}", micros(x)))
        .unwrap_or_default();
    let vs_adjacent = times(w.cpu_per_poll, reference);
    let vs_first = times(w.cpu_per_poll, a2s);
    let scrape = w
        .scrape_ms
        .map(|(gz, plain)| format!("{gz:.1} / {plain:.1}"))
        .unwrap_or_default();
    let mut measured = format!("{} targets", w.targets);
    if !note(r.protocol).is_empty() {
        let _ = write!(measured, "; {}", note(r.protocol));
    }
    for (reason, n) in &w.failures {
        let _ = write!(measured, "; {n} failed {reason}");
    }
    if let Some(x) = r.reference.as_ref().filter(|x| x.success < 1.0) {
        let _ = write!(measured, "; a2s ref success {:.4}", x.success);
    }
    format!(
        "| {name} | {:.0} | {:.4} | {:.1} | {ratio} | {ref_cell} | {vs_adjacent} | {vs_first} | {} | {:.1} ({:.1}) | {scrape} | {measured} |",
        w.polls_per_s,
        w.success,
        micros(w.cpu_per_poll),
        w.allocs_per_poll
            .map(|a| format!("{a:.1}"))
            .unwrap_or_default(),
        r.peak,
        r.rss_before,
    )
}

fn measure_floors(args: &Args) -> io::Result<Floors> {
    // 1,000 canned UDP sockets and 1,000 canned TCP listeners: enough for 256 in flight, each
    // to its own server.
    let n = args.targets.clamp(256, 1000);
    let mut resp = Responders::start([n, n, 0], args)?;
    let [a2s, mc, _] = std::mem::take(&mut resp.addrs);
    let request = responder::a2s_request();
    let mut floors = Floors {
        udp: Vec::new(),
        tcp: Vec::new(),
    };
    for k in [1, 4, 16, 256] {
        let (cpu, ok) = responder::batched_udp_floor(
            &a2s,
            &request,
            args.floor_rounds,
            k,
            responder::Calls::Single,
        )?;
        floors.udp.push((k, cpu, ok));
    }
    for k in [1, 16, 256] {
        let (cpu, ok) = tcp_floor(&mc, k, (args.floor_rounds / 4).max(k * 4))?;
        floors.tcp.push((k, cpu, ok));
    }
    drop(resp);
    Ok(floors)
}

/// One connection of the TCP floor.
struct Conn {
    fd: RawFd,
    /// 0: connecting (waiting to write the query), 1: reading the status, 2: reading the pong.
    stage: u8,
    got: usize,
}

/// The TCP floor: `k` Minecraft status pings in flight from one thread, non-blocking
/// sockets on epoll: connect, write handshake + status request, read the status frame, write
/// the ping, read the pong, close; a new connection for each one closed. Returns the thread's
/// CPU per completed exchange and their number.
pub fn tcp_floor(targets: &[SocketAddr], k: usize, rounds: usize) -> io::Result<(Duration, usize)> {
    use gameserver_exporter::protocol::minecraft::slp;
    let (mut query, mut ping) = (Vec::new(), Vec::new());
    slp::encode_status_query("127.0.0.1", 25565, &mut query);
    slp::encode_ping(0x0102_0304_0506_0708, &mut ping);
    let frame_len = responder::minecraft_status_frame().len();
    let k = k.clamp(1, targets.len().max(1));
    let sockaddrs: Vec<libc::sockaddr_in> = targets.iter().map(sockaddr).collect();
    // SAFETY: epoll_create1 takes no pointers.
    let ep = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if ep < 0 {
        return Err(io::Error::last_os_error());
    }
    let mut slots: Vec<Option<Conn>> = (0..k).map(|_| None).collect();
    // SAFETY: epoll_event is plain integers.
    let mut events: Vec<libc::epoll_event> = vec![unsafe { std::mem::zeroed() }; k];
    let mut buf = vec![0u8; 4096];
    let (mut ok, mut next, mut idle, mut failed) = (0usize, 0usize, 0u32, 0usize);
    let close = |c: Conn| {
        // SAFETY: the descriptor is ours and closed once (closing removes it from epoll).
        unsafe { libc::close(c.fd) };
    };
    let start = responder::thread_cpu();
    while ok < rounds && idle < 10 && failed < rounds {
        for (i, slot) in slots.iter_mut().enumerate() {
            if slot.is_some() {
                continue;
            }
            let sa = &sockaddrs[next % sockaddrs.len()];
            next += 1;
            // SAFETY: socket/setsockopt/connect/epoll_ctl get pointers to values we own that
            // outlive the calls.
            unsafe {
                let fd = libc::socket(
                    libc::AF_INET,
                    libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                    0,
                );
                if fd < 0 {
                    return Err(io::Error::last_os_error());
                }
                let one: libc::c_int = 1;
                libc::setsockopt(
                    fd,
                    libc::IPPROTO_TCP,
                    libc::TCP_NODELAY,
                    (&one as *const libc::c_int).cast(),
                    std::mem::size_of::<libc::c_int>() as u32,
                );
                let r = libc::connect(
                    fd,
                    (sa as *const libc::sockaddr_in).cast(),
                    std::mem::size_of::<libc::sockaddr_in>() as u32,
                );
                if r < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINPROGRESS) {
                    libc::close(fd);
                    failed += 1;
                    continue;
                }
                let mut ev = libc::epoll_event {
                    events: libc::EPOLLOUT as u32,
                    u64: i as u64,
                };
                libc::epoll_ctl(ep, libc::EPOLL_CTL_ADD, fd, &mut ev);
                *slot = Some(Conn {
                    fd,
                    stage: 0,
                    got: 0,
                });
            }
        }
        // SAFETY: `events` holds k entries.
        let n = unsafe { libc::epoll_wait(ep, events.as_mut_ptr(), k as i32, 500) };
        if n <= 0 {
            idle += 1;
            if n == 0 {
                // Nothing for 500 ms: count what is in flight as lost and start over.
                for slot in &mut slots {
                    if let Some(c) = slot.take() {
                        close(c);
                        failed += 1;
                    }
                }
            }
            continue;
        }
        idle = 0;
        for ev in &events[..n as usize] {
            let i = ev.u64 as usize;
            let Some(c) = slots[i].as_mut() else {
                continue;
            };
            let mut done = false;
            let mut broken = ev.events & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0
                && ev.events & libc::EPOLLIN as u32 == 0;
            if !broken {
                // SAFETY: reads and writes go to and from buffers we own, within their lengths.
                unsafe {
                    match c.stage {
                        0 => {
                            let w = libc::write(c.fd, query.as_ptr().cast(), query.len());
                            if w == query.len() as isize {
                                c.stage = 1;
                                let mut ev = libc::epoll_event {
                                    events: libc::EPOLLIN as u32,
                                    u64: i as u64,
                                };
                                libc::epoll_ctl(ep, libc::EPOLL_CTL_MOD, c.fd, &mut ev);
                            } else {
                                broken = true;
                            }
                        }
                        _ => {
                            let r = libc::read(c.fd, buf.as_mut_ptr().cast(), buf.len());
                            if r <= 0 {
                                broken = r == 0
                                    || io::Error::last_os_error().raw_os_error()
                                        != Some(libc::EAGAIN);
                            } else {
                                c.got += r as usize;
                                if c.stage == 1 && c.got >= frame_len {
                                    c.stage = 2;
                                    c.got -= frame_len;
                                    let w = libc::write(c.fd, ping.as_ptr().cast(), ping.len());
                                    broken = w != ping.len() as isize;
                                }
                                if c.stage == 2 && c.got >= ping.len() {
                                    done = true;
                                }
                            }
                        }
                    }
                }
            }
            if done || broken {
                if let Some(c) = slots[i].take() {
                    close(c);
                }
                if done {
                    ok += 1;
                } else {
                    failed += 1;
                }
            }
        }
    }
    let cpu = responder::thread_cpu() - start;
    for c in slots.into_iter().flatten() {
        close(c);
    }
    // SAFETY: the epoll descriptor is ours.
    unsafe { libc::close(ep) };
    Ok((cpu / ok.max(1) as u32, ok))
}

fn sockaddr(a: &SocketAddr) -> libc::sockaddr_in {
    // SAFETY: sockaddr_in is plain integers; all-zero is a valid value.
    let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
    sin.sin_family = libc::AF_INET as libc::sa_family_t;
    sin.sin_port = a.port().to_be();
    if let SocketAddr::V4(v4) = a {
        sin.sin_addr.s_addr = u32::from(*v4.ip()).to_be();
    }
    sin
}
