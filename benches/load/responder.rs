//! The fast responder and the raw-socket floors for the load benchmark (benches/load/main.rs).
//!
//! The responder answers with canned bytes and parses as little as it can, so that the
//! benchmark measures the exporter, not the simulator. It runs in a child process so that the
//! daemon's CPU (getrusage of the benchmark process) does not include it.

use std::io::{self, BufRead, Read, Write};
use std::net::{SocketAddr, TcpStream as StdTcpStream, UdpSocket as StdUdpSocket};
use std::sync::atomic::{AtomicU64, Ordering};
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

fn minecraft_status_frame() -> Vec<u8> {
    let json = br#"{"version":{"name":"1.21.1","protocol":767},"players":{"max":100,"online":12},"description":{"text":"Load Test"}}"#;
    let mut body = vec![0x00];
    varint(json.len() as u32, &mut body);
    body.extend_from_slice(json);
    let mut frame = Vec::new();
    varint(body.len() as u32, &mut frame);
    frame.extend_from_slice(&body);
    frame
}

/// Runs the responder: binds `a2s` + `samp` UDP sockets and `minecraft` TCP listeners on
/// 127.0.0.1, prints one line per protocol with the ports (`a2s 40000 40001 ...`), then serves
/// until stdin closes, answering each `stats` line on stdin with the counters.
pub fn run_responder(a2s: usize, minecraft: usize, samp: usize) -> io::Result<()> {
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
        for _ in 0..a2s {
            let sock = UdpSocket::bind("127.0.0.1:0").await?;
            lines[0].push_str(&format!(" {}", sock.local_addr()?.port()));
            let info = info.clone();
            tokio::spawn(async move {
                let (mut buf, mut out) = (vec![0u8; 1500], Vec::with_capacity(256));
                while let Ok((n, from)) = sock.recv_from(&mut buf).await {
                    if a2s_answer(&buf[..n], &info, &mut out) {
                        let _ = sock.send_to(&out, from).await;
                    }
                }
            });
        }
        for _ in 0..samp {
            let sock = UdpSocket::bind("127.0.0.1:0").await?;
            lines[2].push_str(&format!(" {}", sock.local_addr()?.port()));
            tokio::spawn(async move {
                let (mut buf, mut out) = (vec![0u8; 1500], Vec::with_capacity(256));
                while let Ok((n, from)) = sock.recv_from(&mut buf).await {
                    if samp_answer(&buf[..n], &mut out) {
                        let _ = sock.send_to(&out, from).await;
                    }
                }
            });
        }
        for _ in 0..minecraft {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
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
                line.clear();
                let mut out = io::stdout().lock();
                let _ = writeln!(
                    out,
                    "{} {} {} {}",
                    A2S_REQUESTS.load(Ordering::Relaxed),
                    A2S_CHALLENGES.load(Ordering::Relaxed),
                    SAMP_REQUESTS.load(Ordering::Relaxed),
                    MC_CONNECTIONS.load(Ordering::Relaxed)
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
