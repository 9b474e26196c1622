//! `--web.config.file` and the other scrape-side features, end to end on 127.0.0.1:0: gzip
//! round trips, TLS with certificates made here (rcgen), basic auth, client certificates,
//! reloads of the web config, and `/health`.

use crate::support::wait;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use gameserver_exporter::config;
use gameserver_exporter::http::web::Web;
use gameserver_exporter::query::{Request, Session};
use gameserver_exporter::scheduler::{PollFuture, Prober};
use gameserver_exporter::serve;
use gameserver_exporter::status::{Failure, Reason, Status};
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, ExtendedKeyUsagePurpose, IsCa, KeyPair,
};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName};
use tokio::io::AsyncReadExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio_rustls::TlsConnector;

use crate::support::http;
use http::{exchange, plain, Reply};

/// `127.0.0.1:1` is up with 3/10 players; everything else times out.
struct Fake;

impl Prober for Fake {
    fn poll<'a>(&'a self, req: &'a Request, _s: &'a mut Session) -> PollFuture<'a> {
        let r = if req.address.to_string() == "127.0.0.1:1" {
            Ok(Status {
                name: "up server".into(),
                online: 3,
                max: 10,
                latency: Duration::from_millis(12),
                ..Status::default()
            })
        } else {
            Err(Failure::new(Reason::Timeout, "scripted"))
        };
        Box::pin(async move { r })
    }
}

const CONFIG: &str = r#"
[exporter]
interval = "1s"
timeout = "500ms"
http_header_timeout = "1s"

[[target]]
name = "up"
protocol = "a2s"
address = "127.0.0.1:1"

[[target]]
name = "down"
protocol = "a2s"
address = "127.0.0.1:2"
"#;

/// A directory of its own per test for the config, the web config and the PEM files.
fn scratch() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "gse-web-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

struct Running {
    addr: SocketAddr,
    dir: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    async fn stop(mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        tokio::time::timeout(Duration::from_secs(10), &mut self.task)
            .await
            .expect("shutdown in time")
            .unwrap()
            .unwrap();
        let _ = std::fs::remove_dir_all(&self.dir);
    }

    fn write_web(&self, yaml: &str) {
        std::fs::write(self.dir.join("web.yml"), yaml).unwrap();
    }
}

/// The daemon on 127.0.0.1:0 with `CONFIG` and, if given, `web` as its web config (written
/// into `dir`, where the PEM files are).
async fn start(dir: PathBuf, web: Option<&str>) -> Running {
    let path = dir.join("exporter.toml");
    std::fs::write(&path, CONFIG).unwrap();
    let config = config::load(&path).unwrap();
    let web = match web {
        Some(yaml) => {
            std::fs::write(dir.join("web.yml"), yaml).unwrap();
            Web::load(dir.join("web.yml")).unwrap()
        }
        None => Web::none(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(serve::run_with_web(
        config,
        Some(path),
        web,
        Arc::new(Fake),
        listener,
        async {
            let _ = rx.await;
        },
    ));
    Running {
        addr,
        dir,
        stop: Some(tx),
        task,
    }
}

fn basic(user: &str, password: &str) -> String {
    let token = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    format!("Authorization: Basic {token}\r\n")
}

/// Certificates for one test: a self-signed server certificate for localhost/127.0.0.1, a
/// CA for client certificates, a client certificate it signed, and one it did not.
struct Pki {
    server: CertificateDer<'static>,
    client: (CertificateDer<'static>, PrivateKeyDer<'static>),
    rogue: (CertificateDer<'static>, PrivateKeyDer<'static>),
}

fn key_der(k: &KeyPair) -> PrivateKeyDer<'static> {
    PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(k.serialize_der()))
}

fn client_params() -> CertificateParams {
    let mut p = CertificateParams::new(vec!["prometheus".to_string()]).unwrap();
    p.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    p
}

/// Writes server.crt, server.key and clients-ca.crt into `dir`.
fn pki(dir: &Path) -> Pki {
    let server =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    std::fs::write(dir.join("server.crt"), server.cert.pem()).unwrap();
    std::fs::write(dir.join("server.key"), server.signing_key.serialize_pem()).unwrap();

    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().unwrap()).unwrap();
    std::fs::write(dir.join("clients-ca.crt"), ca.pem()).unwrap();

    let client_key = KeyPair::generate().unwrap();
    let client = client_params().signed_by(&client_key, &ca).unwrap();
    let rogue_key = KeyPair::generate().unwrap();
    let rogue = client_params().self_signed(&rogue_key).unwrap();
    Pki {
        server: server.cert.der().clone(),
        client: (client.der().clone(), key_der(&client_key)),
        rogue: (rogue.der().clone(), key_der(&rogue_key)),
    }
}

const TLS: &str = "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n";

/// A TLS client trusting `pki.server`, optionally presenting a client certificate and
/// limited to TLS 1.2.
fn connector(
    pki: &Pki,
    client: Option<&(CertificateDer<'static>, PrivateKeyDer<'static>)>,
    tls12_only: bool,
) -> TlsConnector {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(pki.server.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let versions: &[&rustls::SupportedProtocolVersion] = if tls12_only {
        &[&rustls::version::TLS12]
    } else {
        &[&rustls::version::TLS13, &rustls::version::TLS12]
    };
    let b = rustls::ClientConfig::builder_with_provider(provider)
        .with_protocol_versions(versions)
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        Some((cert, key)) => b
            .with_client_auth_cert(vec![cert.clone()], key.clone_key())
            .unwrap(),
        None => b.with_no_client_auth(),
    };
    TlsConnector::from(Arc::new(config))
}

/// A request over TLS; `None` if the handshake or the exchange failed.
async fn tls(
    addr: SocketAddr,
    c: &TlsConnector,
    method: &str,
    path: &str,
    extra: &str,
) -> Option<Reply> {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let name = ServerName::try_from("localhost").unwrap();
    let s = tokio::time::timeout(Duration::from_secs(5), c.connect(name, tcp))
        .await
        .expect("handshake ends in time")
        .ok()?;
    exchange(s, method, path, extra).await
}

fn inflate(z: &[u8]) -> String {
    let mut out = String::new();
    flate2::read::GzDecoder::new(z)
        .read_to_string(&mut out)
        .unwrap();
    out
}

/// The sample lines that do not change between two scrapes.
fn stable(body: &str) -> Vec<&str> {
    body.lines()
        .filter(|l| !l.starts_with("process_") && !l.contains("duration_seconds"))
        .collect()
}

async fn until_polled(addr: SocketAddr, extra: &str) {
    wait::until("/-/ready", || async move {
        let status = plain(addr, "GET", "/-/ready", extra)
            .await
            .map(|r| r.status);
        (status == Some(200)).then_some(())
    })
    .await;
}

/// /metrics and /probe with `Accept-Encoding: gzip` inflate to what a plain request gets;
/// without it, or with `gzip;q=0`, the body is plain. Every answer says `Vary`.
#[tokio::test]
async fn gzip_round_trip() {
    let d = start(scratch(), None).await;
    until_polled(d.addr, "").await;
    for path in ["/metrics", "/probe?target=up", "/probe?target=down"] {
        let p = plain(d.addr, "GET", path, "").await.unwrap();
        assert_eq!(p.status, 200);
        assert_eq!(p.header("content-encoding"), None, "{path}");
        assert_eq!(p.header("vary"), Some("Accept-Encoding"), "{path}");
        let z = plain(d.addr, "GET", path, "Accept-Encoding: gzip\r\n")
            .await
            .unwrap();
        assert_eq!(z.status, 200);
        assert_eq!(z.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(z.header("vary"), Some("Accept-Encoding"), "{path}");
        assert_eq!(
            z.header("content-length"),
            Some(z.body.len().to_string().as_str())
        );
        assert_eq!(z.header("content-type"), p.header("content-type"));
        let text = inflate(&z.body);
        assert_eq!(stable(&text), stable(p.text()), "{path}");
        assert!(text.contains("gameserver_up{target=\""), "{path}");

        let q0 = plain(d.addr, "GET", path, "Accept-Encoding: gzip;q=0, br\r\n")
            .await
            .unwrap();
        assert_eq!(q0.header("content-encoding"), None, "{path}");
        assert_eq!(stable(q0.text()), stable(p.text()), "{path}");
    }
    // Large pages shrink: the demo-sized page is several kB of repetitive text.
    let p = plain(d.addr, "GET", "/metrics", "").await.unwrap();
    let z = plain(d.addr, "GET", "/metrics", "Accept-Encoding: gzip\r\n")
        .await
        .unwrap();
    assert!(
        z.body.len() * 2 < p.body.len(),
        "{} vs {}",
        z.body.len(),
        p.body.len()
    );
    d.stop().await;
}

/// TLS with a self-signed certificate: HTTPS works, plain HTTP to the same port gets no
/// metrics, a silent client loses its connection within the header timeout, and min_version
/// TLS13 turns away a TLS 1.2-only client.
#[tokio::test]
async fn tls_self_signed() {
    let dir = scratch();
    let pki = pki(&dir);
    let d = start(dir, Some(&format!("{TLS}  min_version: TLS13\n"))).await;
    let c = connector(&pki, None, false);
    let r = tls(d.addr, &c, "GET", "/metrics", "").await.unwrap();
    assert_eq!(r.status, 200);
    assert!(r
        .text()
        .contains("gameserver_config_last_reload_successful 1"));

    let r = plain(d.addr, "GET", "/metrics", "").await;
    assert!(
        r.as_ref().is_none_or(|r| r.status != 200),
        "plain HTTP answered: {r:?}"
    );

    // Connect and say nothing: closed after http_header_timeout (1s), not held forever.
    let mut silent = TcpStream::connect(d.addr).await.unwrap();
    let mut buf = [0u8; 64];
    let n = tokio::time::timeout(Duration::from_secs(4), silent.read(&mut buf))
        .await
        .expect("a silent client is dropped within the header timeout");
    assert!(matches!(n, Ok(0) | Err(_)), "{n:?}");

    let old = connector(&pki, None, true);
    assert!(tls(d.addr, &old, "GET", "/metrics", "").await.is_none());
    d.stop().await;
}

/// Basic auth on plain HTTP: missing and wrong credentials are 401 with
/// `WWW-Authenticate: Basic` on every path (/-/healthy too, as in exporter-toolkit); the
/// right ones are 200, repeatedly (the second from the cache).
#[tokio::test]
async fn basic_auth() {
    let hash = bcrypt::hash("scrape-me", 4).unwrap();
    let d = start(
        scratch(),
        Some(&format!("basic_auth_users:\n  prometheus: '{hash}'\n")),
    )
    .await;
    for path in [
        "/metrics",
        "/probe?target=up",
        "/-/healthy",
        "/health?target=up",
        "/",
    ] {
        let r = plain(d.addr, "GET", path, "").await.unwrap();
        assert_eq!(r.status, 401, "{path}");
        assert_eq!(r.header("www-authenticate"), Some("Basic"), "{path}");
        assert!(!r.text().contains("gameserver_"));
    }
    let wrong = [
        basic("prometheus", "scrape-you"),
        basic("grafana", "scrape-me"),
        "Authorization: Bearer scrape-me\r\n".to_string(),
    ];
    for w in &wrong {
        let r = plain(d.addr, "GET", "/metrics", w).await.unwrap();
        assert_eq!(r.status, 401, "{w}");
    }
    let right = basic("prometheus", "scrape-me");
    for _ in 0..2 {
        let r = plain(d.addr, "GET", "/metrics", &right).await.unwrap();
        assert_eq!(r.status, 200);
        assert!(r
            .text()
            .contains("gameserver_config_last_reload_successful 1"));
    }
    let r = plain(d.addr, "GET", "/-/healthy", &right).await.unwrap();
    assert_eq!(r.status, 200);
    // A wrong password after a right one is still refused.
    let r = plain(d.addr, "GET", "/metrics", &wrong[0]).await.unwrap();
    assert_eq!(r.status, 401);
    d.stop().await;
}

/// RequireAndVerifyClientCert: no certificate or one the CA did not sign gets nothing; the
/// CA-signed one is served. RequireAnyClientCert takes any certificate but not none.
#[tokio::test]
async fn client_certificates() {
    let dir = scratch();
    let pki = pki(&dir);
    let d = start(
        dir,
        Some(&format!(
            "{TLS}  client_auth_type: RequireAndVerifyClientCert\n  client_ca_file: clients-ca.crt\n"
        )),
    )
    .await;
    let none = connector(&pki, None, false);
    let rogue = connector(&pki, Some(&pki.rogue), false);
    let good = connector(&pki, Some(&pki.client), false);
    assert!(tls(d.addr, &none, "GET", "/metrics", "").await.is_none());
    assert!(tls(d.addr, &rogue, "GET", "/metrics", "").await.is_none());
    let r = tls(d.addr, &good, "GET", "/metrics", "").await.unwrap();
    assert_eq!(r.status, 200);

    // Reload to RequireAnyClientCert: new connections follow the new policy.
    d.write_web(&format!("{TLS}  client_auth_type: RequireAnyClientCert\n"));
    let r = tls(d.addr, &good, "POST", "/-/reload", "").await.unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let r = tls(d.addr, &rogue, "GET", "/metrics", "").await.unwrap();
    assert_eq!(r.status, 200);
    assert!(tls(d.addr, &none, "GET", "/metrics", "").await.is_none());
    d.stop().await;
}

fn reload_gauge(body: &str) -> Option<&str> {
    body.lines()
        .find_map(|l| l.strip_prefix("gameserver_config_last_reload_successful "))
}

/// A bad web config on reload is refused: the running TLS and users stay, and the reload
/// gauge says 0. A good one then replaces them (the old password stops working).
#[tokio::test]
async fn reload_keeps_old_web_config_when_bad() {
    let dir = scratch();
    let pki = pki(&dir);
    let old = bcrypt::hash("old-pass", 4).unwrap();
    let d = start(
        dir,
        Some(&format!("{TLS}basic_auth_users:\n  prometheus: '{old}'\n")),
    )
    .await;
    let c = connector(&pki, None, false);
    let old_auth = basic("prometheus", "old-pass");

    for bad in [
        "tls_server_config:\n  cert_file: server.crt\n".to_string(),
        format!("{TLS}basic_auth_users:\n  prometheus: plaintext\n"),
        format!("{TLS}  min_version: TLS10\n"),
        "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n".to_string(),
        "basic_auth_users: {prometheus: 'x'}\nextra_key: 1\n".to_string(),
    ] {
        d.write_web(&bad);
        let r = tls(d.addr, &c, "POST", "/-/reload", &old_auth)
            .await
            .unwrap();
        assert_eq!(r.status, 500, "{bad}: {}", r.text());
        assert!(r.text().contains("web.yml"), "{}", r.text());
        let m = tls(d.addr, &c, "GET", "/metrics", &old_auth).await.unwrap();
        assert_eq!(m.status, 200);
        assert_eq!(reload_gauge(m.text()), Some("0"), "{bad}");
    }

    let new = bcrypt::hash("new-pass", 4).unwrap();
    d.write_web(&format!("{TLS}basic_auth_users:\n  prometheus: '{new}'\n"));
    let r = tls(d.addr, &c, "POST", "/-/reload", &old_auth)
        .await
        .unwrap();
    assert_eq!(r.status, 200, "{}", r.text());
    let r = tls(d.addr, &c, "GET", "/metrics", &old_auth).await.unwrap();
    assert_eq!(r.status, 401);
    let new_auth = basic("prometheus", "new-pass");
    let r = tls(d.addr, &c, "GET", "/metrics", &new_auth).await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(reload_gauge(r.text()), Some("1"));

    // And back to plain HTTP without auth: the web config may drop TLS too.
    d.write_web("");
    let r = tls(d.addr, &c, "POST", "/-/reload", &new_auth)
        .await
        .unwrap();
    assert_eq!(r.status, 200);
    let r = plain(d.addr, "GET", "/metrics", "").await.unwrap();
    assert_eq!(r.status, 200);
    d.stop().await;
}

/// /health over HTTP: 200 for a target whose last poll succeeded, 503 for a failing one,
/// 404 unknown, 400 without a target; JSON either way.
#[tokio::test]
async fn health_endpoint() {
    let d = start(scratch(), None).await;
    until_polled(d.addr, "").await;
    let r = plain(d.addr, "GET", "/health?target=up", "").await.unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["up"], true);
    assert_eq!(v["players"], 3);
    assert_eq!(v["max"], 10);
    assert_eq!(v["latency_seconds"], 0.012);
    assert!(v["last_success"].as_u64().unwrap() > 1_700_000_000);
    assert_eq!(v["last_failure_reason"], serde_json::Value::Null);

    let r = plain(d.addr, "GET", "/health?target=down", "")
        .await
        .unwrap();
    assert_eq!(r.status, 503);
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(v["up"], false);
    assert_eq!(v["last_failure_reason"], "timeout");
    assert_eq!(v["last_success"], serde_json::Value::Null);

    let r = plain(d.addr, "GET", "/health?target=nope", "")
        .await
        .unwrap();
    assert_eq!(r.status, 404);
    let r = plain(d.addr, "GET", "/health", "").await.unwrap();
    assert_eq!(r.status, 400);
    let r = plain(d.addr, "POST", "/health?target=up", "")
        .await
        .unwrap();
    assert_eq!(r.status, 405);
    d.stop().await;
}

/// `check-config` with `--web.config.file` validates both files: a good web config is OK
/// (its certificate read), a bad one fails naming the key.
#[test]
fn check_config_reads_the_web_config() {
    let dir = scratch();
    pki(&dir);
    std::fs::write(dir.join("exporter.toml"), CONFIG).unwrap();
    let hash = bcrypt::hash("x", 4).unwrap();
    std::fs::write(
        dir.join("web.yml"),
        format!("{TLS}basic_auth_users:\n  a: '{hash}'\n  b: '{hash}'\n"),
    )
    .unwrap();
    let run = || {
        std::process::Command::new(env!("CARGO_BIN_EXE_gameserver-exporter"))
            .arg("--web.config.file")
            .arg(dir.join("web.yml"))
            .arg("check-config")
            .arg(dir.join("exporter.toml"))
            .output()
            .unwrap()
    };
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{text}");
    assert!(text.contains("web.yml: OK (TLS, 2 users)"), "{text}");

    std::fs::write(dir.join("web.yml"), format!("{TLS}  client_auth: x\n")).unwrap();
    let out = run();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(!out.status.success(), "{text}");
    assert!(
        text.contains("web.yml: line 4 column 3: unknown field `client_auth`"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
