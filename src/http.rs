//! The HTTP side: `/metrics`, `/probe`, `/sd`, `/health`, `/-/healthy`, `/-/ready`, `/-/reload` and a
//! landing page, on a hyper HTTP/1 server.
//!
//! Handlers are thin: parse, delegate to [`crate::metrics`] or the [`Daemon`], respond.
//!
//! `/probe` answers blackbox style with one fresh poll's gauges (no counters, and the shared
//! state is left alone). An ad-hoc `/probe?protocol=P&address=A` is resolved once (A/AAAA,
//! no Minecraft SRV) and the resulting IP polled only if it lies in
//! `exporter.probe_allowed_networks`; a name that does not resolve answers `up 0` with the
//! failure's timing, since no traffic reached any server.
//! Hardening: headers must arrive within `exporter.http_header_timeout` and fit [`MAX_HEADER_BYTES`],
//! at most [`MAX_CONNECTIONS`] connections are served at once (more are closed on accept),
//! request bodies are never read, and a malformed query string is a 400.
//!
//! With `--web.config.file` ([`crate::web`]): connections are TLS when the web config says so
//! (the handshake must finish within `exporter.http_header_timeout` too, so a client that
//! speaks plain HTTP or nothing at all to a TLS listener gets no answer and loses its slot in
//! time), and every request, on every path, needs the basic auth credentials when users are
//! configured (401 with `WWW-Authenticate: Basic` otherwise). Every response goes through one
//! wrapper that gzips it when `Accept-Encoding` allows.

use std::convert::Infallible;
use std::fmt::Write;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT, ALLOW, CONTENT_TYPE, WWW_AUTHENTICATE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::config::Target;
use crate::daemon::Daemon;
use crate::metrics::{self, Format, Globals};
use crate::net::Address;
use crate::protocol::Protocol;
use crate::query::Session;
use crate::scheduler::poll_once;
use crate::state::{Entry, Outcome, TargetMeta};
use crate::status::Failure;
use crate::web::gzip;

/// hyper's smallest allowed read buffer; request lines and headers must fit in it.
pub const MAX_HEADER_BYTES: usize = 8192;
pub const MAX_CONNECTIONS: usize = 512;
/// How long open connections get to finish after shutdown starts.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

type Body = Full<Bytes>;

/// Serves until `shutdown` resolves.
pub async fn serve(
    daemon: Arc<Daemon>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let graceful = GracefulShutdown::new();
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(daemon.config().exporter.http_header_timeout)
        .max_buf_size(MAX_HEADER_BYTES);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            r = listener.accept() => match r {
                Ok(x) => x,
                Err(e) => {
                    // Out of file descriptors and the like: back off instead of spinning.
                    tracing::warn!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            _ = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!(%peer, "too many connections; closing");
            continue;
        };
        // The web config in force when the connection arrives: a reload changes what later
        // connections get, never an open one.
        let tls = daemon.web().tls.clone();
        let (d, builder, watcher) = (daemon.clone(), builder.clone(), graceful.watcher());
        let handshake_timeout = daemon.config().exporter.http_header_timeout;
        tokio::spawn(async move {
            match tls {
                None => connection(d, peer, builder, watcher, TokioIo::new(stream)).await,
                Some(acceptor) => {
                    match tokio::time::timeout(handshake_timeout, acceptor.accept(stream)).await {
                        Ok(Ok(s)) => connection(d, peer, builder, watcher, TokioIo::new(s)).await,
                        Ok(Err(e)) => tracing::debug!(%peer, error = %e, "TLS handshake failed"),
                        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
                    }
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    tokio::select! {
        _ = graceful.shutdown() => {}
        _ = tokio::time::sleep(SHUTDOWN_GRACE) => {}
    }
    Ok(())
}

/// Serves one connection, plain or TLS, until it closes.
async fn connection<I>(
    daemon: Arc<Daemon>,
    peer: SocketAddr,
    builder: http1::Builder,
    watcher: Watcher,
    io: I,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let svc = service_fn(move |req| {
        let d = daemon.clone();
        async move { Ok::<_, Infallible>(answer(&d, req, peer).await) }
    });
    let _ = watcher.watch(builder.serve_connection(io, svc)).await;
}

/// What every request goes through: authentication, the handler, compression.
async fn answer(daemon: &Daemon, req: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
    let gzip = gzip::accepts_gzip(req.headers());
    let users = daemon.web().users.clone();
    let response = match users {
        Some(users) if !users.check(req.headers()).await => {
            tracing::debug!(%peer, path = req.uri().path(), "authentication failed");
            let mut r = text(StatusCode::UNAUTHORIZED, "unauthorized\n");
            r.headers_mut()
                .insert(WWW_AUTHENTICATE, HeaderValue::from_static("Basic"));
            r
        }
        _ => handle(daemon, req, peer).await,
    };
    compress(response, gzip).await
}

/// The one compression wrapper: every handler's response passes here.
async fn compress(response: Response<Body>, gzip: bool) -> Response<Body> {
    let (mut parts, body) = response.into_parts();
    gzip::vary(&mut parts.headers);
    if !gzip {
        return Response::from_parts(parts, body);
    }
    let Ok(collected) = body.collect().await;
    let plain = collected.to_bytes();
    let body = match gzip::encode(&mut parts.headers, &plain) {
        Some(z) => Full::new(Bytes::from(z)),
        None => Full::new(plain),
    };
    Response::from_parts(parts, body)
}

fn respond(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut r = Response::new(Full::new(body.into()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn text(status: StatusCode, body: impl Into<Bytes>) -> Response<Body> {
    respond(status, "text/plain; charset=utf-8", body)
}

fn method_not_allowed(allow: &'static str) -> Response<Body> {
    let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
    r.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    r
}

async fn handle(daemon: &Daemon, req: Request<Incoming>, peer: SocketAddr) -> Response<Body> {
    let path = req.uri().path();
    let read_only = matches!(*req.method(), Method::GET | Method::HEAD);
    if path == "/-/reload" {
        if req.method() != Method::POST {
            return method_not_allowed("POST");
        }
        tracing::info!(%peer, "reload requested over HTTP");
        return match daemon.reload() {
            Ok(_) => text(StatusCode::OK, "configuration reloaded\n"),
            Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        };
    }
    let known = matches!(
        path,
        "/" | "/metrics" | "/probe" | "/sd" | "/health" | "/-/healthy" | "/-/ready"
    );
    if !known {
        return text(StatusCode::NOT_FOUND, "not found\n");
    }
    if !read_only {
        return method_not_allowed("GET, HEAD");
    }
    let format = Format::from_accept(req.headers().get(ACCEPT).and_then(|v| v.to_str().ok()));
    match path {
        "/metrics" => metrics_page(daemon, format),
        "/probe" => match parse_query(req.uri().query().unwrap_or("")) {
            Ok(q) => probe(daemon, &q, format).await,
            Err(e) => text(StatusCode::BAD_REQUEST, format!("bad query string: {e}\n")),
        },
        "/sd" => sd(daemon),
        "/health" => match parse_query(req.uri().query().unwrap_or("")) {
            Ok(q) => {
                let (code, body) = crate::health::health(daemon.state(), get(&q, "target"));
                respond(code, "application/json", body)
            }
            Err(e) => text(StatusCode::BAD_REQUEST, format!("bad query string: {e}\n")),
        },
        "/-/healthy" => text(StatusCode::OK, "healthy\n"),
        "/-/ready" => {
            if daemon.state().ready() {
                text(StatusCode::OK, "ready\n")
            } else {
                text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "not ready: some targets have not been polled yet\n",
                )
            }
        }
        _ => landing(daemon),
    }
}

fn metrics_page(daemon: &Daemon, format: Format) -> Response<Body> {
    let entries = daemon.state().snapshot();
    let globals = Globals {
        reload: daemon.state().reload_info(),
        process: metrics::process::read(),
    };
    let body = metrics::render(format, &entries, &globals);
    respond(StatusCode::OK, format.content_type(), body)
}

/// Decodes `a=b&c=d` with `+` and `%XX`; a bad escape or invalid UTF-8 is an error.
pub fn parse_query(q: &str) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for part in q.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        out.push((percent_decode(k)?, percent_decode(v)?));
    }
    Ok(out)
}

fn percent_decode(s: &str) -> Result<String, String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = b
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("bad percent escape in {s:?}"))?;
                out.push(hex);
                i += 2;
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| format!("invalid UTF-8 in {s:?}"))
}

fn get<'a>(q: &'a [(String, String)], key: &str) -> Option<&'a str> {
    q.iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

/// A /probe parameter given twice: a proxy or allow-list in front of the exporter may check
/// one copy while we would use the other, so ambiguity is refused rather than resolved.
fn repeated(q: &[(String, String)]) -> Option<&str> {
    ["target", "protocol", "address"]
        .into_iter()
        .find(|key| q.iter().filter(|(k, _)| k == key).count() > 1)
}

async fn probe(daemon: &Daemon, q: &[(String, String)], format: Format) -> Response<Body> {
    if let Some(key) = repeated(q) {
        return text(
            StatusCode::BAD_REQUEST,
            format!("parameter {key:?} given more than once\n"),
        );
    }
    let config = daemon.config();
    let meta = match (get(q, "target"), get(q, "protocol"), get(q, "address")) {
        (Some(name), None, None) => {
            let Some(t) = config.targets.iter().find(|t| t.name == name) else {
                return text(StatusCode::NOT_FOUND, format!("unknown target {name:?}\n"));
            };
            match daemon.state().get(name) {
                Some(e) if e.meta.target == *t => e.meta,
                _ => Arc::new(TargetMeta::new(t.clone())),
            }
        }
        (None, Some(p), Some(a)) => {
            let Some(protocol) = Protocol::from_name(p) else {
                return text(StatusCode::BAD_REQUEST, format!("unknown protocol {p:?}\n"));
            };
            let address = match Address::parse(a) {
                Ok(x) => x,
                Err(e) => {
                    return text(StatusCode::BAD_REQUEST, format!("bad address {a:?}: {e}\n"))
                }
            };
            if config.exporter.probe_allowed_networks.is_empty() {
                return text(
                    StatusCode::FORBIDDEN,
                    "ad-hoc probes are disabled (exporter.probe_allowed_networks is empty)\n",
                );
            }
            let target = Target {
                name: a.to_string(),
                protocol,
                address: address.clone(),
                interval: config.exporter.interval,
                timeout: config.exporter.timeout,
                encoding: encoding_rs::WINDOWS_1252,
                labels: Default::default(),
                limits: config.exporter.limits,
            };
            // Resolve once and poll the checked IP, so a second lookup cannot swap in an
            // address outside the allowed networks.
            let deadline = tokio::time::Instant::now() + target.timeout;
            let ip = match crate::net::resolve::resolve(&address, protocol.default_port(), deadline)
                .await
            {
                Ok(ip) => ip,
                Err(e) => {
                    let meta = Arc::new(TargetMeta::new(target));
                    let mut entry = Entry::new(meta);
                    entry.record(Err(Failure::from(e)), Duration::ZERO, SystemTime::now());
                    let body = metrics::render_probe(format, &entry);
                    return respond(StatusCode::OK, format.content_type(), body);
                }
            };
            let allowed = config
                .exporter
                .probe_allowed_networks
                .iter()
                .any(|n| n.contains(ip.ip()));
            if !allowed {
                return text(
                    StatusCode::FORBIDDEN,
                    format!(
                        "{a} resolves to {}, outside exporter.probe_allowed_networks\n",
                        ip.ip()
                    ),
                );
            }
            let mut target = target;
            target.address = Address {
                host: ip.ip().to_string(),
                port: Some(ip.port()),
            };
            Arc::new(TargetMeta::new(target))
        }
        _ => {
            return text(
                StatusCode::BAD_REQUEST,
                "want ?target=NAME or ?protocol=P&address=A\n",
            )
        }
    };
    let req = meta.target.request();
    let prober = daemon.prober();
    let permits = daemon.permits();
    let (result, took) = poll_once(&*prober, &permits, &req, &mut Session::default()).await;
    let mut entry = Entry::new(meta);
    entry.record(result, took, SystemTime::now());
    let body = metrics::render_probe(format, &entry);
    respond(StatusCode::OK, format.content_type(), body)
}

fn sd(daemon: &Daemon) -> Response<Body> {
    let config = daemon.config();
    let groups: Vec<serde_json::Value> = config
        .targets
        .iter()
        .map(|t| {
            let mut labels = serde_json::Map::new();
            labels.insert("protocol".into(), t.protocol.as_str().into());
            for (k, v) in &t.labels {
                labels.insert(k.clone(), v.clone().into());
            }
            serde_json::json!({ "targets": [t.name], "labels": labels })
        })
        .collect();
    let body = serde_json::to_string(&groups).unwrap_or_else(|_| "[]".into());
    respond(StatusCode::OK, "application/json", body)
}

/// Escapes text for HTML element content and attribute values.
pub fn html_escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}

fn url_escape(out: &mut String, s: &str) {
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
}

fn landing(daemon: &Daemon) -> Response<Body> {
    let entries = daemon.state().snapshot();
    let mut h = String::with_capacity(1024 + entries.len() * 256);
    h.push_str(concat!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gameserver-exporter</title></head>\n",
        "<body><h1>gameserver-exporter ",
        env!("CARGO_PKG_VERSION"),
        "</h1>\n<p><a href=\"/metrics\">metrics</a> · <a href=\"/sd\">service discovery</a> · ",
        "<a href=\"/-/ready\">ready</a></p>\n<table>\n",
        "<tr><th>target</th><th>protocol</th><th>address</th><th>state</th><th>server</th><th>players</th><th>last error</th><th></th></tr>\n"
    ));
    for e in &entries {
        let t = &e.meta.target;
        h.push_str("<tr><td>");
        html_escape(&mut h, &t.name);
        let _ = write!(h, "</td><td>{}</td><td>", t.protocol);
        html_escape(&mut h, &t.address.to_string());
        h.push_str("</td>");
        match &e.last {
            None => h.push_str("<td>pending</td><td></td><td></td><td></td>"),
            Some(Outcome::Up(s)) => {
                h.push_str("<td>up</td><td>");
                html_escape(&mut h, &s.name);
                let _ = write!(h, "</td><td>{}/{}</td><td></td>", s.online, s.max);
            }
            Some(Outcome::Down(f)) => {
                h.push_str("<td>down</td><td></td><td></td><td>");
                html_escape(&mut h, &f.to_string());
                h.push_str("</td>");
            }
        }
        h.push_str("<td><a href=\"/probe?target=");
        url_escape(&mut h, &t.name);
        h.push_str("\">probe</a></td></tr>\n");
    }
    h.push_str("</table></body></html>\n");
    respond(StatusCode::OK, "text/html; charset=utf-8", h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Query strings decode `+` and `%XX`; bad escapes and invalid UTF-8 are errors.
    #[test]
    fn query_strings() {
        assert_eq!(
            parse_query("target=a%20b+c&x").unwrap(),
            vec![("target".into(), "a b c".into()), ("x".into(), "".into())]
        );
        assert!(parse_query("target=%zz").is_err());
        assert!(parse_query("target=%4").is_err());
        assert!(parse_query("target=%ff").is_err());
        assert!(parse_query("target=%").is_err());
    }

    /// A /probe parameter given twice is found; distinct ones are fine.
    #[test]
    fn repeated_parameters() {
        let q = parse_query("target=a&x=1&x=2").unwrap();
        assert_eq!(repeated(&q), None);
        let q = parse_query("target=a&target=b").unwrap();
        assert_eq!(repeated(&q), Some("target"));
        let q = parse_query("protocol=samp&address=10.0.0.1&address=127.0.0.1").unwrap();
        assert_eq!(repeated(&q), Some("address"));
    }

    /// Server strings in the landing page cannot inject markup.
    #[test]
    fn html_escaping() {
        let mut s = String::new();
        html_escape(&mut s, "<script>\"a'&\n");
        assert_eq!(s, "&lt;script&gt;&quot;a&#39;&amp;");
    }

    /// Probe links carry the target name percent-encoded.
    #[test]
    fn url_escaping() {
        let mut s = String::new();
        url_escape(&mut s, "a b&c\"");
        assert_eq!(s, "a%20b%26c%22");
    }
}
