//! The daemon in-process for integration tests: a config written to a temp file (so reloads
//! can rewrite it), `serve::run` on a listener bound to 127.0.0.1:0, and a clean stop.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use gameserver_exporter::config;
use gameserver_exporter::http::web::Web;
use gameserver_exporter::scheduler::Prober;
use gameserver_exporter::serve;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// How long a test waits for an event before it calls the run failed: only a hang takes this
/// long. A loaded machine (other builds, `stress-ng`) makes events late, never wrong, so no
/// test decides on a shorter wait.
pub const DEADLINE: Duration = Duration::from_secs(120);

pub struct Running {
    pub addr: SocketAddr,
    pub path: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    /// Shuts the daemon down, asserting it exits cleanly and in time.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        tokio::time::timeout(Duration::from_secs(10), &mut self.task)
            .await
            .expect("shutdown in time")
            .unwrap()
            .unwrap();
        let _ = std::fs::remove_file(&self.path);
    }

    /// Replaces the config file, for a reload to pick up.
    pub fn write_config(&self, text: &str) {
        std::fs::write(&self.path, text).unwrap();
    }
}

/// Starts the daemon with config `text` and `prober` doing the polls.
pub async fn start(text: &str, prober: Arc<dyn Prober>) -> Running {
    start_shard(text, prober, None).await
}

/// Like [`start`], as `--shard SHARD` would (overriding any `exporter.shard` in `text`).
pub async fn start_shard(text: &str, prober: Arc<dyn Prober>, shard: Option<&str>) -> Running {
    start_full(text, prober, shard, Web::none()).await
}

/// Like [`start`], with a loaded `--web.config.file` (TLS, basic auth).
pub async fn start_web(text: &str, prober: Arc<dyn Prober>, web: Web) -> Running {
    start_full(text, prober, None, web).await
}

async fn start_full(text: &str, prober: Arc<dyn Prober>, shard: Option<&str>, web: Web) -> Running {
    static N: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "gse-test-{}-{}.toml",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::write(&path, text).unwrap();
    let mut config = config::load(&path).unwrap();
    if let Some(s) = shard {
        config.exporter.shard = Some(s.parse().unwrap());
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(serve::run_with_web(
        config,
        Some(path.clone()),
        web,
        prober,
        listener,
        async {
            let _ = rx.await;
        },
    ));
    Running {
        addr,
        path,
        stop: Some(tx),
        task,
    }
}

/// One `[[target]]` table; `extra` holds further `key = value` lines.
pub fn target(name: &str, protocol: &str, address: &str, extra: &str) -> String {
    format!(
        "[[target]]\nname = \"{name}\"\nprotocol = \"{protocol}\"\naddress = \"{address}\"\n{extra}"
    )
}

/// One `/metrics` scrape's body (text format).
pub async fn metrics(addr: SocketAddr) -> String {
    let reply = super::http::get(addr, "/metrics").await;
    String::from_utf8_lossy(&reply.decoded()).into_owned()
}

/// Scrapes until every line of `want` is in the body (a line ending in a space matches any
/// value: counters), and returns that body; panics with the last body after [`DEADLINE`].
pub async fn wait_for(addr: SocketAddr, want: &[&str]) -> String {
    let has = |body: &str, w: &str| {
        body.lines()
            .any(|l| l == w || (w.ends_with(' ') && l.starts_with(w)))
    };
    let started = std::time::Instant::now();
    loop {
        let body = metrics(addr).await;
        let missing: Vec<&&str> = want.iter().filter(|w| !has(&body, w)).collect();
        if missing.is_empty() {
            return body;
        }
        assert!(started.elapsed() < DEADLINE, "missing {missing:?}\n{body}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
