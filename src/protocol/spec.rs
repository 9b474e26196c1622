//! A protocol's facts, stated once in its own folder (`protocol/<p>/spec.rs`): its id, default
//! port, how its address resolves, which link it travels over, how its requests are spaced,
//! which credential keys it takes and what they mean there, and how its exchange is built for
//! one poll. `target::Protocol` lists the specs (one line each) and reads them; the daemon's
//! registry runs any of them through one generic poll. Nothing outside a protocol's folder
//! holds a rule of that protocol. `docs/adding-a-protocol.md` walks through a new one.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::credentials::{Console, CredentialKey, Credentials};
use super::exchange::{Exchange, Params};
use super::memory::Memory;
use super::rcon::exchange::Script;
use crate::secret::Secret;

/// Everything the rest of the exporter needs to know about one protocol, besides its
/// exchange type ([`Build`]).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The id in the config, on the command line, in `module=` and on the `protocol` label.
    pub id: &'static str,
    /// The port used when an address names none (Minecraft tries SRV first).
    pub default_port: u16,
    pub resolve: Resolve,
    pub link: Link,
    /// The least time between two requests to the same server, resends included. Zero
    /// unless the server drops quick repeats: DarkPlaces-based servers (Quake 3 family) do
    /// within a second.
    pub min_gap: Duration,
    /// The exchange resends by itself and keeps [`Spec::min_gap`] per request kind
    /// (Teeworlds keeps two dialects in flight; its 0.7 info request may follow its
    /// handshake at once): the driver's resends and gap are off.
    pub self_paced: bool,
    /// Whether the protocol is an HTTP API, and whether TLS is optional there (`tls = true`
    /// turns it on) or always on. The config accepts the `tls*` keys only where this is
    /// `Some`.
    pub http: Option<HttpScheme>,
    /// The credential keys a target of this protocol may set (`username`, `password_file`,
    /// ...); any other is a config error. Empty for protocols that never log in. What each
    /// means for the protocol is said beside it in the spec and done in its [`Build`].
    pub credential_keys: &'static [CredentialKey],
    /// The credential key a target of this protocol must set: the protocol has nothing to
    /// ask without it. (None does today: Factorio answers nothing without its RCON password,
    /// but a target without `password_file` is still valid config, as the example's, whose
    /// file does not exist on every machine that checks it; its polls fail at once, before
    /// connecting, as `auth_refused` naming the missing key.)
    pub required_credential: Option<CredentialKey>,
    /// The port RCON listens on when `rcon.port` is not given, for protocols that take
    /// `rcon`.
    pub default_rcon_port: u16,
    /// The voice port of the virtual server a poll selects when the target sets no
    /// `voice_port`: `Some` for voice servers whose one query port serves several virtual
    /// servers (TeamSpeak 3 and 2). The config accepts `voice_port` only where this is
    /// `Some`.
    pub voice_port: Option<u16>,
}

impl Spec {
    /// A UDP protocol on the shared socket, resolved plainly, unpaced, without credentials:
    /// what most specs start from (`..Spec::udp("id", port)`).
    pub const fn udp(id: &'static str, default_port: u16) -> Spec {
        Spec {
            id,
            default_port,
            resolve: Resolve::Plain,
            link: Link::UdpShared,
            min_gap: Duration::ZERO,
            self_paced: false,
            http: None,
            credential_keys: &[],
            required_credential: None,
            default_rcon_port: SOURCE_RCON_PORT,
            voice_port: None,
        }
    }

    /// A TCP protocol, otherwise as [`Spec::udp`] (`..Spec::tcp("id", port)`).
    pub const fn tcp(id: &'static str, default_port: u16) -> Spec {
        Spec {
            link: Link::Tcp,
            ..Spec::udp(id, default_port)
        }
    }

    /// An HTTP API spoken as `scheme` says, otherwise as [`Spec::udp`]
    /// (`..Spec::http("id", port, HttpScheme::Either)`).
    pub const fn http(id: &'static str, default_port: u16, scheme: HttpScheme) -> Spec {
        Spec {
            link: Link::Http,
            http: Some(scheme),
            ..Spec::udp(id, default_port)
        }
    }

    /// Whether the protocol talks over a TCP stream (only these can carry a PROXY protocol
    /// header).
    pub fn over_tcp(&self) -> bool {
        self.link == Link::Tcp
    }

    /// The gap the driver keeps between this protocol's requests: none for self-paced
    /// exchanges, which keep their own.
    pub fn driver_gap(&self) -> Duration {
        if self.self_paced {
            Duration::ZERO
        } else {
            self.min_gap
        }
    }
}

/// Source's RCON port, the default `rcon.port` of every protocol but Minecraft.
pub const SOURCE_RCON_PORT: u16 = 27015;

/// How a protocol's address becomes the socket address it talks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolve {
    /// A and AAAA records (or a literal), the protocol's default port unless given.
    Plain,
    /// Minecraft's `_minecraft._tcp` SRV record first, unless the address has a port or is
    /// an IP literal; then as [`Resolve::Plain`].
    MinecraftSrv,
    /// As [`Resolve::Plain`], and the address must be IPv4 (an IPv4-mapped IPv6 one is
    /// taken as IPv4): SA:MP carries the server's IPv4 address in every request.
    Ipv4Only,
}

/// How a protocol reaches its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// UDP, on the daemon's shared socket once the target has answered (from the first
    /// poll for exchanges that read their local port, [`Build::LOCAL_PORT`]), else a
    /// connected socket of its own. The exchange is told its local port
    /// ([`Start::local_port`]): the shared socket's stays the same for the process's life,
    /// so a token the server ties to the client's address and port (Minecraft Query) stays
    /// good from poll to poll.
    UdpShared,
    /// A TCP stream; each attempt of a fallback chain opens a new connection.
    Tcp,
    /// An HTTP API: hyper's HTTP/1.1 client over TCP, or TLS as the target's settings say,
    /// one connection per poll. The exchange writes requests and reads whole responses in
    /// `protocol::http`'s message form, usually through `protocol::http::fetch::Fetch`.
    Http,
    /// UDP as [`Link::UdpShared`], then, if the exchange connects, HTTP(S) as [`Link::Http`]
    /// to the same address (`protocol::http::then::Then`: Satisfactory's HTTPS API, FiveM's
    /// `/players.json`). The TLS keys apply to the HTTP part where the protocol takes them.
    UdpThenHttp,
}

/// Whether an HTTP API may be spoken in the clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpScheme {
    /// HTTP unless the target says `tls = true` (TShock, Palworld: whatever the owner put in
    /// front of it).
    Either,
    /// HTTPS only (the API exists only over TLS).
    HttpsOnly,
}

/// What an exchange is built from, besides what its protocol remembered ([`Memory`]).
#[derive(Debug, Clone, Copy)]
pub struct Start<'a> {
    pub params: Params,
    /// The host name as configured (Minecraft's handshake carries it; proxies route by it).
    /// The request's shared string, so an exchange that keeps it clones a pointer, not the
    /// name (one allocation per Minecraft poll otherwise).
    pub host: &'a Arc<str>,
    /// The resolved address the link talks to.
    pub peer: SocketAddr,
    /// Our local port on UDP links, for exchanges that ask ([`Build::LOCAL_PORT`]).
    pub local_port: Option<u16>,
    /// The spec's minimum gap, for self-paced exchanges.
    pub min_gap: Duration,
    /// The poll's deadline on the driver's clock.
    pub deadline: Instant,
    /// The voice port of the virtual server to select, as the target set it (protocols with
    /// a `Spec::voice_port`: TeamSpeak 3 and 2).
    pub voice_port: Option<u16>,
    /// What a configured target logs in with (`None`: an ad-hoc poll).
    pub credentials: Option<&'a Credentials>,
    /// The game preset the target named, by id (`None`: no preset, or an ad-hoc poll): the
    /// console dialect a health query over RCON speaks.
    pub game: Option<&'static str>,
}

/// How a protocol's exchange is built for one poll, and what it leaves in the target's
/// [`Memory`] for the next. The one place where per-protocol memory meets the session.
/// Implemented in each protocol's `spec.rs`, beside its [`Spec`].
pub trait Build: Exchange + Send + Sized + 'static {
    fn build(start: &Start<'_>, memory: &Memory) -> Self;

    /// Called once the exchange has finished, whatever its result.
    fn remember(&self, _memory: &mut Memory) {}

    /// The least time from the end of one poll's exchange to the next poll's first request
    /// on the same session: the gap the driver keeps between requests (none for self-paced
    /// exchanges, which keep their own within a poll and need none across polls).
    fn poll_gap(spec: &Spec) -> Duration {
        spec.driver_gap()
    }

    /// The gap holds per server address across every session of this process (targets and
    /// `/probe` alike), not per target: for servers that ban by client address.
    const GAP_PER_SERVER: bool = false;

    /// The exchange reads [`Start::local_port`] (on UDP links): servers that tie a token to
    /// the client's port. Off, the poll never asks for it.
    const LOCAL_PORT: bool = false;

    /// Server health asked over RCON after a successful poll, on another port of the same
    /// host (Minecraft and A2S targets with `rcon` set). `None` for every other protocol
    /// and target.
    fn health_over_rcon(_start: &Start<'_>) -> Option<RconHealth> {
        None
    }
}

/// Where and how a target's health is asked over its admin console: the console's port,
/// password and dialect, and the commands a Source RCON console understands (the other
/// dialects ask their game's one health command: `protocol::webrcon`, `protocol::sdtd`).
pub struct RconHealth {
    pub port: u16,
    pub password: Secret,
    pub script: Box<dyn Script>,
    pub console: Console,
}

impl RconHealth {
    /// From the target's `rcon` table (its port, else its console's default port, else
    /// `default_port`); `None` without one.
    pub fn from_rcon(
        start: &Start<'_>,
        default_port: u16,
        script: Box<dyn Script>,
    ) -> Option<RconHealth> {
        let rcon = start.credentials?.rcon.as_ref()?;
        let console_port = rcon.console.default_port().unwrap_or(default_port);
        Some(RconHealth {
            port: rcon.port.unwrap_or(console_port),
            password: rcon.password.clone(),
            script,
            console: rcon.console,
        })
    }
}

/// Something done with one protocol's exchange type: `target::Protocol::dispatch` calls
/// `visit` with the type and spec of the protocol asked for. The scheduler builds its
/// per-poll box inside `visit`, so the generic poll sits in that one box, unboxed (a boxed
/// poll per protocol cost one allocation and ~640 instructions per poll: benches/RESULTS.md).
pub trait Visit {
    type Output;
    fn visit<X: Build>(self, spec: &'static Spec) -> Self::Output;
}

/// What a protocol remembered from its last poll, or its default.
pub fn recalled<M: Copy + Default + 'static>(memory: &Memory) -> M {
    memory.peek::<M>().copied().unwrap_or_default()
}
