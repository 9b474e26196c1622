//! `--engine exporter`: the real release binary (`gameserver-exporter`, built by cargo for
//! benches) as a child process, polling the same responders with the same generated config,
//! measured from outside through /proc/PID and its HTTP endpoints, as an operator sees it:
//! config parsed from a file, `/metrics` served over HTTP (gzip as Prometheus asks, and
//! plain), a reload through `POST /-/reload` after the file changed. Nothing of the bench's
//! own floors and bookkeeping is in these figures.

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use gameserver_exporter::status::Reason;
use gameserver_exporter::target::Protocol;
use tokio::runtime::Runtime;

use crate::http::{self, Reply};
use crate::page::Page;
use crate::{micros, write_config, Args, Window, MIB};

/// The exporter child; stopped by its PID (SIGTERM, SIGKILL after 10 s) when dropped, also
/// on every error path, and its temporary config directory removed.
struct Exporter {
    child: Child,
    pid: String,
    dir: PathBuf,
    config: PathBuf,
    /// The last lines it logged (for an error report) and how many WARN/ERROR lines.
    log: Arc<Mutex<Log>>,
}

#[derive(Default)]
struct Log {
    tail: VecDeque<String>,
    warnings: u64,
}

impl Exporter {
    /// Writes `config` to a fresh temporary directory and starts the binary on it, listening
    /// on 127.0.0.1 with an ephemeral port (`--listen 127.0.0.1:0`); returns once it logged
    /// the address it bound. The child inherits this process's raised descriptor limit.
    /// `write` writes the config file at the path it is given and says its size.
    fn start(
        write: impl FnOnce(&std::path::Path) -> u64,
    ) -> io::Result<(Exporter, SocketAddr, u64)> {
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "load-exporter-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir)?;
        let path = dir.join("exporter.toml");
        let bytes = write(&path);
        let spawned = Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
            .arg("--config")
            .arg(&path)
            .args(["--listen", "127.0.0.1:0", "--log-format", "json"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn();
        let mut child = match spawned {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        let stderr = child.stderr.take();
        let mut me = Exporter {
            pid: child.id().to_string(),
            child,
            dir,
            config: path,
            log: Arc::default(),
        };
        let stderr = stderr.ok_or_else(|| io::Error::other("no stderr pipe"))?;
        let (tx, rx) = mpsc::channel();
        let log = me.log.clone();
        // Drains stderr for the child's whole life (a full pipe would block its logging).
        std::thread::spawn(move || drain(stderr, tx, log));
        let addr = loop {
            match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(a) => break a,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Some(status) = me.child.try_wait()? {
                        return Err(me.failed(&format!("exited with {status}")));
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(me.failed("closed stderr before saying where it listens"))
                }
            }
        };
        Ok((me, addr, bytes))
    }

    fn failed(&self, what: &str) -> io::Error {
        let tail = self
            .log
            .lock()
            .map(|l| l.tail.iter().cloned().collect::<Vec<_>>().join("\n"))
            .unwrap_or_default();
        io::Error::other(format!("exporter {what}; its last log lines:\n{tail}"))
    }

    fn proc(&self, file: &str) -> String {
        std::fs::read_to_string(format!("/proc/{}/{file}", self.pid)).unwrap_or_default()
    }

    /// utime + stime of every thread, in clock ticks (/proc/PID/stat fields 14 and 15).
    fn cpu_ticks(&self) -> u64 {
        let stat = self.proc("stat");
        // The command name (field 2) may hold spaces; the fields after it do not.
        let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
        let f: Vec<&str> = rest.split_whitespace().collect();
        let field = |n: usize| f.get(n - 3).and_then(|v| v.parse::<u64>().ok());
        field(14).unwrap_or(0) + field(15).unwrap_or(0)
    }

    fn vm_mib(&self, field: &str) -> f64 {
        crate::status_kib(&self.proc("status"), field) as f64 / 1024.0
    }

    /// Sets VmHWM back to the current VmRSS (`clear_refs` 5, Linux 4.0+), so the next
    /// reading is the peak of the next step alone. False if the kernel refused.
    fn reset_hwm(&self) -> bool {
        std::fs::write(format!("/proc/{}/clear_refs", self.pid), "5").is_ok()
    }

    /// (voluntary context switches of every thread, the poller thread's (voluntary,
    /// involuntary) if there is one).
    fn switches(&self) -> (u64, Option<(u64, u64)>) {
        let task = format!("/proc/{}/task", self.pid);
        let mut all = 0;
        let mut poller = None;
        for t in std::fs::read_dir(&task).into_iter().flatten().flatten() {
            let (Some((v, i)), comm) = (
                crate::thread_switches(&t.path()),
                std::fs::read_to_string(t.path().join("comm")).unwrap_or_default(),
            ) else {
                continue;
            };
            all += v;
            if comm.trim() == "poller" {
                poller = Some((v, i));
            }
        }
        (all, poller)
    }
}

impl Drop for Exporter {
    fn drop(&mut self) {
        if let Ok(pid) = self.pid.parse::<libc::pid_t>() {
            // SAFETY: kill(2) on our own child's PID, which try_wait has not reaped yet (a
            // reaped PID could be reused; the child is only reaped below).
            if matches!(self.child.try_wait(), Ok(None)) {
                unsafe { libc::kill(pid, libc::SIGTERM) };
            }
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Reads the child's JSON log lines: hands the listening address over once, keeps the last
/// lines and counts warnings.
fn drain(stderr: impl Read, tx: mpsc::Sender<SocketAddr>, log: Arc<Mutex<Log>>) {
    let mut sent = false;
    for line in BufReader::new(stderr).lines() {
        let Ok(line) = line else { break };
        let v: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        let fields = &v["fields"];
        if !sent && fields["message"] == "gameserver-exporter listening" {
            if let Some(a) = fields["addr"].as_str().and_then(|a| a.parse().ok()) {
                let _ = tx.send(a);
                sent = true;
            }
        }
        if let Ok(mut l) = log.lock() {
            if matches!(v["level"].as_str(), Some("WARN" | "ERROR")) {
                l.warnings += 1;
            }
            if l.tail.len() == 20 {
                l.tail.pop_front();
            }
            l.tail.push_back(line);
        }
    }
}

/// One request through the integration tests' HTTP/1.1 client (tests/it/support/http.rs:
/// `Connection: close`, read to the end within 20 s), a chunked body joined (`/metrics` is
/// streamed in chunks above 64 KiB).
fn request(
    rt: &Runtime,
    addr: SocketAddr,
    method: &str,
    path: &str,
    extra: &str,
) -> io::Result<Reply> {
    let mut r = rt
        .block_on(http::plain(addr, method, path, extra))
        .ok_or_else(|| io::Error::other(format!("{method} {path}: no HTTP reply")))?;
    if r.header("transfer-encoding") == Some("chunked") {
        r.body = http::dechunk(&r.body).0;
    }
    Ok(r)
}

fn get(rt: &Runtime, addr: SocketAddr, path: &str, gzip: bool) -> io::Result<Reply> {
    let extra = if gzip {
        "Accept-Encoding: gzip\r\n"
    } else {
        ""
    };
    let r = request(rt, addr, "GET", path, extra)?;
    if r.status != 200 {
        return Err(io::Error::other(format!("GET {path}: status {}", r.status)));
    }
    Ok(r)
}

/// One `/metrics` scrape: (wall time until the last byte, bytes as sent, the reply).
fn scrape(rt: &Runtime, addr: SocketAddr, gzip: bool) -> io::Result<(Duration, usize, Reply)> {
    let t = Instant::now();
    let r = get(rt, addr, "/metrics", gzip)?;
    let took = t.elapsed();
    let zipped = r.header("content-encoding") == Some("gzip");
    if gzip != zipped {
        return Err(io::Error::other(format!(
            "asked gzip: {gzip}, got Content-Encoding gzip: {zipped}"
        )));
    }
    Ok((took, r.body.len(), r))
}

/// The page of a scrape; a gzip body is inflated whole, which checks it is a valid stream.
fn page(r: Reply) -> io::Result<Page> {
    let text = if r.header("content-encoding") == Some("gzip") {
        let mut s = String::new();
        flate2::read::GzDecoder::new(&r.body[..]).read_to_string(&mut s)?;
        s
    } else {
        String::from_utf8(r.body).map_err(io::Error::other)?
    };
    Ok(Page::parse(&text))
}

/// The exporter engine's phase: start, first round, one interval, a CPU window between two
/// gzip scrapes, then a plain scrape and a one-target reload, VmHWM per step.
pub fn exporter_steady_state(
    protocol: Protocol,
    name: &'static str,
    addrs: &[SocketAddr],
    args: &Args,
    rt: &Runtime,
) -> io::Result<Window> {
    let n = addrs.len().max(1) as f64;
    let spawned = Instant::now();
    let (mut ex, addr, config_bytes) =
        Exporter::start(|path| write_config(path, protocol, name, addrs, args, None))?;
    let listening = spawned.elapsed();
    let limits = ex.proc("limits");
    let nofile = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .map(|l| l.split_whitespace().nth(3).unwrap_or("?").to_string())
        .unwrap_or_else(|| "?".into());
    let mut ready = false;
    while spawned.elapsed() < args.interval * 3 + Duration::from_secs(30) {
        if let Ok(r) = request(rt, addr, "GET", "/-/ready", "") {
            if r.status == 200 {
                ready = true;
                break;
            }
        }
        if let Ok(Some(status)) = ex.child.try_wait() {
            return Err(ex.failed(&format!("exited with {status}")));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let first_round = spawned.elapsed();
    println!(
        "# {name} (exporter process {}, {}): listening on {addr} after {:.2} s (config file \
         {:.1} MB parsed), first complete round (/-/ready) after {:.2} s from spawn (interval \
         {:?}, ready: {ready}); descriptor limit {nofile}",
        ex.pid,
        env!("CARGO_BIN_EXE_gameserver-exporter"),
        listening.as_secs_f64(),
        config_bytes as f64 / 1e6,
        first_round.as_secs_f64(),
        args.interval,
    );
    if let Some(rest) = (spawned + args.interval).checked_duration_since(Instant::now()) {
        std::thread::sleep(rest);
    }
    let rss_interval = ex.vm_mib("VmRSS:");
    let hwm_start = ex.vm_mib("VmHWM:");
    println!(
        "# {name}: after one interval VmRSS {rss_interval:.1} MiB ({:.0} bytes per target), \
         VmHWM {hwm_start:.1} MiB (start-up: config parsing and first round)",
        rss_interval * MIB / n,
    );

    // Step peaks: VmHWM reset before each step (falls back to the cumulative peak).
    let resettable = ex.reset_hwm();
    let mut overall = hwm_start;
    // Starts a step: VmHWM back to VmRSS, which is returned.
    let begin = || {
        ex.reset_hwm();
        ex.vm_mib("VmRSS:")
    };
    // Ends a step: its VmHWM and what it added to the VmRSS it started from.
    let step = |overall: &mut f64, rss0: f64| {
        let h = ex.vm_mib("VmHWM:");
        *overall = overall.max(h);
        (
            h,
            format!("{h:.1} MiB (+{:.1} over VmRSS {rss0:.1} before)", h - rss0),
        )
    };

    // CPU window: from just after the first scrape returned to just before the second is
    // sent, so neither scrape's own CPU is inside; the bench only sleeps meanwhile. The
    // counters come from the pages, whose snapshots are taken when each request arrives, so
    // polls are counted over [send A, send B], which is longer by scrape A's duration. Not
    // scaled to the CPU window: polls are not uniform in time (the scheduler spreads first
    // polls over 90 % of the interval, so each interval has a gap without polls), and with
    // --seconds a whole number of intervals the CPU window holds every target's polls once
    // whatever its phase. So CPU per poll may be low by at most scrape A's share of the
    // window (printed).

    let rss0 = ex.vm_mib("VmRSS:");
    let sent_a = Instant::now();
    let (took_gz, bytes_gz, reply_a) = scrape(rt, addr, true)?;
    let (cpu0, done_a, sw0) = (ex.cpu_ticks(), Instant::now(), ex.switches());
    let (hwm_gzip, gzip_step) = step(&mut overall, rss0);
    let rss0 = begin();
    std::thread::sleep(Duration::from_secs(args.seconds));
    let (cpu1, sent_b, sw1) = (ex.cpu_ticks(), Instant::now(), ex.switches());
    let (took_b, _, reply_b) = scrape(rt, addr, true)?;
    let (hwm_window, window_step) = step(&mut overall, rss0);
    // Inflated and counted only now: at 100,000 targets that takes the bench ~0.5 s of a
    // core, which inside the window took CPU from the exporter and its responders.
    let (page_a, page_b) = (page(reply_a)?, page(reply_b)?);
    println!(
        "{name}: exporter /metrics gzip scrape (Accept-Encoding: gzip, over HTTP): {bytes_gz} \
         bytes in {:.0} ms, {} samples after inflating; VmHWM {} {gzip_step}",
        took_gz.as_secs_f64() * 1e3,
        page_a.samples,
        if resettable {
            "of this step alone"
        } else {
            "(cumulative)"
        },
    );
    let tick = 1.0 / ticks_per_second();
    let cpu_window = (sent_b - done_a).as_secs_f64();
    let counted = (sent_b - sent_a).as_secs_f64();
    let ok = page_b.ok().saturating_sub(page_a.ok());
    let failed = page_b.failed().saturating_sub(page_a.failed());
    let cpu = (cpu1 - cpu0) as f64 * tick;
    println!(
        "# {name}: CPU window {cpu_window:.2} s: {} ticks of {:.0} ms (utime+stime, all \
         threads, /proc/PID/stat; ±1 tick = ±{:.2} %), {ok} successful and {failed} failed \
         polls between the two scrapes' snapshots ({counted:.2} s: CPU per poll low by at \
         most {:.1} %); the second gzip scrape {:.0} ms; VmHWM over the window and that \
         scrape {window_step}",
        cpu1 - cpu0,
        tick * 1e3,
        100.0 / (cpu1 - cpu0).max(1) as f64,
        (counted - cpu_window) * 100.0 / counted,
        took_b.as_secs_f64() * 1e3,
    );

    let rss0 = begin();
    let (took_plain, bytes_plain, reply_plain) = scrape(rt, addr, false)?;
    let (hwm_plain, plain_step) = step(&mut overall, rss0);
    let page_plain = page(reply_plain)?;
    println!(
        "{name}: exporter /metrics plain scrape: {bytes_plain} bytes in {:.0} ms, {} samples \
         (gzip is {:.1} %); VmHWM {plain_step}",
        took_plain.as_secs_f64() * 1e3,
        page_plain.samples,
        bytes_gz as f64 * 100.0 / bytes_plain.max(1) as f64,
    );
    drop(page_plain);

    // A real reload: the file rewritten with one target changed (its interval one second
    // longer, as the daemon engine does), then POST /-/reload, which answers once applied.
    let longer = Some(args.interval + Duration::from_secs(1));
    write_config(&ex.config, protocol, name, addrs, args, longer);
    let rss0 = begin();
    let t = Instant::now();
    let r = request(rt, addr, "POST", "/-/reload", "")?;
    let took_reload = t.elapsed();
    let (hwm_reload, reload_step) = step(&mut overall, rss0);
    let rss_reloaded = ex.vm_mib("VmRSS:");
    let body = String::from_utf8_lossy(&r.body);
    // Checked after the peak was read: this scrape's own memory is in no figure.
    let page_c = page(scrape(rt, addr, true)?.2)?;
    let kept = page_b
        .per_target
        .iter()
        .filter(|(t, b)| page_c.per_target.get(*t).is_some_and(|c| c >= b && *c > 0))
        .count();
    println!(
        "{name}: exporter reload (file rewritten, one target changed, POST /-/reload): {} {:?} \
         after {:.0} ms; reload timestamp {} -> {}; {kept} of {} targets kept their counters; \
         VmHWM {reload_step}",
        r.status,
        body.trim(),
        took_reload.as_secs_f64() * 1e3,
        page_b.reload_success.unwrap_or(f64::NAN),
        page_c.reload_success.unwrap_or(f64::NAN),
        page_b.per_target.len(),
    );
    let warnings = ex.log.lock().map(|l| l.warnings).unwrap_or(0);
    println!(
        "# {name}: exporter peaks (VmHWM, MiB): start-up {hwm_start:.1}, gzip scrape \
         {hwm_gzip:.1}, window + gzip scrape {hwm_window:.1}, plain scrape {hwm_plain:.1}, \
         reload {hwm_reload:.1}{}; VmRSS just after the reload {rss_reloaded:.1}, now {:.1}; \
         {warnings} warnings logged",
        if resettable {
            " (each step alone: VmHWM reset before it)"
        } else {
            " (cumulative: clear_refs refused)"
        },
        ex.vm_mib("VmRSS:"),
    );
    // Whether the reload's memory goes back to the system once the process is idle again.
    std::thread::sleep(Duration::from_secs(5));
    println!(
        "# {name}: exporter VmRSS 5 s later {:.1} MiB",
        ex.vm_mib("VmRSS:")
    );
    drop(ex);

    let per_s = |a: u64, b: u64| (b - a) as f64 / cpu_window;
    Ok(Window {
        protocol: name,
        network: String::new(),
        targets: addrs.len(),
        polls_per_s: (ok + failed) as f64 / counted,
        success: ok as f64 / (ok + failed).max(1) as f64,
        cpu_per_poll: Duration::from_secs_f64(cpu / (ok as f64).max(1.0)),
        allocs_per_poll: None,
        poller_switches: match (sw0.1, sw1.1) {
            (Some((v0, i0)), Some((v1, i1))) => Some((per_s(v0, v1), per_s(i0, i1))),
            _ => None,
        },
        process_wakeups: per_s(sw0.0, sw1.0),
        failures: Reason::ALL
            .iter()
            .zip(page_b.failures.iter().zip(page_a.failures))
            .map(|(r, (b, a))| (*r, b.saturating_sub(a)))
            .filter(|(_, n)| *n > 0)
            .collect(),
        extra: format!(
            ", VmRSS {rss_interval:.1} MiB after one interval, peak {hwm_start:.1} MiB \
             start-up, {overall:.1} MiB with scrapes and a reload (CPU ±{:.1} µs: one tick)",
            micros(Duration::from_secs_f64(tick)) / (ok as f64).max(1.0)
        ),
        scrape_ms: None,
    })
}

fn ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}
