//! The server and the routing of the HTTP side: `/metrics`, `/probe`, `/sd`, `/health`,
//! `/api/v1/targets`, `/-/healthy`, `/-/ready`, `/-/reload` and the status page, on a hyper
//! HTTP/1 server.
//!
//! Handlers are thin: parse, delegate to [`crate::metrics`], [`crate::http::probe`],
//! [`crate::http::health`], [`crate::http::landing`], [`crate::http::api`] or the [`Daemon`],
//! respond.
//!
//! `/probe` answers blackbox style with one fresh poll's gauges (no counters, and the shared
//! state is left alone); [`crate::http::probe`] says how a target is found and checked. With
//! `debug=true` it answers that poll's transcript as plain text ([`crate::http::probe::debug`]).
//! Hardening: headers must arrive within `exporter.http_header_timeout` and fit [`MAX_HEADER_BYTES`],
//! at most [`MAX_CONNECTIONS`] connections are served at once (more are closed on accept),
//! request bodies are never read, and a malformed query string is a 400.
//!
//! With `--web.config.file` ([`crate::http::web`]): connections are TLS when the web config says so
//! (the handshake must finish within `exporter.http_header_timeout` too, so a client that
//! speaks plain HTTP or nothing at all to a TLS listener gets no answer and loses its slot in
//! time), and every request, on every path, needs the basic auth credentials when users are
//! configured (401 with `WWW-Authenticate: Basic` otherwise). Every response goes through one
//! wrapper that gzips it when `Accept-Encoding` allows.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::Write as _;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use http_body_util::combinators::UnsyncBoxBody;
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

use crate::daemon::Daemon;
use crate::http::api;
use crate::http::landing;
use crate::http::probe;
use crate::http::web::gzip;
use crate::http::web::streamed::{self, Answer};
use crate::http::web::Web;
use crate::metrics::{self, Format, Globals};

/// hyper's smallest allowed read buffer; request lines and headers must fit in it.
pub const MAX_HEADER_BYTES: usize = 8192;
pub const MAX_CONNECTIONS: usize = 512;
/// How long open connections get to finish after shutdown starts.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// Whole bodies and [`streamed`] ones (`/metrics`).
type Body = UnsyncBoxBody<Bytes, std::io::Error>;

fn whole(body: impl Into<Bytes>) -> Body {
    Full::new(body.into())
        .map_err(|never| match never {})
        .boxed_unsync()
}

/// Serves until `shutdown` resolves.
pub async fn serve(
    daemon: Arc<Daemon>,
    web: Arc<Web>,
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
        let tls = web.current().tls.clone();
        let (d, w) = (daemon.clone(), web.clone());
        let (builder, watcher) = (builder.clone(), graceful.watcher());
        let handshake_timeout = daemon.config().exporter.http_header_timeout;
        tokio::spawn(async move {
            match tls {
                None => connection(d, w, peer, builder, watcher, TokioIo::new(stream)).await,
                Some(acceptor) => {
                    match tokio::time::timeout(handshake_timeout, acceptor.accept(stream)).await {
                        Ok(Ok(s)) => {
                            connection(d, w, peer, builder, watcher, TokioIo::new(s)).await
                        }
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
    web: Arc<Web>,
    peer: SocketAddr,
    builder: http1::Builder,
    watcher: Watcher,
    io: I,
) where
    I: hyper::rt::Read + hyper::rt::Write + Unpin + Send + 'static,
{
    let svc = service_fn(move |req| {
        let (d, w) = (daemon.clone(), web.clone());
        async move { Ok::<_, Infallible>(answer(&d, &w, req, peer).await) }
    });
    let _ = watcher.watch(builder.serve_connection(io, svc)).await;
}

/// What every request goes through: authentication, the handler, compression.
async fn answer(
    daemon: &Daemon,
    web: &Web,
    req: Request<Incoming>,
    peer: SocketAddr,
) -> Response<Body> {
    let gzip = gzip::accepts_gzip(req.headers());
    let users = web.current().users.clone();
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
    if !gzip || gzip::is_marked(&parts.headers) {
        return Response::from_parts(parts, body);
    }
    // Only whole bodies get here (a streamed page compresses itself), so this cannot fail.
    let plain = match body.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) => return text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
    };
    let body = match gzip::encode(&mut parts.headers, &plain) {
        Some(z) => whole(z),
        None => whole(plain),
    };
    Response::from_parts(parts, body)
}

fn respond(
    status: StatusCode,
    content_type: &'static str,
    body: impl Into<Bytes>,
) -> Response<Body> {
    let mut r = Response::new(whole(body));
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
        "/" | "/metrics"
            | "/probe"
            | "/sd"
            | "/health"
            | "/api/v1/targets"
            | "/-/healthy"
            | "/-/ready"
    );
    if !known {
        return text(StatusCode::NOT_FOUND, "not found\n");
    }
    if !read_only {
        return method_not_allowed("GET, HEAD");
    }
    let format = Format::from_accept(req.headers().get(ACCEPT).and_then(|v| v.to_str().ok()));
    match path {
        "/metrics" => metrics_page(daemon, format, gzip::accepts_gzip(req.headers())).await,
        "/probe" => match parse_query(req.uri().query().unwrap_or("")) {
            Ok(q) => probe(daemon, &q, format).await,
            Err(e) => text(StatusCode::BAD_REQUEST, format!("bad query string: {e}\n")),
        },
        "/sd" => sd(daemon, gzip::accepts_gzip(req.headers())).await,
        "/health" => match parse_query(req.uri().query().unwrap_or("")) {
            Ok(q) => {
                let target = q.iter().rev().find(|(k, _)| k == "target");
                let target = target.map(|(_, v)| v.as_str());
                let owner = target
                    .and_then(|t| daemon.owner_elsewhere(t))
                    .map(|s| s.to_string());
                let (code, body) = crate::http::health::health(daemon.state(), target, owner);
                respond(code, "application/json", body)
            }
            Err(e) => text(StatusCode::BAD_REQUEST, format!("bad query string: {e}\n")),
        },
        "/api/v1/targets" => match parse_query(req.uri().query().unwrap_or("")) {
            Ok(q) => targets_api(daemon, &q, gzip::accepts_gzip(req.headers())).await,
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
        _ => {
            let filter = match parse_query(req.uri().query().unwrap_or("")) {
                Ok(q) => q.into_iter().rev().find(|(k, _)| k == "q").map(|(_, v)| v),
                Err(e) => return text(StatusCode::BAD_REQUEST, format!("bad query string: {e}\n")),
            };
            let entries = daemon.state().snapshot();
            let page = landing::page(&entries, SystemTime::now(), filter.as_deref().unwrap_or(""));
            respond(StatusCode::OK, "text/html; charset=utf-8", page)
        }
    }
}

/// The page, rendered on a blocking thread while it is sent ([`streamed`]); for a client
/// taking gzip (Prometheus) compressed on the way, so neither the text nor its gzip exists
/// whole (100,000 targets: 76 MB plain, 5.5 MB gzip).
async fn metrics_page(daemon: &Daemon, format: Format, gzip: bool) -> Response<Body> {
    let entries = daemon.state().snapshot();
    let globals = Globals {
        reload: daemon.state().reload_info(),
        process: metrics::process::read(),
        shard: daemon.shard(),
    };
    streamed_page(format.content_type(), gzip, move |sink| {
        metrics::render_to(format, &entries, &globals, sink)
    })
    .await
}

/// A page `render` writes while it is sent ([`streamed`]), gzipped on the way if `gzip`.
async fn streamed_page<F>(content_type: &'static str, gzip: bool, render: F) -> Response<Body>
where
    F: FnOnce(&mut dyn std::io::Write) -> std::io::Result<()> + Send + 'static,
{
    let answer = streamed::render(move |sink| {
        if gzip {
            let mut z = gzip::writer(sink);
            render(&mut z)?;
            z.finish().map(drop)
        } else {
            render(sink)
        }
    })
    .await;
    let body = match answer {
        Ok(Answer::Whole(b)) => whole(b),
        Ok(Answer::Streamed(s)) => s.boxed_unsync(),
        Err(e) => {
            tracing::warn!(error = %e, content_type, "rendering a page failed");
            return text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n"));
        }
    };
    let mut r = Response::new(body);
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    if gzip {
        gzip::mark(r.headers_mut());
    }
    r
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

async fn probe(daemon: &Daemon, q: &[(String, String)], format: Format) -> Response<Body> {
    let answer = match probe::debug::requested(q) {
        Ok(true) => probe::debug::run(daemon, q)
            .await
            .map(|(transcript, entry)| {
                // The series part is the ordinary probe's, in the text format.
                let series = metrics::render_probe(Format::Text, &entry);
                text(StatusCode::OK, transcript.finish(&entry, &series))
            }),
        Ok(false) => probe::probe(daemon, q).await.map(|entry| {
            let body = metrics::render_probe(format, &entry);
            respond(StatusCode::OK, format.content_type(), body)
        }),
        Err(refused) => Err(refused),
    };
    match answer {
        Ok(response) => response,
        Err(refused) => {
            let status = match refused.kind() {
                probe::Kind::BadRequest => StatusCode::BAD_REQUEST,
                probe::Kind::NotFound => StatusCode::NOT_FOUND,
                probe::Kind::Forbidden => StatusCode::FORBIDDEN,
            };
            text(status, format!("{refused}\n"))
        }
    }
}

/// `/api/v1/targets`: the chosen targets' JSON ([`api`]), written while it is sent as `/sd`
/// is; a name this replica does not poll is a 404 shaped like `/health`'s.
async fn targets_api(daemon: &Daemon, q: &[(String, String)], gzip: bool) -> Response<Body> {
    let owner = |name: &str| daemon.owner_elsewhere(name).map(|s| s.to_string());
    let entries = match api::select(daemon.state(), q, owner) {
        Ok(entries) => entries,
        Err(unknown) => {
            return respond(StatusCode::NOT_FOUND, "application/json", unknown.to_json())
        }
    };
    let shard = daemon.shard();
    let replica = api::Replica {
        shard: (shard.count() > 1).then(|| shard.to_string()),
    };
    let now = SystemTime::now();
    streamed_page("application/json", gzip, move |sink| {
        api::write(&entries, &replica, now, sink)
    })
    .await
}

/// `/sd`: one group per target, written while it is sent (Prometheus's http_sd polls it
/// every minute; at 100,000 targets a JSON tree of the whole list was tens of MB).
async fn sd(daemon: &Daemon, gzip: bool) -> Response<Body> {
    let config = daemon.config();
    streamed_page("application/json", gzip, move |sink| {
        let groups = config.targets.iter();
        write_sd(
            groups.map(|t| (t.name.as_str(), t.protocol.as_str(), &t.labels)),
            sink,
        )
    })
    .await
}

/// `[{"targets":["NAME"],"labels":{"protocol":"…",…}},…]` from (name, protocol, labels),
/// strings escaped by serde_json.
fn write_sd<'a>(
    groups: impl Iterator<Item = (&'a str, &'a str, &'a BTreeMap<String, String>)>,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    // Many small writes: batched before they reach the compressor or the chunk queue.
    let mut out = std::io::BufWriter::with_capacity(16 * 1024, sink);
    fn string(out: &mut impl std::io::Write, s: &str) -> std::io::Result<()> {
        serde_json::to_writer(out, s).map_err(std::io::Error::from)
    }
    out.write_all(b"[")?;
    for (i, (name, protocol, labels)) in groups.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        out.write_all(b"{\"targets\":[")?;
        string(&mut out, name)?;
        out.write_all(b"],\"labels\":{\"protocol\":")?;
        string(&mut out, protocol)?;
        for (k, v) in labels {
            out.write_all(b",")?;
            string(&mut out, k)?;
            out.write_all(b":")?;
            string(&mut out, v)?;
        }
        out.write_all(b"}}")?;
    }
    out.write_all(b"]")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Query strings decode `+` and `%XX`; bad escapes and invalid UTF-8 are errors.
    /// /sd's JSON parses to one group per target, hostile strings escaped, labels as given.
    #[test]
    fn sd_json() {
        let labels = BTreeMap::from([
            ("region".to_string(), "e\"u".to_string()),
            ("zone".to_string(), "1".to_string()),
        ]);
        let none = BTreeMap::new();
        let hostile = "a\"b\\c\n\u{1}ü";
        let groups = [(hostile, "a2s", &labels), ("b", "mumble", &none)];
        let mut out = Vec::new();
        write_sd(groups.into_iter(), &mut out).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v,
            serde_json::json!([
                {"targets": [hostile], "labels": {"protocol": "a2s", "region": "e\"u", "zone": "1"}},
                {"targets": ["b"], "labels": {"protocol": "mumble"}}
            ])
        );
        let mut empty = Vec::new();
        write_sd(std::iter::empty(), &mut empty).unwrap();
        assert_eq!(empty, b"[]");
    }

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
}
