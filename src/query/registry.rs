//! The registry: the generic poll that runs any protocol's spec.
//!
//! Each protocol states its facts once, in its own folder (`protocol/<p>/spec.rs`): how the
//! address resolves ([`Resolve`]), how it travels ([`Link`]), how its requests are spaced,
//! and how its exchange is built from a poll's [`Start`] and what it remembered ([`Build`]).
//! `target::Protocol` lists the specs and dispatches to the exchange type ([`dispatch`]).
//! One generic poll ([`run`]) does the rest for every protocol: resolve, open the link,
//! build, drive, remember. `docs/adding-a-protocol.md` shows what a new protocol fills in;
//! nothing here names one.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::pin::Pin;
use std::time::Duration;

use tokio::time::Instant;

use super::driver::{drive, Observer, Pacing, RESENDS};
use super::health;
use super::peer_gate;
use super::request::{Request, Session};
use super::transport::{TcpLink, Transport, UdpThenHttp};
use crate::net::http::HttpLink;
use crate::net::udp::UdpChannel;
use crate::net::{resolve, srv};
use crate::protocol::exchange::{Error, LinkError};
pub use crate::protocol::spec::{Build, Link, Resolve, Spec, Start, Visit};
use crate::status::Status;
use crate::target::Protocol;

/// A poll in flight for callers that do not know the protocol's type (the CLI, `/probe`):
/// boxed once; everything inside it (driver, exchange, link) is monomorphized per protocol.
pub type PollFuture<'a> = Pin<Box<dyn Future<Output = Result<Status, Error>> + Send + 'a>>;

/// How the driver spaces a protocol's requests.
pub fn pacing(spec: &Spec) -> Pacing {
    if spec.self_paced {
        return Pacing {
            resends: 0,
            min_gap: Duration::ZERO,
        };
    }
    Pacing {
        resends: RESENDS,
        min_gap: spec.min_gap,
    }
}

/// Calls `v` with `protocol`'s exchange type and spec (`target::Protocol`'s `dispatch`).
pub fn dispatch<V: Visit>(protocol: Protocol, v: V) -> V::Output {
    protocol.dispatch(v)
}

/// Polls once through `req.protocol`'s spec, boxed (for callers that do not dispatch
/// themselves).
pub(super) async fn poll(
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    struct Boxed<'a> {
        req: &'a Request,
        session: &'a mut Session,
        deadline: Instant,
        observer: Option<&'a mut dyn Observer>,
    }
    impl<'a> Visit for Boxed<'a> {
        type Output = PollFuture<'a>;
        fn visit<X: Build>(self, spec: &'static Spec) -> PollFuture<'a> {
            Box::pin(run::<X>(
                spec,
                self.req,
                self.session,
                self.deadline,
                self.observer,
            ))
        }
    }
    // Shortens the observer's object lifetime to the borrows' (a coercion `Option` cannot do).
    let observer = observer.map(|o| -> &mut dyn Observer { o });
    let v = Boxed {
        req,
        session,
        deadline,
        observer,
    };
    dispatch(req.protocol, v).await
}

/// The one poll every protocol runs: resolve as the spec says, open its link, build the
/// exchange, drive it, and let it remember what the next poll needs.
pub async fn run<X: Build>(
    spec: &'static Spec,
    req: &Request,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let peer = resolved(spec, req, deadline).await?;
    let mut start = Start {
        params: req.params(),
        host: &req.address.host,
        peer,
        local_port: None,
        min_gap: spec.min_gap,
        deadline: deadline.into_std(),
        voice_port: req.voice_port,
        credentials: req.credentials.as_deref(),
        game: req.game,
    };
    let mut observer = observer;
    if let (Some(o), Some(c)) = (observer.as_mut(), req.credentials.as_deref()) {
        o.credentials(c);
    }
    // A reborrow for the poll, the object's lifetime shortened to it (the health query
    // after it reports to the same observer); `as_deref_mut` keeps the longer object
    // lifetime, which `&mut`'s invariance then ties to the whole function.
    #[allow(clippy::option_as_ref_deref)]
    let observed = observer.as_mut().map(|o| -> &mut dyn Observer { &mut **o });
    let mut status = poll_link::<X>(spec, req, &mut start, session, deadline, observed).await?;
    // The configured capacity stands in where the server reports none.
    if status.max == 0 {
        status.max = req.max_players.unwrap_or(0);
    }
    match X::health_over_rcon(&start) {
        Some(rcon) => {
            let addr = SocketAddr::new(peer.ip(), rcon.port);
            // Boxed: the RCON health query's future is nearly the size of the poll's, and
            // inline it would size every protocol's poll future, which the scheduler moves
            // into a box on every poll; few targets ask for it (benches/RESULTS.md, "A2S
            // poll future").
            let health = health::add(
                status,
                addr,
                rcon.password,
                rcon.script,
                rcon.console,
                start.params,
                deadline,
                observer,
            );
            Ok(Box::pin(health).await)
        }
        None => Ok(status),
    }
}

/// [`run`]'s poll proper, over the link the spec names.
pub(super) async fn poll_link<X: Build>(
    spec: &'static Spec,
    req: &Request,
    start: &mut Start<'_>,
    session: &mut Session,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    let peer = start.peer;
    let start = &mut *start;
    match spec.link {
        Link::UdpShared => {
            let mux = req.shared_udp_for(session, X::LOCAL_PORT);
            let mut chan = UdpChannel::open(peer, mux).await?;
            // Asked of the kernel only on a socket of its own (first polls, after a failure):
            // the mux knows its port.
            if X::LOCAL_PORT {
                start.local_port = chan.local_port();
            }
            go::<X, _>(spec, start, session, &mut chan, deadline, observer).await
        }
        Link::Tcp => {
            let mut link = TcpLink::new(peer).with_proxy_header(req.proxy_protocol);
            go::<X, _>(spec, start, session, &mut link, deadline, observer).await
        }
        // Boxed: an HTTP poll's future (hyper's and rustls' handshakes) is several times the
        // size of a datagram poll's, and inline it would size every protocol's poll future,
        // which the scheduler allocates and copies on every poll. One allocation more per
        // HTTP poll, against a TCP and maybe a TLS handshake.
        Link::Http => {
            let cap = req.limits.reply_cap();
            let link = HttpLink::new(peer, req.address.host.clone(), req.tls.clone(), cap);
            Box::pin(go_owned::<X, _>(
                spec, start, session, link, deadline, observer,
            ))
            .await
        }
        // Boxed as Link::Http is, for the same reason.
        Link::UdpThenHttp => {
            let chan = UdpChannel::open(peer, req.shared_udp(session)).await?;
            let cap = req.limits.reply_cap();
            let http = HttpLink::new(peer, req.address.host.clone(), req.tls.clone(), cap);
            let link = UdpThenHttp::new(chan, http);
            Box::pin(go_owned::<X, _>(
                spec, start, session, link, deadline, observer,
            ))
            .await
        }
    }
}

/// [`go`] over a transport it owns, for a poll boxed apart.
async fn go_owned<X: Build, T: Transport>(
    spec: &Spec,
    start: &Start<'_>,
    session: &mut Session,
    mut transport: T,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    go::<X, T>(spec, start, session, &mut transport, deadline, observer).await
}

async fn go<X: Build, T: Transport>(
    spec: &Spec,
    start: &Start<'_>,
    session: &mut Session,
    transport: &mut T,
    deadline: Instant,
    observer: Option<&mut dyn Observer>,
) -> Result<Status, Error> {
    // Polls at a short interval must keep the gap a rate-limited server needs between two
    // requests, as resends do (Cfx.re's getinfo limit, DarkPlaces' flood block, TeamSpeak's
    // flood ban).
    let gap = X::poll_gap(spec);
    // Servers that count per client address across sessions: one poll at a time per server.
    let gate = X::GAP_PER_SERVER.then(|| peer_gate::gate(start.peer));
    let mut held = match &gate {
        Some(g) => match tokio::time::timeout_at(deadline, g.lock()).await {
            Ok(guard) => Some(guard),
            Err(_) => return Err(LinkError::Timeout.into()),
        },
        None => None,
    };
    let last = held
        .as_deref()
        .copied()
        .flatten()
        .max(session.last_exchange_end);
    if let Some(end) = last.filter(|_| !gap.is_zero()) {
        tokio::time::sleep_until((end + gap).min(deadline)).await;
    }
    let mut exchange = X::build(start, &session.memory);
    let result = drive(&mut exchange, transport, deadline, pacing(spec), observer).await;
    exchange.remember(&mut session.memory);
    // Only a gap reads when the exchange ended: protocols without one (A2S, SA:MP...) skip
    // the clock read, a cost each of their polls paid for nothing (benches/RESULTS.md).
    if !gap.is_zero() || held.is_some() {
        let end = Instant::now();
        session.last_exchange_end = Some(end);
        if let Some(g) = held.as_mut() {
            **g = Some(end);
        }
    }
    result
}

/// The address `spec` says `req` resolves to.
async fn resolved(spec: &Spec, req: &Request, deadline: Instant) -> Result<SocketAddr, Error> {
    let port = spec.default_port;
    match spec.resolve {
        Resolve::Plain => Ok(resolve::resolve(&req.address, port, deadline).await?),
        Resolve::MinecraftSrv => Ok(srv::resolve_minecraft(&req.address, port, deadline).await?),
        Resolve::Ipv4Only => {
            let addr = resolve::resolve(&req.address, port, deadline).await?;
            let ip = ipv4_of(addr.ip()).ok_or_else(|| Error::NotIpv4 {
                name: req.address.to_string(),
                ip: addr.ip(),
            })?;
            Ok(SocketAddr::new(IpAddr::V4(ip), addr.port()))
        }
    }
}

fn ipv4_of(ip: IpAddr) -> Option<Ipv4Addr> {
    match ip {
        IpAddr::V4(v4) => Some(v4),
        IpAddr::V6(v6) => v6.to_ipv4_mapped(),
    }
}
