//! The fast responder and the raw-socket floors for the load benchmark (benches/load/main.rs).
//!
//! The responder answers with canned bytes and parses as little as it can, so that the
//! benchmark measures the exporter, not the simulator. It runs in a child process so that the
//! daemon's CPU (getrusage of the benchmark process) does not include it.

use std::io::{self, BufRead, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream as StdTcpStream, UdpSocket as StdUdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UdpSocket};

/// The constant A2S challenge: a steady-state client sends it with every request.
pub const CHALLENGE: [u8; 4] = [0x0b, 0xad, 0xf0, 0x0d];
const INFO_REQUEST: &[u8] = b"\xff\xff\xff\xffTSource Engine Query\0";

/// What the responder saw, reported on a `stats` line: it shows whether the exporter's steady
/// state is one round trip (A2S requests ≈ polls, challenges only in the first round).
static A2S_REQUESTS: AtomicU64 = AtomicU64::new(0);
static A2S_CHALLENGES: AtomicU64 = AtomicU64::new(0);
static SAMP_REQUESTS: AtomicU64 = AtomicU64::new(0);
static MC_CONNECTIONS: AtomicU64 = AtomicU64::new(0);

/// A2S_INFO carrying the responder's challenge: what a steady-state client sends.
pub fn a2s_request() -> Vec<u8> {
    let mut req = INFO_REQUEST.to_vec();
    req.extend_from_slice(&CHALLENGE);
    req
}

/// A SA:MP `i` request (the responder does not check the address in the header).
pub fn samp_request() -> Vec<u8> {
    let mut req = b"SAMP".to_vec();
    req.extend_from_slice(&[127, 0, 0, 1]);
    req.extend_from_slice(&7777u16.to_le_bytes());
    req.push(b'i');
    req
}

pub fn a2s_info_reply() -> Vec<u8> {
    let mut r =
        b"\xff\xff\xff\xffI\x11Load Test\0de_dust2\0cstrike\0Counter-Strike: Source\0".to_vec();
    r.extend_from_slice(&240u16.to_le_bytes());
    r.extend_from_slice(&[12, 32, 2, b'd', b'l', 0, 1]);
    r.extend_from_slice(b"1.0.0.0\0");
    r
}

fn a2s_answer(req: &[u8], info: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    if !req.starts_with(INFO_REQUEST) {
        return false;
    }
    A2S_REQUESTS.fetch_add(1, Ordering::Relaxed);
    if req.len() == INFO_REQUEST.len() + 4 && req[INFO_REQUEST.len()..] == CHALLENGE {
        out.extend_from_slice(info);
    } else {
        A2S_CHALLENGES.fetch_add(1, Ordering::Relaxed);
        out.extend_from_slice(b"\xff\xff\xff\xffA");
        out.extend_from_slice(&CHALLENGE);
    }
    true
}

fn samp_answer(req: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    if req.len() != 11 || &req[..4] != b"SAMP" || req[10] != b'i' {
        return false;
    }
    SAMP_REQUESTS.fetch_add(1, Ordering::Relaxed);
    out.extend_from_slice(req);
    out.push(0);
    out.extend_from_slice(&12u16.to_le_bytes());
    out.extend_from_slice(&50u16.to_le_bytes());
    for s in [&b"Load Test"[..], b"Freeroam", b"English"] {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s);
    }
    true
}

fn varint(mut v: u32, out: &mut Vec<u8>) {
    loop {
        if v < 0x80 {
            out.push(v as u8);
            return;
        }
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
}

pub fn minecraft_status_frame() -> Vec<u8> {
    let json = br#"{"version":{"name":"1.21.1","protocol":767},"players":{"max":100,"online":12},"description":{"text":"Load Test"}}"#;
    let mut body = vec![0x00];
    varint(json.len() as u32, &mut body);
    body.extend_from_slice(json);
    let mut frame = Vec::new();
    varint(body.len() as u32, &mut frame);
    frame.extend_from_slice(&body);
    frame
}

/// How one responder child behaves, from its command line.
#[derive(Debug, Clone, Copy)]
pub struct ChildOpts {
    pub a2s: usize,
    pub minecraft: usize,
    pub samp: usize,
    /// The loopback address its sockets bind.
    pub ip: Ipv4Addr,
    /// Bind ports counting up from this one (skipping ports in use) instead of ephemeral
    /// ones: with several children on several addresses, ephemeral ports taken on every
    /// address would leave the exporter's own `0.0.0.0:0` sockets almost no port free.
    pub first_port: Option<u16>,
    /// Each UDP reply waits a uniformly random time in this range (ms) before it is sent:
    /// replies then arrive spread out, as from servers at different distances.
    pub delay_ms: Option<(u64, u64)>,
    /// UDP replies dropped, in parts per million.
    pub drop_ppm: u32,
    /// UDP sockets that never answer while silence is on, in parts per million (picked per
    /// socket from its port, so the same targets stay silent).
    pub silent_ppm: u32,
}

impl ChildOpts {
    /// The arguments after `--responder` that [`ChildOpts::parse`] reads back.
    pub fn to_args(self) -> Vec<String> {
        let (dmin, dmax) = self.delay_ms.unwrap_or((0, 0));
        [
            self.a2s.to_string(),
            self.minecraft.to_string(),
            self.samp.to_string(),
            self.ip.to_string(),
            self.first_port.unwrap_or(0).to_string(),
            dmin.to_string(),
            dmax.to_string(),
            self.drop_ppm.to_string(),
            self.silent_ppm.to_string(),
        ]
        .into()
    }

    pub fn parse(args: &[String]) -> ChildOpts {
        let n = |i: usize| args.get(i).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
        let ip = args
            .get(3)
            .and_then(|s| s.parse().ok())
            .unwrap_or(Ipv4Addr::LOCALHOST);
        ChildOpts {
            a2s: n(0) as usize,
            minecraft: n(1) as usize,
            samp: n(2) as usize,
            ip,
            first_port: u16::try_from(n(4)).ok().filter(|p| *p > 0),
            delay_ms: Some((n(5), n(6))).filter(|(_, max)| *max > 0),
            drop_ppm: n(7) as u32,
            silent_ppm: n(8) as u32,
        }
    }
}

/// A small PRNG (splitmix64) for delays and drops: no crate needed, and each socket's stream
/// is reproducible from its port.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// What a simulated network does to one reply: `None` drops it, else the delay.
fn network(opts: &ChildOpts, rng: &mut Rng) -> Option<Duration> {
    if opts.drop_ppm > 0 && rng.next() % 1_000_000 < u64::from(opts.drop_ppm) {
        DROPPED.fetch_add(1, Ordering::Relaxed);
        return None;
    }
    Some(match opts.delay_ms {
        Some((min, max)) => {
            let span = max.saturating_sub(min) * 1000 + 1;
            Duration::from_micros(min * 1000 + rng.next() % span)
        }
        None => Duration::ZERO,
    })
}

static DROPPED: AtomicU64 = AtomicU64::new(0);

/// Whether the simulated network is on: the parent switches it with `net on` / `net off` on
/// stdin, so one run can measure loopback and the simulated network on the same targets.
static NET_ON: AtomicBool = AtomicBool::new(false);

/// Whether the silent share of the sockets ignores requests (`silent on` / `silent off`):
/// off while the raw floor runs, which waits for every reply.
static SILENT_ON: AtomicBool = AtomicBool::new(false);

/// Binds the next free port from `*next` up (or an ephemeral one).
fn bind_udp(ip: Ipv4Addr, next: &mut Option<u16>) -> io::Result<UdpSocket> {
    loop {
        let port = next.unwrap_or(0);
        match StdUdpSocket::bind((ip, port)) {
            Ok(s) => {
                *next = next.map(|p| p + 1);
                s.set_nonblocking(true)?;
                return UdpSocket::from_std(s);
            }
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && port > 0 && port < u16::MAX => {
                *next = Some(port + 1)
            }
            Err(e) => return Err(e),
        }
    }
}

fn bind_tcp(ip: Ipv4Addr, next: &mut Option<u16>) -> io::Result<TcpListener> {
    loop {
        let port = next.unwrap_or(0);
        match std::net::TcpListener::bind((ip, port)) {
            Ok(s) => {
                *next = next.map(|p| p + 1);
                s.set_nonblocking(true)?;
                return TcpListener::from_std(s);
            }
            Err(e) if e.kind() == io::ErrorKind::AddrInUse && port > 0 && port < u16::MAX => {
                *next = Some(port + 1)
            }
            Err(e) => return Err(e),
        }
    }
}

/// Serves one UDP socket: `answer` builds the reply (false: no reply), the simulated
/// network delays or drops it.
fn serve_udp(
    sock: UdpSocket,
    opts: ChildOpts,
    answer: impl Fn(&[u8], &mut Vec<u8>) -> bool + Send + 'static,
) {
    let sock = Arc::new(sock);
    tokio::spawn(async move {
        let port = sock.local_addr().map_or(0, |a| a.port());
        let mut rng = Rng(u64::from(u32::from(opts.ip)) << 16 | u64::from(port));
        let (mut buf, mut out) = (vec![0u8; 1500], Vec::with_capacity(256));
        let shaped = opts.delay_ms.is_some() || opts.drop_ppm > 0;
        let silent = opts.silent_ppm > 0 && rng.next() % 1_000_000 < u64::from(opts.silent_ppm);
        while let Ok((n, from)) = sock.recv_from(&mut buf).await {
            if !answer(&buf[..n], &mut out) || (silent && SILENT_ON.load(Ordering::Relaxed)) {
                continue;
            }
            if !shaped || !NET_ON.load(Ordering::Relaxed) {
                let _ = sock.send_to(&out, from).await;
                continue;
            }
            let Some(delay) = network(&opts, &mut rng) else {
                continue;
            };
            let (sock, reply) = (sock.clone(), out.clone());
            tokio::spawn(async move {
                tokio::time::sleep(delay).await;
                let _ = sock.send_to(&reply, from).await;
            });
        }
    });
}

/// Runs the responder: binds `a2s` + `samp` UDP sockets and `minecraft` TCP listeners on
/// `opts.ip`, prints one line per protocol with the ports (`a2s 40000 40001 ...`), then serves
/// until stdin closes, answering each line on stdin (`stats`, `net on`, `net off`) with the
/// counters: A2S requests, challenges, SA:MP requests, Minecraft connections, dropped replies.
pub fn run_responder(opts: ChildOpts) -> io::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let info = a2s_info_reply();
        let status = minecraft_status_frame();
        let mut lines = [
            String::from("a2s"),
            String::from("minecraft"),
            String::from("samp"),
        ];
        let mut next_port = opts.first_port;
        for _ in 0..opts.a2s {
            let sock = bind_udp(opts.ip, &mut next_port)?;
            lines[0].push_str(&format!(" {}", sock.local_addr()?.port()));
            let info = info.clone();
            serve_udp(sock, opts, move |req, out| a2s_answer(req, &info, out));
        }
        for _ in 0..opts.samp {
            let sock = bind_udp(opts.ip, &mut next_port)?;
            lines[2].push_str(&format!(" {}", sock.local_addr()?.port()));
            serve_udp(sock, opts, samp_answer);
        }
        for _ in 0..opts.minecraft {
            let listener = bind_tcp(opts.ip, &mut next_port)?;
            lines[1].push_str(&format!(" {}", listener.local_addr()?.port()));
            let status = status.clone();
            tokio::spawn(async move {
                while let Ok((mut conn, _)) = listener.accept().await {
                    MC_CONNECTIONS.fetch_add(1, Ordering::Relaxed);
                    let status = status.clone();
                    tokio::spawn(async move {
                        let mut buf = [0u8; 1024];
                        let mut seen = 0usize;
                        // Handshake and status request arrive first; answer once either came.
                        if let Ok(n) = conn.read(&mut buf).await {
                            seen += n;
                        }
                        if seen == 0 || conn.write_all(&status).await.is_err() {
                            return;
                        }
                        // Echo the ping packet (10 bytes: length 9, id 1, 8-byte payload).
                        if let Ok(n) = conn.read(&mut buf).await {
                            if n >= 10 {
                                let _ = conn.write_all(&buf[n - 10..n]).await;
                            }
                        }
                    });
                }
            });
        }
        let mut stdout = io::stdout().lock();
        for l in &lines {
            writeln!(stdout, "{l}")?;
        }
        stdout.flush()?;
        drop(stdout);
        // Serve until the parent closes our stdin.
        tokio::task::spawn_blocking(|| {
            let mut line = String::new();
            while io::stdin()
                .lock()
                .read_line(&mut line)
                .map(|n| n > 0)
                .unwrap_or(false)
            {
                match line.trim() {
                    "net on" => NET_ON.store(true, Ordering::Relaxed),
                    "net off" => NET_ON.store(false, Ordering::Relaxed),
                    "silent on" => SILENT_ON.store(true, Ordering::Relaxed),
                    "silent off" => SILENT_ON.store(false, Ordering::Relaxed),
                    _ => {}
                }
                line.clear();
                let mut out = io::stdout().lock();
                let _ = writeln!(
                    out,
                    "{} {} {} {} {}",
                    A2S_REQUESTS.load(Ordering::Relaxed),
                    A2S_CHALLENGES.load(Ordering::Relaxed),
                    SAMP_REQUESTS.load(Ordering::Relaxed),
                    MC_CONNECTIONS.load(Ordering::Relaxed),
                    DROPPED.load(Ordering::Relaxed)
                );
                let _ = out.flush();
            }
        })
        .await
        .map_err(io::Error::other)?;
        Ok(())
    })
}

/// Thread CPU time: the floor loop runs on one thread and is measured on that thread alone.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Process CPU time (user + system) of this process, all threads.
pub fn process_cpu() -> Duration {
    // SAFETY: rusage is plain integers, for which all-zero is valid; getrusage writes into the
    // struct we own.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// The UDP floor: a blocking sendto/recvfrom loop, one round trip per query, no parsing,
/// spread over the same responder sockets the exporter polls. Returns the thread's CPU per
/// successful query and the number of successes.
pub fn raw_udp_floor(
    targets: &[SocketAddr],
    request: &[u8],
    rounds: usize,
) -> io::Result<(Duration, usize)> {
    let sock = StdUdpSocket::bind("127.0.0.1:0")?;
    sock.set_read_timeout(Some(Duration::from_millis(200)))?;
    let mut buf = [0u8; 1500];
    let mut ok = 0usize;
    let start = thread_cpu();
    for i in 0..rounds {
        sock.send_to(request, targets[i % targets.len()])?;
        if sock.recv_from(&mut buf).is_ok() {
            ok += 1;
        }
    }
    let cpu = thread_cpu() - start;
    Ok((cpu / ok.max(1) as u32, ok))
}

/// How the batched floor moves its datagrams: one `sendto`/`recvfrom` per datagram, or
/// `sendmmsg`/`recvmmsg` for each batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Calls {
    Single,
    Batched,
}

/// The batched UDP floor: one thread keeps `k` requests in flight to `k` different responder
/// sockets (non-blocking socket, `poll` for readability), reads every reply that has arrived
/// and sends one new request per reply. This is what a client that does not wait for each
/// reply must do at least, so it is the floor a batching poller compares against; the
/// blocking floor above also pays a sleep and a wake-up per query.
///
/// Returns the thread's CPU per reply received and the number received. A round where nothing
/// arrives within 200 ms counts the requests in flight as lost and sends new ones.
pub fn batched_udp_floor(
    targets: &[SocketAddr],
    request: &[u8],
    rounds: usize,
    k: usize,
    calls: Calls,
) -> io::Result<(Duration, usize)> {
    use std::os::fd::AsRawFd;
    let sock = StdUdpSocket::bind("127.0.0.1:0")?;
    sock.set_nonblocking(true)?;
    let fd = sock.as_raw_fd();
    let k = k.clamp(1, targets.len().max(1));
    // sendmmsg needs the addresses as sockaddr_in: build them once, outside the measurement.
    let names: Vec<libc::sockaddr_in> = targets
        .iter()
        .map(|a| {
            // SAFETY: sockaddr_in is plain integers; all-zero is a valid value.
            let mut sin: libc::sockaddr_in = unsafe { std::mem::zeroed() };
            sin.sin_family = libc::AF_INET as libc::sa_family_t;
            sin.sin_port = a.port().to_be();
            if let SocketAddr::V4(v4) = a {
                sin.sin_addr.s_addr = u32::from(*v4.ip()).to_be();
            }
            sin
        })
        .collect();
    let mut bufs = vec![0u8; 1500 * k];
    // SAFETY: mmsghdr and iovec are plain integers and pointers; all-zero is valid, and every
    // pointer is set below before a call reads it.
    let mut send_iov: Vec<libc::iovec> = vec![unsafe { std::mem::zeroed() }; k];
    let mut send_hdrs: Vec<libc::mmsghdr> = vec![unsafe { std::mem::zeroed() }; k];
    let mut recv_iov: Vec<libc::iovec> = vec![unsafe { std::mem::zeroed() }; k];
    let mut recv_hdrs: Vec<libc::mmsghdr> = vec![unsafe { std::mem::zeroed() }; k];
    for (i, chunk) in bufs.chunks_exact_mut(1500).enumerate() {
        recv_iov[i].iov_base = chunk.as_mut_ptr().cast();
        recv_iov[i].iov_len = chunk.len();
    }
    for i in 0..k {
        recv_hdrs[i].msg_hdr.msg_iov = &mut recv_iov[i];
        recv_hdrs[i].msg_hdr.msg_iovlen = 1;
        send_iov[i].iov_base = request.as_ptr() as *mut libc::c_void;
        send_iov[i].iov_len = request.len();
        send_hdrs[i].msg_hdr.msg_iov = &mut send_iov[i];
        send_hdrs[i].msg_hdr.msg_iovlen = 1;
        send_hdrs[i].msg_hdr.msg_namelen = std::mem::size_of::<libc::sockaddr_in>() as u32;
    }
    let mut buf = [0u8; 1500];
    let (mut ok, mut in_flight, mut next, mut silent) = (0usize, 0usize, 0usize, 0u32);
    let start = thread_cpu();
    while ok < rounds && silent < 10 {
        // Top up to k in flight.
        let want = k - in_flight;
        match calls {
            Calls::Single => {
                for _ in 0..want {
                    match sock.send_to(request, targets[next % targets.len()]) {
                        Ok(_) => in_flight += 1,
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                        Err(e) => return Err(e),
                    }
                    next += 1;
                }
            }
            Calls::Batched if want > 0 => {
                for h in &mut send_hdrs[..want] {
                    h.msg_hdr.msg_name = (&names[next % names.len()] as *const libc::sockaddr_in)
                        .cast_mut()
                        .cast();
                    next += 1;
                }
                // SAFETY: the first `want` headers point at live iovecs, the request and
                // sockaddr_ins that outlive the call.
                let n = unsafe { libc::sendmmsg(fd, send_hdrs.as_mut_ptr(), want as u32, 0) };
                if n < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::WouldBlock {
                        return Err(e);
                    }
                } else {
                    in_flight += n as usize;
                }
            }
            Calls::Batched => {}
        }
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one pollfd we own.
        if unsafe { libc::poll(&mut pfd, 1, 200) } <= 0 {
            in_flight = 0;
            silent += 1;
            continue;
        }
        match calls {
            Calls::Single => loop {
                match sock.recv_from(&mut buf) {
                    Ok(_) => {
                        ok += 1;
                        in_flight = in_flight.saturating_sub(1);
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            },
            Calls::Batched => loop {
                // SAFETY: k headers, each pointing at its own 1500-byte chunk of `bufs`.
                let n = unsafe {
                    libc::recvmmsg(
                        fd,
                        recv_hdrs.as_mut_ptr(),
                        k as u32,
                        libc::MSG_DONTWAIT,
                        std::ptr::null_mut(),
                    )
                };
                if n < 0 {
                    let e = io::Error::last_os_error();
                    if e.kind() == io::ErrorKind::WouldBlock {
                        break;
                    }
                    return Err(e);
                }
                ok += n as usize;
                in_flight = in_flight.saturating_sub(n as usize);
                // Fewer than asked: the queue was empty, no need to ask again.
                if (n as usize) < k {
                    break;
                }
            },
        }
    }
    let cpu = thread_cpu() - start;
    Ok((cpu / ok.max(1) as u32, ok))
}

/// The Minecraft TCP floor: what any client must do, with blocking sockets and no parsing
/// beyond the frame length: connect, write handshake + status request, read the status frame,
/// write a ping, read the pong, close.
pub fn raw_tcp_floor(targets: &[SocketAddr], rounds: usize) -> io::Result<(Duration, usize)> {
    use gameserver_exporter::protocol::minecraft::slp;
    let (mut query, mut ping) = (Vec::new(), Vec::new());
    slp::encode_status_query("127.0.0.1", 25565, &mut query);
    slp::encode_ping(0x0102_0304_0506_0708, &mut ping);
    let frame_len = minecraft_status_frame().len();
    let mut buf = vec![0u8; 4096];
    let mut ok = 0usize;
    let start = thread_cpu();
    for i in 0..rounds {
        let mut attempt = || -> io::Result<()> {
            let mut s = StdTcpStream::connect(targets[i % targets.len()])?;
            s.set_nodelay(true)?;
            s.set_read_timeout(Some(Duration::from_millis(500)))?;
            s.write_all(&query)?;
            s.read_exact(&mut buf[..frame_len])?;
            s.write_all(&ping)?;
            s.read_exact(&mut buf[..ping.len()])?;
            Ok(())
        };
        if attempt().is_ok() {
            ok += 1;
        }
    }
    let cpu = thread_cpu() - start;
    Ok((cpu / ok.max(1) as u32, ok))
}
